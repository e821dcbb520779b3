/**
 * Reads ahead (`readAheadAt` in `fs/_read.ts`): a read started before the
 * caller's work is taken whole by the read that asks for it, other reads
 * wait for it, a failed one fails the read that takes it; a pass whose
 * read ahead fails reports the file. (A scan reading ahead:
 * `search_scan_test.ts`.)
 */

import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import { basename, join } from "node:path";
import { searchSessions } from "../../mod.ts";
import { readAheadAt } from "../../src/fs/_read.ts";
import { type FsHandle, realFs } from "../../src/fs/_seam.ts";
import { READ_BYTES } from "../../src/read/_kernel.ts";
import { countingReads, withFs } from "../_fs_seam.ts";
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

Deno.test("a search scan whose read ahead fails reports the file and searches the others", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  const line = (i: number, text: string) =>
    JSON.stringify({
      type: "message",
      id: (i + 1).toString(16).padStart(8, "0"),
      parentId: i === 0 ? null : i.toString(16).padStart(8, "0"),
      timestamp: "2026-10-01T09:00:00.000Z",
      message: { role: "user", content: text },
    });
  const filler = "lorem ipsum ".repeat(10_000);
  const big = Array.from(
    { length: 3 * READ_BYTES / filler.length + 20 },
    (_, i) => line(i, i % 100 === 7 ? `${filler} findme` : filler),
  );
  await Deno.writeFile(join(folder, "big.jsonl"), sessionBytes(big));
  await Deno.writeFile(
    join(folder, "small.jsonl"),
    sessionBytes([line(0, "findme here")]),
  );
  const count = { reads: 0 };
  const skipped: string[] = [];
  const r = await withFs(
    countingReads(count, 2),
    () =>
      searchSessions(dir.path, "findme", {
        index: false,
        onSkip: (path, why) => skipped.push(`${basename(path)}: ${why}`),
      }),
  );
  equal(count.reads, 2, "the second read ahead failed");
  deepStrictEqual(skipped, [
    "big.jsonl: cannot be searched: the disk went away",
  ]);
  deepStrictEqual(r.hits.map((h) => basename(h.path)), ["small.jsonl"]);
});
