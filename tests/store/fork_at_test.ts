import assert, { deepEqual, equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import { forkSession } from "../../src/store/fork.ts";
import { Session } from "../../src/session/session.ts";
import { sessionBytes, T0, tempDir, user } from "../_session_files.ts";

const ROOT = new URL("../../fixtures/", import.meta.url).pathname;
const ORACLE = new URL("../../../shared/peers/omp/", import.meta.url).pathname;

/** The context a session rebuilds at `leafId`, without what names the file. */
function contextAt(s: Session, leafId?: string) {
  const c = s.buildContext(leafId === undefined ? {} : { leafId });
  return {
    messages: c.messages,
    model: c.model,
    thinkingLevel: c.thinkingLevel,
  };
}

Deno.test("forkSession({ at }) holds the path to the entry, its leaf is that entry, and its context is the source's there", async (t) => {
  for (
    const name of [
      "omp/s1-main.jsonl",
      "omp/s2-branched.jsonl",
      "pi/large-session-v1.jsonl",
      "xdev/omp-sample.jsonl",
    ]
  ) {
    await t.step(name, async () => {
      await using dir = await tempDir();
      await using src = await Session.open(ROOT + name, { window: false });
      // An entry off the active path where there is one, else mid-path.
      const onPath = new Set(src.getBranch().map((e) => e.id));
      const off = src.entries.find((e) =>
        !onPath.has(e.id) && e.type === "message"
      );
      const branch = src.getBranch();
      const at = (off ?? branch[Math.floor(branch.length / 2)]!).id;
      const fork = await forkSession(ROOT + name, `${dir.path}/f.jsonl`, {
        at,
      });
      await using f = await Session.open(fork.path, { window: false });
      assert.equal(f.leafId, at);
      assert.equal(f.header.version, 3);
      assert.equal(f.header.parentSession, src.header.id);
      const path = src.getBranch(at).map((e) => e.id);
      const kept = f.entries.filter((e) =>
        !(e.type === "label" ||
          (e.type === "custom" && e.customType === "branch")) ||
        path.includes(e.id)
      );
      assert.deepEqual(kept.map((e) => e.id), path);
      assert.deepEqual(contextAt(f), contextAt(src, at));
      for (const id of path) assert.equal(f.getLabel(id), src.getLabel(id), id);
      // It takes appends, under the entry forked at.
      const next = await f.appendMessage({ role: "user", content: "Go on" });
      assert.equal(next.parentId, at);
    });
  }
});

Deno.test("forkSession({ at }) keeps a label set off the path, and ends on a branch marker back to the entry", async () => {
  await using dir = await tempDir();
  const src = `${dir.path}/s.jsonl`;
  await Deno.writeFile(
    src,
    sessionBytes([
      user("0000000a", null, "one"),
      user("0000000b", "0000000a", "two"),
      user("0000000c", "0000000a", "other way"),
      {
        type: "label",
        id: "0000000d",
        parentId: "0000000c",
        timestamp: T0,
        targetId: "0000000a",
        label: "start",
      },
    ]),
  );
  const fork = await forkSession(src, `${dir.path}/f.jsonl`, {
    at: "0000000b",
  });
  await using f = await Session.open(fork.path, { window: false });
  assert.equal(f.leafId, "0000000b");
  assert.equal(f.getLabel("0000000a"), "start");
  const last = f.entries.at(-1)!;
  assert.equal(last.type, "custom");
  assert.equal(f.buildContext().messages.length, 2);
  // The label entry on the path: nothing to carry, the file ends on the entry.
  const plain = await forkSession(src, `${dir.path}/g.jsonl`, {
    at: "0000000d",
  });
  await using g = await Session.open(plain.path, { window: false });
  assert.deepEqual(
    g.entries.map((e) => e.id),
    ["0000000a", "0000000c", "0000000d"],
  );
});

Deno.test("forkSession({ at }) refuses an unknown entry and writes nothing", async () => {
  await using dir = await tempDir();
  await assert.rejects(
    forkSession(ROOT + "omp/s1-main.jsonl", `${dir.path}/f.jsonl`, {
      at: "ffffffff",
    }),
    RangeError,
  );
  assert.deepEqual(await Array.fromAsync(Deno.readDir(dir.path)), []);
});

Deno.test({
  name:
    "forkSession({ at }) resumes in omp with the context we rebuild (oracle)",
  ignore: !(() => {
    try {
      return Deno.statSync(`${ORACLE}node_modules`).isDirectory;
    } catch {
      return false;
    }
  })(),
  fn: async () => {
    await using dir = await tempDir();
    await using src = await Session.open(ROOT + "omp/s1-main.jsonl", {
      window: false,
    });
    const at = src.getBranch().at(-5)!.id;
    const fork = await forkSession(
      ROOT + "omp/s1-main.jsonl",
      `${dir.path}/f.jsonl`,
      { at },
    );
    const out = await new Deno.Command("npx", {
      args: ["bun", "oracle.ts", "context", fork.path],
      cwd: ORACLE,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const omp = JSON.parse(new TextDecoder().decode(out.stdout));
    await using f = await Session.open(fork.path);
    assert.equal(omp.messages.length, f.buildContext().messages.length);
  },
});

// A fork at an entry copies the source's lines byte for byte.
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
      /Cannot fork .* at "nope": no entry has that id/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
