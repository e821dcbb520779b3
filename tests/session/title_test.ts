/**
 * `Session.setTitle()` happens whole or not at all: a file that opens
 * (CRLF lines, a byte order mark, no slot) can be renamed, and a rename that
 * fails (a full disk, a lock held elsewhere) leaves the file, the entries in
 * memory and the title as they were, so a retry adds one entry, not two.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Session } from "../../mod.ts";
import { type Fs, realFs } from "../../src/_fs.ts";
import { override, withFs } from "../_fs_seam.ts";
import { tempDir } from "../_session_files.ts";

const T = Date.parse("2026-10-01T09:00:00.000Z");
const OMP = new URL("../../.cache/omp/", import.meta.url).pathname;
const BUN = join(OMP, "node_modules", ".bin", "bun");
const HAS_OMP = await Deno.stat(BUN).then(() => true, () => false);

/** A session of two messages written here; returns its bytes. */
async function written(dir: string): Promise<Uint8Array> {
  let n = 0;
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir: dir,
    path: join(dir, "w.jsonl"),
    now: () => new Date(T + 1000 * n++),
  });
  await s.appendMessage({ role: "user", content: "Fix the CRLF bug ✓" });
  await s.appendMessage({ role: "user", content: "and the BOM one" });
  await s.ensureOnDisk();
  await s.close();
  const bytes = await Deno.readFile(s.path!);
  await Deno.remove(s.path!);
  return bytes;
}

const text = new TextDecoder();
const enc = new TextEncoder();
const crlf = (b: Uint8Array) =>
  enc.encode(text.decode(b).replaceAll("\n", "\r\n"));
const bom = (b: Uint8Array) => new Uint8Array([0xef, 0xbb, 0xbf, ...b]);
const slotless = (b: Uint8Array) => b.subarray(256);

/** What a rename must leave: the title on reopen, one title_change, the same messages. */
async function checkRenamed(
  path: string,
  title: string,
  messages: unknown,
): Promise<void> {
  await using again = await Session.open(path, { window: false });
  assert.equal(again.title, title);
  const changes = again.entries.filter((e) => e.type === "title_change");
  assert.equal(changes.length, 1, "one title_change entry");
  assert.deepEqual(again.buildContext().messages, messages);
  const lines = text.decode(await Deno.readFile(path)).split("\n");
  assert.equal(enc.encode(`${lines[0]}\n`).length, 256, "a 256-byte slot");
  assert.ok(!lines[0]!.startsWith("\uFEFF"));
}

Deno.test("Session.setTitle() renames a file that opens: CRLF lines, a byte order mark, no slot", async (t) => {
  await using dir = await tempDir();
  const base = await written(dir.path);
  for (
    const [name, make] of [
      ["CRLF lines (a 257-byte slot line)", crlf],
      ["a byte order mark before the slot", bom],
      ["a byte order mark and CRLF lines", (b: Uint8Array) => bom(crlf(b))],
      ["no slot", slotless],
    ] as const
  ) {
    await t.step(name, async () => {
      const path = join(dir.path, "s.jsonl");
      await Deno.writeFile(path, make(base));
      let messages: unknown;
      {
        await using s = await Session.open(path);
        messages = s.buildContext().messages;
        const entry = await s.setTitle("Renamed ✓");
        assert.equal(s.title, "Renamed ✓");
        assert.equal(s.leafId, entry.id);
        // The writer follows the rewritten file.
        await s.appendMessage({ role: "user", content: "after" });
      }
      await using again = await Session.open(path);
      assert.equal(again.title, "Renamed ✓");
      const after = again.buildContext().messages;
      assert.deepEqual(after.slice(0, -1), messages);
      await Deno.remove(path);
    });
  }
});

Deno.test("Session.setTitle() on a slot-less file when the disk is full changes nothing; the retry adds one entry", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  const before = slotless(await written(dir.path));
  await Deno.writeFile(path, before);
  const full = Object.assign(
    new Error("No space left on device (os error 28)"),
    { code: "ENOSPC" },
  );
  const fs: Fs = {
    ...realFs,
    open: async (p, options) => {
      const file = await realFs.open(p, options);
      if (!p.endsWith(".tmp")) return file;
      return override(file, { write: () => Promise.reject(full) });
    },
  };
  await using s = await Session.open(path);
  const [entries, leaf, messages] = [
    s.entries.length,
    s.leafId,
    s.buildContext().messages,
  ];
  await withFs(fs, async () => {
    await assert.rejects(s.setTitle("Renamed"), (err) => {
      assert.ok(err instanceof Error);
      assert.equal(err.cause, full);
      assert.match(err.message, /^Cannot rename ".*s\.jsonl": No space left/);
      return true;
    });
  });
  assert.deepEqual(await Deno.readFile(path), before);
  assert.deepEqual([s.entries.length, s.leafId, s.title], [
    entries,
    leaf,
    undefined,
  ]);
  for await (const e of Deno.readDir(dir.path)) {
    assert.ok(!e.name.endsWith(".tmp"), "no temp file left");
  }
  await s.setTitle("Renamed");
  await checkRenamed(path, "Renamed", messages);
});

Deno.test("Session.setTitle() when another process holds the lock changes nothing; the retry adds one entry", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  const before = await written(dir.path);
  await Deno.writeFile(path, before);
  const lock = join(dir.path, ".s.jsonl.lock");
  await Deno.writeTextFile(lock, `1:${Date.now()}\n`); // pid 1: alive
  await using s = await Session.open(path, { lockTimeoutMs: 50 });
  const messages = s.buildContext().messages;
  const entries = s.entries.length;
  await assert.rejects(s.setTitle("Renamed"), Deno.errors.TimedOut);
  assert.deepEqual(await Deno.readFile(path), before);
  assert.deepEqual([s.entries.length, s.title], [entries, undefined]);
  await Deno.remove(lock);
  await s.setTitle("Renamed");
  await checkRenamed(path, "Renamed", messages);
});

Deno.test("Session.setTitle() takes one lock: a writer that takes the lock once the entry is written cannot split the rename", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  await Deno.writeFile(path, await written(dir.path));
  const lock = join(dir.path, ".s.jsonl.lock");
  // As our lock file goes, another process (pid 1: alive) takes the name.
  let released = 0;
  const fs: Fs = {
    ...realFs,
    remove: async (p) => {
      await realFs.remove(p);
      if (p === lock && released++ === 0) {
        await Deno.writeTextFile(lock, `1:${Date.now()}\n`);
      }
    },
  };
  await using s = await Session.open(path, { lockTimeoutMs: 50 });
  const messages = s.buildContext().messages;
  await withFs(fs, () => s.setTitle("Renamed"));
  assert.equal(s.title, "Renamed");
  assert.equal(released, 1, "one lock for the entry and the slot");
  await Deno.remove(lock);
  await checkRenamed(path, "Renamed", messages);
});

Deno.test({
  name:
    "Session.setTitle() on CRLF and byte-order-mark files: omp reads the renamed file with the new title",
  ignore: !HAS_OMP,
  fn: async () => {
    await using dir = await tempDir();
    const base = await written(dir.path);
    for (const make of [crlf, bom]) {
      const path = join(dir.path, "s.jsonl");
      await Deno.writeFile(path, make(base));
      {
        await using s = await Session.open(path);
        await s.setTitle("Renamed ✓");
      }
      const out = await new Deno.Command(BUN, {
        args: ["oracle.ts", "context", path],
        cwd: OMP,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const omp = JSON.parse(text.decode(out.stdout)) as {
        titleSlot?: { title: string };
        messages: unknown[];
      };
      assert.equal(omp.titleSlot?.title, "Renamed ✓");
      assert.equal(omp.messages.length, 2);
      await Deno.remove(path);
    }
  },
});
