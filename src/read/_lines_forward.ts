/**
 * Splitting a byte stream or a reader into lines, first to last, without
 * decoding any text.
 *
 * @module
 */

import {
  CR,
  EMPTY,
  LF,
  type Line,
  makeLine,
  maxLineBytes,
  READ_BUFFER_BYTES,
  type Reader,
  type ReadLinesOptions,
} from "./_line.ts";
import { Pieces } from "./_pieces.ts";

/**
 * Split a byte stream into lines. Chunks may split lines anywhere (inside a
 * UTF-8 character, between "\r" and "\n"); blank lines come with empty
 * `bytes`; a final line without "\n" comes with `terminated: false`; a line
 * spanning many chunks is concatenated once, at its end. Stopping the loop
 * early cancels the stream.
 *
 * @param stream The bytes. A chunk of 64 KiB or more that a line spans is
 * kept, not copied, until the line ends: the producer must not reuse it.
 * @param options Limits.
 * @returns The lines, in order.
 * @throws {RangeError} If `maxLineBytes` is not a non-negative integer or Infinity.
 *
 * @example Splitting a stream
 * ```ts
 * import { readLines } from "./_lines_forward.ts";
 * import assert from "node:assert/strict";
 *
 * const stream = new Blob(['{"a":1}\r\n', '{"b":', "2}"]).stream();
 * const texts = [];
 * for await (const line of readLines(stream)) {
 *   texts.push(new TextDecoder().decode(line.bytes));
 * }
 * assert.deepEqual(texts, ['{"a":1}', '{"b":2}']);
 * ```
 */
export function readLines(
  stream: ReadableStream<Uint8Array>,
  options: ReadLinesOptions = {},
): AsyncGenerator<Line> {
  return _split(stream, _limits(options), false);
}

/**
 * Split the bytes of a reader into lines, as {@linkcode readLines} does, with
 * sequential reads into one reused 1 MiB buffer (about twice as fast as
 * `readLines(file.readable)`, which pays for a web stream). Short reads are
 * fine. The reader is not closed.
 *
 * @param reader A `Deno.FsFile`, or anything with the same `read`.
 * @param options Limits.
 * @returns The lines, in order.
 * @throws {RangeError} If `maxLineBytes` is not a non-negative integer or
 * Infinity, or a read claims more bytes than it was given room for.
 *
 * @example Reading the lines of a file
 * ```ts
 * import { readLinesFromReader } from "./_lines_forward.ts";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile({ suffix: ".jsonl" });
 * await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n');
 * using file = await Deno.open(path);
 * const offsets = [];
 * for await (const line of readLinesFromReader(file)) offsets.push(line.offset);
 * assert.deepEqual(offsets, [0, 8]);
 * await Deno.remove(path);
 * ```
 */
export function readLinesFromReader(
  reader: Reader,
  options: ReadLinesOptions = {},
): AsyncGenerator<Line> {
  return _split(
    _chunks(reader, options.chunkBytes ?? READ_BUFFER_BYTES),
    _limits(options),
    true,
  );
}

/**
 * The forward splitter. Pieces of the current line seen in earlier chunks
 * wait in `pieces` while the line can still fit `max`: one byte more than
 * `max` is kept, since a last "\r" may turn out to be part of "\r\n".
 */
async function* _split(
  chunks: AsyncIterable<Uint8Array>,
  limits: _Limits,
  copy: boolean,
): AsyncGenerator<Line> {
  let max = limits.head;
  const pieces = new Pieces(false);
  let pending = 0; // bytes of the current line in earlier chunks
  let nul = false; // the current line starts with NUL: its bytes are not kept
  let offset = 0;
  let index = 0;
  for await (const chunk of chunks) {
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      if (pending === 0) nul = nl > start && chunk[start] === 0;
      const raw = pending + nl - start;
      // When pieces were dropped the line is oversized whatever this byte is.
      const last = nl > start ? chunk[nl - 1] : pieces.lastByte();
      const length = last === CR ? raw - 1 : raw;
      const head = chunk.subarray(start, nl);
      const bytes = nul || length > max ? null : pieces.join(head, length);
      yield makeLine(bytes, offset, index, raw + 1, true, nul);
      offset += raw + 1;
      index++;
      if (index === 1) max = limits.rest;
      start = nl + 1;
      pieces.clear();
      pending = 0;
    }
    if (start < chunk.length) {
      if (pending === 0) nul = chunk[start] === 0;
      pending += chunk.length - start;
      if (nul || pending > max + 1) pieces.clear();
      else pieces.add(chunk.subarray(start), copy);
    }
  }
  if (pending > 0) {
    const bytes = nul || pending > max ? null : pieces.join(EMPTY, pending);
    yield makeLine(bytes, offset, index, pending, false, nul);
  }
}

/** Reads of `reader` into one reused buffer, as views of the bytes read. */
async function* _chunks(
  reader: Reader,
  chunkBytes: number,
): AsyncGenerator<Uint8Array> {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes <= 0) {
    throw new RangeError(
      `Cannot read lines: chunkBytes must be a positive integer, got ${chunkBytes}`,
    );
  }
  const buffer = new Uint8Array(chunkBytes);
  for (
    let n = await reader.read(buffer);
    n !== null;
    n = await reader.read(buffer)
  ) {
    if (!(n >= 0 && n <= buffer.length)) {
      throw new RangeError(
        `Cannot read lines: a read of ${buffer.length} bytes returned ${n}`,
      );
    }
    if (n > 0) yield buffer.subarray(0, n);
  }
}

interface _Limits {
  /** The limit of line 0. */
  head: number;
  /** The limit of the others. */
  rest: number;
}

function _limits(options: ReadLinesOptions): _Limits {
  const rest = maxLineBytes(options.maxLineBytes);
  const head = options.maxHeadLineBytes === undefined
    ? rest
    : Math.min(rest, maxLineBytes(options.maxHeadLineBytes));
  return { head, rest };
}
