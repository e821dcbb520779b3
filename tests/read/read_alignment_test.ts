/**
 * Large reads land where the kernel's copy is fast (`read/_read_buffer.ts`):
 * for every read of the backward and the forward line readers (the
 * forward one's first aside), the destination's offset in its memory minus
 * the file position is, modulo a page, the read buffer's own offset:
 * whatever the file's size or where the reading starts.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { FileHandle, FileInfo } from "../../src/_fs.ts";
import { BackwardLines } from "../../src/read/_backward_lines.ts";
import { readLines } from "../../src/read/lines.ts";
import { PAGE_BYTES, readBuffer } from "../../src/read/_read_buffer.ts";

/** The distance every read must keep: the read buffer's own offset, the file position on a page. */
const WANT = readBuffer(1).byteOffset % PAGE_BYTES;

/** Lines of 1–3000 bytes, `total` bytes in all. */
function lines(total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (let i = 1; at < total; i++) {
    const n = Math.min(total - at, 1 + ((i * 7919) % 3000));
    out.fill(0x61, at, at + n - 1);
    out[at + n - 1] = 10;
    at += n;
  }
  return out;
}

/** A handle over `data` that records, for each read, `(byteOffset - position) mod page`. */
function recording(data: Uint8Array, seen: number[]): FileHandle {
  const info: FileInfo = {
    kind: "file",
    size: data.length,
    mtimeMs: 0,
    birthtimeMs: null,
    ino: 1,
    dev: 1,
    mode: 0o600,
  };
  const no = () => Promise.reject(new Error("read-only"));
  return {
    read(p, position) {
      const mod = (p.byteOffset - position) % PAGE_BYTES;
      seen.push((mod + PAGE_BYTES) % PAGE_BYTES);
      const n = Math.max(0, Math.min(p.length, data.length - position));
      p.set(data.subarray(position, position + n));
      return Promise.resolve(n);
    },
    stat: () => Promise.resolve(info),
    write: no,
    truncate: no,
    syncData: no,
    tryLock: no,
    unlock: no,
    close: () => Promise.resolve(),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

Deno.test("the backward line reader's block reads keep one distance to the page, for files of any size", async () => {
  for (const size of [3_000_001, 3_000_005, 2_621_440 + 11, 4_200_000]) {
    const data = lines(size);
    const seen: number[] = [];
    const reader = new BackwardLines(recording(data, seen), {
      size,
      blockBytes: 256 << 10,
      readAhead: true,
    });
    let n = 0;
    while (await reader.prev() !== undefined) n++;
    await reader.settle();
    assert.ok(
      n > 1000 && seen.length > 10,
      `${size}: ${n} lines, ${seen.length} reads`,
    );
    // The lowest block starts at the floor (0): aligned like the others.
    assert.deepEqual([...new Set(seen)], [WANT], `${size}: ${seen}`);
  }
});

Deno.test("the forward line reader's reads keep one distance to the page after the first, wherever it starts", async () => {
  for (const start of [0, 1, 4095, 4097, 100_003]) {
    const data = lines(2_000_000);
    const seen: number[] = [];
    let n = 0;
    for await (
      const _ of readLines(recording(data, seen), {
        start,
        readBytes: 64 << 10,
      })
    ) n++;
    assert.ok(n > 100 && seen.length > 20, `${start}: ${n} lines`);
    assert.deepEqual(
      [...new Set(seen.slice(1))],
      [WANT],
      `${start}: ${seen}`,
    );
  }
});
