/**
 * Reads ahead (`readAheadAt` in `fs/_read.ts`): a read started before the
 * caller's work is taken whole by the read that asks for it, other reads
 * wait for it, a failed one fails the read that takes it; a pass whose
 * read ahead fails reports the file. (A usage pass reading ahead:
 * `usage_ranges_test.ts`.)
 */

import { equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import { readAheadAt } from "../../src/fs/_read.ts";
import { type FsHandle, realFs } from "../../src/fs/_seam.ts";
import { passPath } from "../../src/store/usage/_file_pass.ts";
import { usageFinder } from "../../src/store/usage/_finder.ts";
import { countingReads } from "../_fs_seam.ts";
import { sessionBytes, tempDir } from "../_session_files.ts";

/** A file of `n` bytes, byte i being `i % 251`. */
async function numbered(dir: string, n: number): Promise<string> {
  const path = join(dir, "f.bin");
  await Deno.writeFile(path, Uint8Array.from({ length: n }, (_, i) => i % 251));
  return path;
}

/** {@linkcode numbered}'s file opened, its asynchronous reads counted, and a reader ahead over it. */
async function openNumbered(dir: string, n: number) {
  const count = { reads: 0 };
  const path = await numbered(dir, n);
  const file = await countingReads(count).openHandle(path, { read: true });
  return {
    count,
    source: readAheadAt(file, n),
    [Symbol.dispose]: () => file.close(),
  };
}

function isNumbered(p: Uint8Array, position: number): boolean {
  return p.every((b, i) => b === (position + i) % 251);
}

Deno.test("readAheadAt(): a read ahead starts at once, and the read of the same bytes takes it", async () => {
  await using dir = await tempDir();
  using opened = await openNumbered(dir.path, 50_000);
  const { count, source } = opened;
  const p = new Uint8Array(10_000);
  for (const position of [0, 10_000, 31_000]) { // where the cursor is, then not
    const before = count.reads;
    source.readAhead(p, position);
    // Before any microtask: a read that starts later would start only
    // once the caller's work is done, and hide none of it.
    equal(count.reads, before + 1, "the asynchronous read is under way");
    equal(await source.readAt(p, position), 10_000);
    equal(isNumbered(p, position), true);
    equal(count.reads, before + 1, "taken, not read again");
  }
  source.readAhead(p.subarray(0, 5_000), 48_000);
  equal(
    await source.readAt(p.subarray(0, 5_000), 48_000),
    2_000,
    "short at the end",
  );
  equal(isNumbered(p.subarray(0, 2_000), 48_000), true);
  await source.settle();
});

Deno.test("readAheadAt(): another read waits for the read ahead, which can still be taken; one not taken is dropped by the next", async () => {
  await using dir = await tempDir();
  using opened = await openNumbered(dir.path, 50_000);
  const { count, source } = opened;
  const ahead = new Uint8Array(8_000);
  const other = new Uint8Array(3_000);
  source.readAhead(ahead, 20_000);
  equal(await source.readAt(other, 1_000), 3_000); // moves the cursor
  equal(isNumbered(other, 1_000), true);
  equal(await source.readAt(ahead, 20_000), 8_000);
  equal(isNumbered(ahead, 20_000), true);
  equal(count.reads, 1, "the other read was synchronous, the read ahead taken");
  // Not taken: the next read ahead goes after it, and is right.
  source.readAhead(ahead, 0);
  source.readAhead(ahead, 40_000);
  equal(await source.readAt(ahead, 40_000), 8_000);
  equal(isNumbered(ahead, 40_000), true);
  // A read of the same place but other bytes does not take it.
  source.readAhead(ahead, 5_000);
  equal(await source.readAt(ahead.subarray(0, 100), 5_000), 100);
  equal(isNumbered(ahead.subarray(0, 100), 5_000), true);
  await source.settle();
});

Deno.test("readAheadAt(): a failed read ahead fails the read that takes it; one not taken fails nothing", async () => {
  await using dir = await tempDir();
  const path = await numbered(dir.path, 1_000);
  using real = await realFs.openHandle(path, { read: true });
  let fail = true;
  const file = new Proxy(real, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === "read" && fail) {
        return () => Promise.reject(new Error("disk gone"));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as FsHandle;
  const source = readAheadAt(file, 1_000);
  const p = new Uint8Array(100);
  source.readAhead(p, 0);
  await rejects(source.readAt(p, 0), /disk gone/);
  source.readAhead(p, 100); // fails, never taken
  equal(await source.readAt(new Uint8Array(10), 500), 10, "a read after it");
  await source.settle();
  fail = false;
  source.readAhead(p, 200);
  equal(await source.readAt(p, 200), 100);
  equal(isNumbered(p, 200), true);
  await source.settle();
});

Deno.test("a usage pass whose read ahead fails reports the file it could not read", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  const call = (i: number) =>
    JSON.stringify({
      type: "message",
      id: (i + 1).toString(16).padStart(8, "0"),
      parentId: null,
      timestamp: "2026-03-01T10:00:00.000Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "w".repeat(500) }],
        api: "a",
        provider: "p",
        model: "m",
        usage: { input: i, output: 1, cost: { total: 0.001 } },
        stopReason: "stop",
        timestamp: 1000 + i,
      },
    });
  const lines = Array.from({ length: 200 }, (_, i) => call(i));
  await Deno.writeFile(path, sessionBytes(lines));
  const count = { reads: 0 };
  let calls = 0;
  const why = await passPath(
    countingReads(count, 3),
    path,
    usageFinder(4096),
    new Uint8Array(4096),
    { head: () => {}, request: () => calls++, progress: () => {} },
  );
  equal(why, "cannot read it: the disk went away");
  equal(count.reads, 3, "read ahead twice, the third failed");
  equal(calls > 0 && calls < 200, true, `calls before it: ${calls}`);
});
