import assert from "node:assert/strict";
import {
  EntryAppender,
  type EntryPayload,
  Session,
  type SessionEntry,
} from "../../mod.ts";
import { HEADER, sessionBytes, tempDir, user } from "../_session_files.ts";
import { SessionReader } from "../../src/session/session_reader.ts";

const FIXTURES = new URL("../../fixtures/omp/", import.meta.url).pathname;

Deno.test("Session getters read what the file holds", async (t) => {
  await using s = await Session.open(`${FIXTURES}s2-main.jsonl`);
  await t.step("the head", () => {
    assert.equal(s.header.type, "session");
    assert.equal(s.header.version, 3);
    assert.equal(s.titleSlot?.title, s.title);
    assert.equal(s.titleSource, "manual");
    assert.equal(s.path, `${FIXTURES}s2-main.jsonl`);
    assert.equal(s.onDisk, true);
    assert.equal(s.migrated, false);
    assert.deepEqual(s.issues, []);
  });
  await t.step("the window's entries, the leaf and lookups", () => {
    assert.equal(s.entries.at(-1)?.id, s.leafId);
    for (const e of s.entries) assert.equal(s.getEntry(e.id), e);
    assert.equal(s.getEntry("00000000"), undefined);
  });
  await t.step("buildContext() for another leaf", () => {
    const first = s.entries[0]!;
    const ctx = s.buildContext({ leafId: first.id });
    assert.equal(ctx.leafId, first.id);
    assert.equal(ctx.activePath.at(-1)?.id, first.id);
    assert.deepEqual(s.buildContext({ leafId: null }).messages, []);
  });
  await t.step("windowStats() counts what the open kept and read", async () => {
    const stats = s.windowStats();
    assert.equal(stats.retained, s.entries.length);
    // A 20 KB file comes whole in the first read: nothing is left unread.
    assert.equal(stats.windowed, false);
    assert.ok(stats.seen >= stats.retained);
    assert.equal(stats.bytesRead, (await Deno.stat(s.path!)).size);
  });
});

Deno.test("Session is an EntryAppender: every typed helper goes through appendBatch", async () => {
  class Recorder extends EntryAppender {
    batches: EntryPayload[][] = [];
    appendBatch(payloads: readonly EntryPayload[]): Promise<SessionEntry[]> {
      this.batches.push([...payloads]);
      return Promise.resolve(
        payloads.map((p, i) =>
          ({
            ...p,
            id: `r${i}`,
            parentId: null,
            timestamp: HEADER.timestamp,
          }) as SessionEntry
        ),
      );
    }
  }
  const r = new Recorder();
  await r.appendMessage({ role: "user", content: "hi" });
  await r.appendBranchSummary(null, "tried X");
  await r.appendLabel("r0");
  await r.appendThinkingLevelChange("high");
  assert.deepEqual(r.batches.map((b) => b.map((p) => p.type)), [
    ["message"],
    ["branch_summary"],
    ["label"],
    ["thinking_level_change"],
  ]);
  assert.equal(r.batches[1]![0]!.fromId, "root");
  assert.equal("label" in r.batches[2]![0]!, false);
  assert.equal(r.batches[3]![0]!.configured, "high");
  // Session reads through SessionReader, which is the EntryAppender; no
  // typed helper is overridden on the way.
  assert.ok(
    Object.getPrototypeOf(Session.prototype) === SessionReader.prototype,
  );
  assert.ok(
    Object.getPrototypeOf(SessionReader.prototype) === EntryAppender.prototype,
  );
  const helpers = Object.getOwnPropertyNames(EntryAppender.prototype)
    .filter((n) => n !== "constructor" && n !== "appendBatch");
  for (const proto of [Session.prototype, SessionReader.prototype]) {
    assert.deepEqual(helpers.filter((n) => Object.hasOwn(proto, n)), []);
  }
});

Deno.test("Session calls run one at a time, in the order they were made", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeFile(path, sessionBytes([user("00000001", null, "hi")]));
  await using s = await Session.open(path);
  const done: string[] = [];
  const calls = [
    s.appendMessage({ role: "user", content: "a" }).then(() => done.push("a")),
    s.setTitle("Renamed").then(() => done.push("title")),
    s.appendMessage({ role: "user", content: "b" }).then(() => done.push("b")),
  ];
  await Promise.all(calls);
  assert.deepEqual(done, ["a", "title", "b"]);
  const types = s.entries.map((e) => e.type);
  assert.deepEqual(types.slice(-3), ["message", "title_change", "message"]);
  await using again = await Session.open(path);
  assert.equal(again.title, "Renamed");
  assert.equal(again.leafId, s.leafId);
});

Deno.test("Session: a failed append leaves the entries and the leaf as they were", async () => {
  await using s = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
  const first = await s.appendMessage({ role: "user", content: "a" });
  await assert.rejects(
    s.appendBatch([{ type: "message", message: { role: "user" } }, {
      type: "",
    }]),
    TypeError,
  );
  assert.deepEqual(s.entries.map((e) => e.id), [first.id]);
  assert.equal(s.leafId, first.id);
});
