import { deepEqual, equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import { forkSession } from "../../src/store/fork.ts";
import { Session } from "../../src/session/session.ts";

const MAIN =
  new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url).pathname;

Deno.test("forkSession() with at keeps the path from the root to the entry, which is the leaf", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using source = await Session.open(MAIN, { window: false });
    const at = "7b596212"; // on a branch left behind
    const fork = await forkSession(MAIN, join(dir, "f.jsonl"), { at });
    deepEqual(fork.issues, []);
    await using forked = await Session.open(fork.path, { window: false });
    equal(forked.leafId, at);
    const want = source.buildContext({ leafId: at });
    const path = [];
    for (let e = source.entries.find((x) => x.id === at); e;) {
      path.unshift(e.id);
      e = source.entries.find((x) => x.id === e!.parentId);
    }
    deepEqual(forked.entries.map((e) => e.id), path);
    deepEqual(forked.buildContext().messages, want.messages);
    // Byte for byte: each line the fork holds is the source's.
    const src = await Deno.readTextFile(MAIN);
    for (
      const line of (await Deno.readTextFile(fork.path)).split("\n").slice(
        2,
        -1,
      )
    ) {
      equal(src.includes(line), true);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("forkSession() with at forks a version 1 session at a minted id", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const src = join(dir, "pi.jsonl");
    const message = (text: string, t: string) => ({
      type: "message",
      timestamp: `2025-11-20T23:33:5${t}.000Z`,
      message: { role: "user", content: [{ type: "text", text }] },
    });
    await Deno.writeTextFile(
      src,
      [
        {
          type: "session",
          id: "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
          timestamp: "2025-11-20T23:33:50.805Z",
          cwd: "/w",
        },
        message("one", "1"),
        message("two", "2"),
        message("three", "3"),
      ].map((l) => JSON.stringify(l) + "\n").join(""),
    );
    const fork = await forkSession(src, join(dir, "f.jsonl"), {
      at: "00000002",
    });
    equal(fork.migrated, true);
    await using forked = await Session.open(fork.path);
    deepEqual(forked.entries.map((e) => e.id), ["00000001", "00000002"]);
    await rejects(
      forkSession(src, join(dir, "g.jsonl"), { at: "nope" }),
      /Cannot fork .*: no entry has the id "nope"/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
