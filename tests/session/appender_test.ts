/**
 * What an append accepts as its first parent (`session/_appender.ts`): an
 * id in memory or in the file, never one that names no entry; and a parent
 * outside the loaded window leaves the session as a fresh open would see it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Session } from "../../mod.ts";
import { tempDir } from "../_session_files.ts";
import { generateFile } from "../../src/gen/generate.ts";
import { type Fs, realFs, setFs } from "../../src/_fs.ts";

const T = Date.parse("2026-10-01T09:00:00.000Z");
const answer = (text: string) => ({
  role: "assistant" as const,
  content: [{ type: "text" as const, text }],
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  api: "anthropic-messages",
  usage: { input: 1, output: 1, totalTokens: 2 },
  stopReason: "stop" as const,
});

/** A file whose windowed open leaves `early` and `reply` outside the window. */
async function compacted(
  dir: string,
  name = "c.jsonl",
): Promise<{ path: string; early: string; reply: string }> {
  let n = 0;
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir: dir,
    path: join(dir, name),
    now: () => new Date(T + 1000 * n++),
  });
  const early = await s.appendMessage({ role: "user", content: "early" });
  const reply = await s.appendMessage(answer("reply"));
  const kept = await s.appendMessage({ role: "user", content: "kept" });
  await s.appendCompaction({
    summary: "S",
    firstKeptEntryId: kept.id,
    tokensBefore: 1,
  });
  await s.appendMessage({ role: "user", content: "late" });
  await s.ensureOnDisk();
  await s.close();
  return { path: s.path!, early: early.id, reply: reply.id };
}

Deno.test("Session.append() refuses a parentId that names no entry, writing nothing", async (t) => {
  await using dir = await tempDir();
  const { path } = await compacted(dir.path);
  const before = await Deno.readFile(path);
  await using s = await Session.open(path);
  const [entries, leaf] = [s.entries.length, s.leafId];
  const message = `Cannot append to ${
    JSON.stringify(path)
  }: no entry has the id "deadbeef"`;
  await t.step("append", async () => {
    await assert.rejects(
      s.append({ type: "custom", customType: "x", data: 1 }, {
        parentId: "deadbeef",
      }),
      (err) => err instanceof RangeError && err.message === message,
    );
  });
  await t.step("appendBatch", async () => {
    await assert.rejects(
      s.appendBatch([{
        type: "message",
        message: { role: "user", content: "a" },
      }], {
        parentId: "deadbeef",
      }),
      (err) => err instanceof RangeError && err.message === message,
    );
  });
  await t.step("appendBranchSummary", async () => {
    await assert.rejects(s.appendBranchSummary("deadbeef", "x"), RangeError);
  });
  await t.step("a parentId that is not a string", async () => {
    await assert.rejects(
      s.appendBatch([{ type: "reset_boundary" }], {
        parentId: 7 as unknown as string,
      }),
      TypeError,
    );
  });
  assert.deepEqual(await Deno.readFile(path), before);
  assert.deepEqual([s.entries.length, s.leafId], [entries, leaf]);
  // null (a new root) is a parent, and so is every entry of the file.
  await s.appendBatch([{ type: "reset_boundary" }], { parentId: null });
});

Deno.test("Session.append() in memory refuses a parentId that names no entry", async () => {
  await using s = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
  const first = await s.appendMessage({ role: "user", content: "one" });
  await assert.rejects(
    s.appendBranchSummary("0000beef", "x"),
    /^RangeError: Cannot append to ".*": no entry has the id "0000beef"$/,
  );
  const summary = await s.appendBranchSummary(first.id, "back to one");
  assert.equal(summary.parentId, first.id);
});

Deno.test("Session.appendBranchSummary() under an entry outside the window: the context is a fresh open's", async (t) => {
  await using dir = await tempDir();
  const { path, reply } = await compacted(dir.path);
  await t.step("appendBranchSummary", async () => {
    await using s = await Session.open(path);
    assert.equal(s.getEntry(reply), undefined, "outside the window");
    const summary = await s.appendBranchSummary(reply, "Tried the other way.");
    assert.equal(summary.parentId, reply);
    assert.equal(s.leafId, summary.id);
    await using fresh = await Session.open(path);
    assert.deepEqual(s.buildContext(), fresh.buildContext());
    assert.deepEqual(
      s.buildContext().messages.map((m) => m.role),
      ["user", "assistant", "branchSummary"],
    );
  });
  await t.step("appendBatch with a parentId", async () => {
    const { path, early } = await compacted(dir.path, "d.jsonl");
    await using s = await Session.open(path);
    assert.equal(s.getEntry(early), undefined, "outside the window");
    await s.appendBatch([
      { type: "message", message: { role: "user", content: "again" } },
      { type: "message", message: answer("again, answered") },
    ], { parentId: early });
    await using fresh = await Session.open(path);
    assert.deepEqual(s.buildContext(), fresh.buildContext());
    assert.equal(s.buildContext().messages.length, 3);
  });
});

Deno.test("Session.append() never accepts as a parent the id of an entry a failed append took back", async () => {
  await using dir = await tempDir();
  const { path } = await compacted(dir.path);
  await using s = await Session.open(path, { lockTimeoutMs: 30 });
  const lock = join(dir.path, ".c.jsonl.lock");
  await Deno.writeTextFile(lock, `1:${Date.now()}\n`); // pid 1: alive
  const real = crypto.getRandomValues;
  crypto.getRandomValues = (<T extends ArrayBufferView | null>(a: T): T => {
    if (a instanceof Uint8Array && a.length === 4) {
      a.set([0x0b, 0xad, 0xc0, 0xde]);
      return a;
    }
    return real.call(crypto, a as Uint8Array) as unknown as T;
  }) as typeof crypto.getRandomValues;
  try {
    await assert.rejects(
      s.appendMessage({ role: "user", content: "lost" }),
      Deno.errors.TimedOut,
    );
  } finally {
    crypto.getRandomValues = real;
    await Deno.remove(lock);
  }
  await assert.rejects(
    s.appendBranchSummary("0badc0de", "x"),
    /no entry has the id "0badc0de"/,
  );
});

Deno.test("Session.create({ path }) on an existing file: the first write says it exists and leaves it", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "taken.jsonl");
  await Deno.writeTextFile(path, "not ours\n");
  await using s = await Session.create({
    cwd: "/app",
    dataDir: dir.path,
    path,
  });
  await s.appendMessage({ role: "user", content: "hi" });
  await assert.rejects(s.ensureOnDisk(), (err) => {
    assert.ok(err instanceof Deno.errors.AlreadyExists);
    assert.equal(
      err.message,
      `Cannot create ${JSON.stringify(path)}: it already exists`,
    );
    return true;
  });
  assert.equal(await Deno.readTextFile(path), "not ours\n");
  assert.equal(s.onDisk, false);
});

Deno.test("Session append after a windowed open that saw every line takes the file's ids from that read: no second scan", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "omp-style.jsonl");
  // No settings checkpoints (as omp writes): the open walks to the start.
  await generateFile(path, {
    size: 2 * 1024 * 1024,
    checkpoints: false,
    lastCompactionBeforeEnd: 64 * 1024,
    seed: 5,
  });
  const lines = (await Deno.readTextFile(path)).split("\n");
  const first = JSON.parse(lines[2]!).id as string; // long before the window
  const size = (await Deno.stat(path)).size;
  let read = 0;
  const counting: Fs = {
    ...realFs,
    open: async (p, options) => {
      const file = await realFs.open(p, options);
      return {
        ...file,
        read: async (buffer: Uint8Array, position: number) => {
          const n = await file.read(buffer, position);
          read += n;
          return n;
        },
      };
    },
  };
  const restore = setFs(counting);
  try {
    await using session = await Session.open(path);
    // Every byte read (walked back to the start), yet only the window kept.
    const stats = session.windowStats();
    assert.equal(stats.windowed, false);
    assert.equal(stats.bytesRead, size);
    assert.ok(stats.retained < lines.length / 2);
    // What reading the window again costs (the append does, as its parent
    // moves the leaf outside the window): a scan of the ids would add the
    // whole file on top.
    read = 0;
    await (await Session.open(path)).close();
    const reload = read;
    read = 0;
    // The parent is outside the window: only the file can say it exists.
    await session.append({ type: "custom", customType: "probe", data: {} }, {
      parentId: first,
    });
    assert.ok(
      read < reload + size / 2,
      `read ${read} of ${size} bytes (a reload reads ${reload})`,
    );
  } finally {
    restore();
  }
  const reopened = await Session.open(path, { window: false });
  assert.equal(reopened.entries.at(-1)!.parentId, first);
});
