/**
 * Reading files through the seam: whole buffers, and positional reads.
 *
 * @module
 */

import type { FsHandle } from "./_seam.ts";

/** Sequential reads, as `Deno.FsFile` offers: `null` at the end. */
export interface Reader {
  /** Read up to `p.length` bytes into `p`; the count, or `null` at the end. */
  read(p: Uint8Array): Promise<number | null>;
}

/** Positional reads over a source of known size. */
export interface ReaderAt {
  /** The source's size in bytes. */
  size: number;
  /** Read up to `p.length` bytes at `position` into `p`; the count, 0 at the end. */
  readAt(p: Uint8Array, position: number): Promise<number>;
}

/**
 * Read into `buffer` until it is full or the file ends.
 *
 * @param file An open file.
 * @param buffer Where the bytes go.
 * @returns The bytes read, fewer than `buffer.length` only at the end.
 */
export async function readFull(
  file: Pick<FsHandle, "read">,
  buffer: Uint8Array,
): Promise<number> {
  let n = 0;
  while (n < buffer.length) {
    const got = await file.read(buffer.subarray(n));
    if (got === null || got === 0) break;
    n += got;
  }
  return n;
}

/**
 * Positional reads over an open file, for a backward read.
 * Each read seeks then reads, so calls must not overlap (they do not in
 * `readLinesBackward`) and the file's cursor moves. The file is not closed.
 *
 * @param file An open file.
 * @param size The bytes to expose, usually `(await file.stat()).size`.
 * @returns A {@linkcode ReaderAt} over the file.
 *
 * @example Reading the first bytes of a file
 * ```ts
 * import { fileReaderAt } from "./_read.ts";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello\n");
 * using file = await Deno.open(path);
 * const source = fileReaderAt(file, 6);
 * const p = new Uint8Array(4);
 * assert.equal(await source.readAt(p, 1), 4);
 * assert.equal(new TextDecoder().decode(p), "ello");
 * await Deno.remove(path);
 * ```
 */
export function fileReaderAt(file: FsHandle, size: number): ReaderAt {
  return {
    size,
    async readAt(p: Uint8Array, position: number): Promise<number> {
      // Synchronous where the file offers it: a read from the page cache
      // takes less time than the two asynchronous round trips it would cost
      // (~40 µs each).
      if (file.seekSync !== undefined && file.readSync !== undefined) {
        file.seekSync(position, Deno.SeekMode.Start);
        return file.readSync(p) ?? 0;
      }
      await file.seek(position, Deno.SeekMode.Start);
      return await file.read(p) ?? 0;
    },
  };
}
