/**
 * Reading a file's lines from the last to the first, with positional reads
 * going backwards in chunks.
 *
 * @module
 */

import {
  assertCount,
  CR,
  EMPTY,
  LF,
  type Line,
  makeLine,
  maxLineBytes,
  READ_BUFFER_BYTES,
  type ReaderAt,
  type ReadLinesBackwardOptions,
} from "./_line.ts";
import { isNulFill } from "./_decode.ts";
import { Pieces } from "./_pieces.ts";

/**
 * Read the lines of a source from the last to the first, with positional
 * reads going backwards in chunks, so finding the latest lines costs what
 * they weigh, not the file's size. Lines come as from
 * {@linkcode readLines}, except that `index` is -1 (unknown); a final line
 * without "\n" comes first, with `terminated: false`.
 *
 * @param source The bytes, by position; see {@linkcode fileReaderAt}.
 * @param options Limits and the read size.
 * @returns The lines, last first.
 * @throws {RangeError} If an option or `source.size` is out of range, or a
 * read claims more bytes than it was given room for.
 * @throws {Deno.errors.UnexpectedEof} If the source ends before `source.size`.
 *
 * @example Taking the last line of a file
 * ```ts
 * import { fileReaderAt } from "../fs/_read.ts";
 * import { readLinesBackward } from "./_lines_backward.ts";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile({ suffix: ".jsonl" });
 * await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n');
 * using file = await Deno.open(path);
 * const source = fileReaderAt(file, (await file.stat()).size);
 * for await (const line of readLinesBackward(source)) {
 *   assert.equal(new TextDecoder().decode(line.bytes), '{"b":2}');
 *   assert.equal(line.offset, 8);
 *   break;
 * }
 * await Deno.remove(path);
 * ```
 */
export function readLinesBackward(
  source: ReaderAt,
  options: ReadLinesBackwardOptions = {},
): AsyncGenerator<Line> {
  const max = maxLineBytes(options.maxLineBytes);
  const chunkBytes = options.chunkBytes ?? READ_BUFFER_BYTES;
  assertCount(chunkBytes, 1, "chunkBytes");
  assertCount(source.size, 0, "source.size");
  return _splitBackward(source, max, chunkBytes);
}

/**
 * The backward splitter. The current line ends at `lineEnd` (terminator
 * included) and its bytes before any "\n" at `contentEnd`; its pieces from
 * later chunks wait in `pieces` (copied: the buffer is reused) while the
 * line can still fit `max`. A run of NUL bytes at the line's end is counted,
 * not kept, so a NUL-filled tail of any size costs no memory.
 */
async function* _splitBackward(
  source: ReaderAt,
  max: number,
  chunkBytes: number,
): AsyncGenerator<Line> {
  const size = source.size;
  if (size === 0) return;
  const buffer = new Uint8Array(Math.min(chunkBytes, size));
  const line = new _BackwardLine(max);
  let lineEnd = size;
  let contentEnd = size;
  for (let at = size; at > 0;) {
    const n = Math.min(buffer.length, at);
    at -= n;
    const chunk = buffer.subarray(0, n);
    await _readFully(source, chunk, at, size);
    if (at + n === size && chunk[n - 1] === LF) contentEnd = size - 1;
    let hi = contentEnd - at; // the current line's bytes here end at hi
    // Guard hi > 0: lastIndexOf(10, -1) would search from the end.
    for (
      let nl = hi > 0 ? chunk.lastIndexOf(LF, hi - 1) : -1;
      nl !== -1;
      nl = hi > 0 ? chunk.lastIndexOf(LF, hi - 1) : -1
    ) {
      const head = chunk.subarray(nl + 1, hi);
      yield line.take(head, at + nl + 1, contentEnd, lineEnd);
      lineEnd = at + nl + 1;
      contentEnd = at + nl;
      hi = nl;
    }
    if (hi > 0) line.add(chunk.subarray(0, hi), contentEnd - at);
  }
  yield line.take(EMPTY, 0, contentEnd, lineEnd);
}

/** The pieces of the current line, right to left, and its run of NULs at the end. */
class _BackwardLine {
  readonly #max: number;
  readonly #pieces = new Pieces(true);
  /** NUL bytes at the line's end, counted, not kept. */
  #zeros = 0;
  /** Whether every byte added so far is NUL. */
  #allZero = true;
  /** Whether pieces were dropped: the line is over `max`. */
  #dropped = false;
  /** The leftmost byte added so far (pieces come right to left). */
  #leftmost: number | undefined;

  constructor(max: number) {
    this.#max = max;
  }

  /** Add the line's bytes in a chunk (left of the ones added before). */
  add(piece: Uint8Array, lengthSoFar: number): void {
    this.#leftmost = piece[0];
    if (this.#allZero && isNulFill(piece)) {
      this.#zeros += piece.length;
      return;
    }
    this.#allZero = false;
    if (this.#dropped || lengthSoFar > this.#max + 1) {
      this.#pieces.clear();
      this.#dropped = true;
    } else this.#pieces.add(piece, true);
  }

  /** The line [start, lineEnd) from its leftmost piece `head`; resets. */
  take(
    head: Uint8Array,
    start: number,
    contentEnd: number,
    lineEnd: number,
  ): Line {
    const raw = contentEnd - start;
    const terminated = lineEnd > contentEnd;
    const zeros = this.#zeros;
    const first = head.length > 0 ? head[0] : this.#leftmost;
    const last = zeros > 0
      ? 0
      : this.#pieces.lastByte() ?? head[head.length - 1];
    const length = terminated && last === CR ? raw - 1 : raw;
    let out: Line;
    if (first === 0) {
      out = makeLine(null, start, -1, lineEnd - start, terminated, true);
    } else if (this.#dropped || length > this.#max) {
      out = makeLine(null, start, -1, lineEnd - start, terminated);
    } else {
      const kept = this.#pieces.join(head, length - zeros);
      const bytes = zeros === 0 ? kept : new Uint8Array(length);
      if (zeros > 0) bytes.set(kept);
      out = makeLine(bytes, start, -1, lineEnd - start, terminated);
    }
    this.#pieces.clear();
    this.#zeros = 0;
    this.#allZero = true;
    this.#dropped = false;
    this.#leftmost = undefined;
    return out;
  }
}

/** Fill `chunk` from `position`, looping on short reads. */
async function _readFully(
  source: ReaderAt,
  chunk: Uint8Array,
  position: number,
  size: number,
): Promise<void> {
  for (let done = 0; done < chunk.length;) {
    const want = chunk.length - done;
    const n = await source.readAt(chunk.subarray(done), position + done);
    if (n > want) {
      throw new RangeError(
        `Cannot read lines backward: a read of ${want} bytes returned ${n}`,
      );
    }
    if (!(n > 0)) {
      throw new Deno.errors.UnexpectedEof(
        `Cannot read lines backward: the source ended at byte ${
          position + done
        }, before its size ${size}`,
      );
    }
    done += n;
  }
}
