import assert from "node:assert/strict";
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
