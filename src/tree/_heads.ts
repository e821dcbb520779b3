/**
 * The lines of a file, first to last, each with its first bytes at hand
 * and nothing more: sequential reads into one reused buffer, line ends
 * found with a byte search, a long line's later bytes passed over unkept.
 *
 * @module
 */

import type { Reader } from "../fs/_read.ts";

/**
 * Bytes of each line's start at hand: enough for an entry's envelope and a
 * preview of its text (a message's role and first blocks), little enough
 * that a 200 KB tool output costs no more than a 2 KB one.
 */
export const HEAD_BYTES = 8 << 10;
/** Bytes per read. */
const _READ_BYTES = 1 << 20;
const _LF = 0x0a;
const _CR = 0x0d;

/** One line, as {@linkcode scanHeads} hands it over. */
export interface LineHead {
  /** The buffer the head is in (valid during the call only). */
  bytes: Uint8Array;
  /** The head: `bytes[start, end)`, the whole line when it is short. */
  start: number;
  end: number;
  /** The line's offset in the file. */
  offset: number;
  /** Its size, terminator included. */
  size: number;
  /** Whether the head is the whole line (its terminator excluded). */
  whole: boolean;
  /** Whether it ends in "\n". */
  terminated: boolean;
}

/**
 * Hand each line of `reader` (from its current position, which is file
 * offset `offset`) to `visit`, first to last. A `"\r\n"` line end is left
 * out of a whole line's head.
 *
 * @param reader The file, positioned at `offset`.
 * @param offset Where the reader is.
 * @param visit Called with each line; the object is reused.
 * @returns The bytes read.
 */
export async function scanHeads(
  reader: Reader,
  offset: number,
  visit: (line: LineHead) => void,
): Promise<number> {
  const buffer = new Uint8Array(_READ_BUFFER);
  const spare = new Uint8Array(HEAD_BYTES);
  const line: LineHead = {
    bytes: buffer,
    start: 0,
    end: 0,
    offset: 0,
    size: 0,
    whole: true,
    terminated: true,
  };
  let base = offset; // the file offset of buffer[0]
  let length = 0; // bytes in the buffer
  let at = 0; // the current line's start in the buffer
  let read = 0;
  let eof = false;
  const fill = async (): Promise<void> => {
    // Keep the current line's start, read after it.
    if (at > 0) {
      buffer.copyWithin(0, at, length);
      base += at;
      length -= at;
      at = 0;
    }
    const n = await reader.read(buffer.subarray(length));
    if (n === null || n === 0) eof = true;
    else {
      length += n;
      read += n;
    }
  };
  for (;;) {
    const nl = buffer.subarray(0, length).indexOf(_LF, at);
    if (nl >= 0) {
      const headEnd = Math.min(nl, at + HEAD_BYTES);
      _set(line, buffer, at, headEnd, base + at, nl + 1 - at, nl === headEnd);
      if (line.whole && headEnd > at && buffer[headEnd - 1] === _CR) {
        line.end--;
      }
      visit(line);
      at = nl + 1;
      continue;
    }
    if (eof) {
      if (at < length) {
        _set(line, buffer, at, length, base + at, length - at, true);
        line.terminated = false;
        visit(line);
      }
      return read;
    }
    if (length - at < buffer.length) {
      await fill(); // the line's start moves to the front, more bytes after it
      continue;
    }
    // A line longer than the buffer: keep its head, pass over the rest.
    spare.set(buffer.subarray(at, at + HEAD_BYTES));
    const start = base + at;
    let size = length - at;
    let terminated = false;
    for (;;) {
      at = length;
      await fill();
      if (eof) break;
      const end = buffer.subarray(0, length).indexOf(_LF);
      if (end >= 0) {
        size += end + 1;
        at = end + 1;
        terminated = true;
        break;
      }
      size += length;
    }
    _set(line, spare, 0, HEAD_BYTES, start, size, false);
    line.terminated = terminated;
    visit(line);
    if (!terminated) return read;
  }
}

const _READ_BUFFER = _READ_BYTES + HEAD_BYTES;

function _set(
  line: LineHead,
  bytes: Uint8Array,
  start: number,
  end: number,
  offset: number,
  size: number,
  whole: boolean,
): void {
  line.bytes = bytes;
  line.start = start;
  line.end = end;
  line.offset = offset;
  line.size = size;
  line.whole = whole;
  line.terminated = true;
}
