/**
 * A line of a session file's bytes, and the sources lines are read from.
 *
 * A line ends at "\n". A "\r" directly before that "\n" belongs to the
 * terminator; a "\r" anywhere else (inside a line, or at the end of a final
 * line that has no "\n") stays in the line's bytes. So no byte is lost: each
 * line's `bytes` followed by its terminator (`size - bytes.length` bytes:
 * "\r\n", "\n" or nothing) rebuilds the input exactly.
 *
 * @module
 */

export type { Reader, ReaderAt } from "../fs/_read.ts";

/**
 * Bytes asked for per read by {@linkcode readLinesFromReader}, and the default
 * chunk of {@linkcode readLinesBackward}: a read loop into a reused 1 MiB
 * buffer runs at the disk-cache floor (~20–35 ms per 100 MB) while holding
 * little memory.
 */
export const READ_BUFFER_BYTES = 1 << 20;
export const LF = 0x0a;
export const CR = 0x0d;
export const EMPTY = new Uint8Array(0);

/**
 * The longest entry line read by default: 64 MiB. omp cuts any string over
 * 500,000 characters when it writes and keeps images as blobs, so real lines
 * are far shorter; a longer line is damage (or a file that is not a session)
 * and would cost its size several times over in memory to parse.
 */
export const DEFAULT_MAX_LINE_BYTES = 64 << 20;

/** One line of a byte stream. */
export interface Line {
  /**
   * The line's bytes without its "\n" and without the "\r" of a "\r\n". A
   * view: valid until the next line is requested, so copy it (`slice()`) to
   * keep it.
   */
  bytes: Uint8Array;
  /** Byte offset of the line's first byte in the stream. */
  offset: number;
  /**
   * 0-based line number (every "\n" counts, blank lines too), or -1 when
   * unknown: {@linkcode readLinesBackward} cannot know it.
   */
  index: number;
  /**
   * Bytes the line occupies in the stream, "\r\n" or "\n" included, so
   * `offset + size` is the next line's offset.
   */
  size: number;
  /** False for a final line that had no "\n" (the stream ended mid-line). */
  terminated: boolean;
  /**
   * True when the line was longer than `maxLineBytes`: its bytes were
   * skipped and `bytes` is empty. The readers here always set it.
   */
  oversized?: boolean;
  /**
   * True for a line of NUL bytes (what a crash leaves on filesystems that
   * preallocate): a line whose first byte (or, read backwards, whose last
   * byte) is NUL. Its bytes are skipped unread, in constant memory, and
   * `bytes` is empty.
   */
  nul?: boolean;
}

/** Options for {@linkcode readLines} and {@linkcode readLinesFromReader}. */
export interface ReadLinesOptions {
  /**
   * Lines longer than this many bytes (terminator excluded) are not
   * materialised: their bytes are skipped and the line comes with `bytes`
   * empty and `oversized: true`, so a caller that needs only small lines
   * holds at most about this much per line. A non-negative integer;
   * default `Infinity`.
   */
  maxLineBytes?: number;
  /**
   * The same limit for the first line (a session's title slot or, in a
   * slot-less file, its header: small, so a longer one is damage). Only the
   * first: whether line 2 is a header or an entry depends on what line 1
   * was, which the head reader settles (it bounds a header on line 2
   * itself). Default `maxLineBytes`.
   */
  maxHeadLineBytes?: number;
  /**
   * Bytes per read, a positive integer. Default 1 MiB; less for a small
   * range, so reading a few kilobytes does not allocate a megabyte.
   */
  chunkBytes?: number;
}

/** Options for {@linkcode readLinesBackward}. */
export type ReadLinesBackwardOptions = ReadLinesOptions;

/** A line from its bytes (null: skipped, over the limit or NUL) and position. */
export function makeLine(
  bytes: Uint8Array | null,
  offset: number,
  index: number,
  size: number,
  terminated: boolean,
  nul = false,
): Line {
  return {
    bytes: bytes ?? EMPTY,
    offset,
    index,
    size,
    terminated,
    oversized: bytes === null && !nul,
    nul,
  };
}

/** The `maxLineBytes` option checked: Infinity when unset. */
export function maxLineBytes(max: number | undefined): number {
  if (max === undefined || max === Infinity) return Infinity;
  assertCount(max, 0, "maxLineBytes", " or Infinity");
  return max;
}

/** Throw a RangeError unless `value` is a safe integer of at least `least`. */
export function assertCount(
  value: number,
  least: number,
  name: string,
  or = "",
): void {
  if (!Number.isSafeInteger(value) || value < least) {
    throw new RangeError(
      `Cannot read lines: ${name} must be an integer of at least ${least}${or}, got ${value}`,
    );
  }
}
