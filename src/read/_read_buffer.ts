/**
 * Buffers and positions for large reads from files. The kernel copies each
 * read out of the page cache; on some CPUs (AMD Zen's fast `rep movsb`,
 * which Linux copies with) that copy runs several times slower when the
 * destination lies a few bytes after the source within a 4 KiB page
 * (`(dst - src) mod 4096` small but not 0). Which it is depends on where
 * the file position falls in its page and where the allocator put the
 * buffer, so a file of an unlucky size read into a fresh buffer was read
 * slowly at every block. Large reads therefore start at a position that is
 * a multiple of 4 KiB ({@linkcode alignDown}), into a buffer that starts
 * one cache line into its memory ({@linkcode readBuffer}): the distance is
 * then the allocator's own offset (0 or 16 for a large block) plus 64,
 * whatever the file. `bench/read_alignment.ts` measures it.
 *
 * @module
 */

/** The page size the alignment is for. */
export const PAGE_BYTES = 4096;

/** Bytes the buffer starts into its memory: one cache line. */
const _SHIFT = 64;

/**
 * A zeroed buffer of `length` bytes for reads into it.
 *
 * @example
 * ```ts
 * import { readBuffer } from "./_read_buffer.ts";
 * import { equal } from "node:assert/strict";
 * const b = readBuffer(1 << 20);
 * equal(b.length, 1 << 20);
 * equal(b.byteOffset, 64);
 * ```
 *
 * @param length Its size.
 * @returns The buffer (a view: its `byteOffset` is not 0).
 */
export function readBuffer(length: number): Uint8Array {
  return new Uint8Array(length + _SHIFT).subarray(_SHIFT);
}

/**
 * The multiple of {@linkcode PAGE_BYTES} at or below `position`, but not
 * below `floor`.
 *
 * @example
 * ```ts
 * import { alignDown } from "./_read_buffer.ts";
 * import { equal } from "node:assert/strict";
 * equal(alignDown(10_000, 0), 8192);
 * equal(alignDown(10_000, 9000), 9000);
 * ```
 *
 * @param position A file position.
 * @param floor The lowest position allowed.
 * @returns The aligned position.
 */
export function alignDown(position: number, floor: number): number {
  return Math.max(floor, position - (position % PAGE_BYTES));
}
