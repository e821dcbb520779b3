/**
 * Byte-level line splitting for session files: forward over a stream or a
 * reader, backward over a file, without decoding any text.
 *
 * A line ends at "\n". A "\r" directly before that "\n" belongs to the
 * terminator; a "\r" anywhere else (inside a line, or at the end of a final
 * line that has no "\n") stays in the line's bytes. So no byte is lost: each
 * line's `bytes` followed by its terminator (`size - bytes.length` bytes:
 * "\r\n", "\n" or nothing) rebuilds the input exactly.
 *
 * @module
 */

/**
 * Bytes asked for per read by {@linkcode readLinesFromReader}, and the default
 * chunk of {@linkcode readLinesBackward}: a read loop into a reused 1 MiB
 * buffer runs at the disk-cache floor (~20–35 ms per 100 MB) while holding
 * little memory.
 */
const READ_BUFFER_BYTES = 1 << 20;
const LF = 0x0a;
const CR = 0x0d;
const EMPTY = new Uint8Array(0);

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
}

/** Options for {@linkcode readLinesBackward}. */
export interface ReadLinesBackwardOptions extends ReadLinesOptions {
  /** Bytes per positional read, a positive integer. Default 1 MiB. */
  chunkBytes?: number;
}

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
 * import { readLines } from "@xdev/session";
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
  return _split(stream, _maxLineBytes(options.maxLineBytes), false);
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
 * import { readLinesFromReader } from "@xdev/session";
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
  const max = _maxLineBytes(options.maxLineBytes);
  return _split(_chunks(reader), max, true);
}

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
 * import { fileReaderAt, readLinesBackward } from "@xdev/session";
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
  const max = _maxLineBytes(options.maxLineBytes);
  const chunkBytes = options.chunkBytes ?? READ_BUFFER_BYTES;
  _assertCount(chunkBytes, 1, "chunkBytes");
  _assertCount(source.size, 0, "source.size");
  return _splitBackward(source, max, chunkBytes);
}

/**
 * Positional reads over an open file, for {@linkcode readLinesBackward}.
 * Each read seeks then reads, so calls must not overlap (they do not in
 * `readLinesBackward`) and the file's cursor moves. The file is not closed.
 *
 * @param file An open file.
 * @param size The bytes to expose, usually `(await file.stat()).size`.
 * @returns A {@linkcode ReaderAt} over the file.
 *
 * @example Reading the first bytes of a file
 * ```ts
 * import { fileReaderAt } from "@xdev/session";
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
export function fileReaderAt(file: Deno.FsFile, size: number): ReaderAt {
  return {
    size,
    readAt(p: Uint8Array, position: number): Promise<number> {
      // Synchronous: a read from the page cache takes less time than the
      // two asynchronous round trips it would cost (~40 µs each).
      file.seekSync(position, Deno.SeekMode.Start);
      return Promise.resolve(file.readSync(p) ?? 0);
    },
  };
}

/**
 * Whether bytes are all 0x00, or empty: the NUL-filled tail that a crash
 * leaves on some filesystems, which is damage, not a line.
 *
 * @param bytes The bytes, usually a final line's.
 * @returns True when every byte is 0.
 *
 * @example Spotting a NUL-filled tail
 * ```ts
 * import { isNulFill } from "@xdev/session";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isNulFill(new Uint8Array(4096)), true);
 * assert.equal(isNulFill(new TextEncoder().encode('{"a":1}')), false);
 * ```
 */
export function isNulFill(bytes: Uint8Array): boolean {
  const end = bytes.length;
  // Bytes up to a 4-byte boundary, then whole 32-bit words, then the rest.
  let i = Math.min(end, (4 - (bytes.byteOffset & 3)) & 3);
  for (let j = 0; j < i; j++) if (bytes[j] !== 0) return false;
  const words = (end - i) >>> 2;
  if (words > 0) {
    const view = new Int32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let w = 0; w < words; w++) if (view[w] !== 0) return false;
    i += words * 4;
  }
  for (; i < end; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * The forward splitter. Pieces of the current line seen in earlier chunks
 * wait in `pieces` while the line can still fit `max`: one byte more than
 * `max` is kept, since a last "\r" may turn out to be part of "\r\n".
 */
async function* _split(
  chunks: AsyncIterable<Uint8Array>,
  max: number,
  copy: boolean,
): AsyncGenerator<Line> {
  const pieces = new _Pieces(false);
  let pending = 0; // bytes of the current line in earlier chunks
  let offset = 0;
  let index = 0;
  for await (const chunk of chunks) {
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      const raw = pending + nl - start;
      // When pieces were dropped the line is oversized whatever this byte is.
      const last = nl > start ? chunk[nl - 1] : pieces.lastByte();
      const length = last === CR ? raw - 1 : raw;
      const head = chunk.subarray(start, nl);
      const bytes = length > max ? null : pieces.join(head, length);
      yield _line(bytes, offset, index, raw + 1, true);
      offset += raw + 1;
      index++;
      start = nl + 1;
      pieces.clear();
      pending = 0;
    }
    if (start < chunk.length) {
      pending += chunk.length - start;
      if (pending > max + 1) pieces.clear();
      else pieces.add(chunk.subarray(start), copy);
    }
  }
  if (pending > 0) {
    const bytes = pending > max ? null : pieces.join(EMPTY, pending);
    yield _line(bytes, offset, index, pending, false);
  }
}

/**
 * The backward splitter. The current line ends at `lineEnd` (terminator
 * included) and its bytes before any "\n" at `contentEnd`; its pieces from
 * later chunks wait in `pieces` (copied: the buffer is reused) while the
 * line can still fit `max`.
 */
async function* _splitBackward(
  source: ReaderAt,
  max: number,
  chunkBytes: number,
): AsyncGenerator<Line> {
  const size = source.size;
  if (size === 0) return;
  const buffer = new Uint8Array(Math.min(chunkBytes, size));
  const pieces = new _Pieces(true);
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
      yield _backwardLine(pieces, head, at + nl + 1, contentEnd, lineEnd, max);
      pieces.clear();
      lineEnd = at + nl + 1;
      contentEnd = at + nl;
      hi = nl;
    }
    if (hi > 0) {
      if (contentEnd - at > max + 1) pieces.clear();
      else pieces.add(chunk.subarray(0, hi), true);
    }
  }
  yield _backwardLine(pieces, EMPTY, 0, contentEnd, lineEnd, max);
}

/** The line [start, lineEnd) from its leftmost piece and later `pieces`. */
function _backwardLine(
  pieces: _Pieces,
  head: Uint8Array,
  start: number,
  contentEnd: number,
  lineEnd: number,
  max: number,
): Line {
  const raw = contentEnd - start;
  const terminated = lineEnd > contentEnd;
  // When pieces were dropped the line is oversized whatever this byte is.
  const last = pieces.lastByte() ?? head[head.length - 1];
  const length = terminated && last === CR ? raw - 1 : raw;
  const bytes = length > max ? null : pieces.join(head, length);
  return _line(bytes, start, -1, lineEnd - start, terminated);
}

/**
 * Pieces below this size are packed into shared blocks (growing up to it),
 * so a line arriving in tiny chunks costs a few arrays, not one per chunk
 * (1-byte chunks of a 3 MB line held 700 MB as separate arrays).
 */
const PACK_BYTES = 64 * 1024;

/**
 * The pieces of one line, joined once when the line ends. Pieces arrive
 * left to right, or right to left when `backward`; a packing block fills
 * from its start, or from its end when `backward`.
 */
class _Pieces {
  readonly #backward: boolean;
  #parts: Uint8Array[] = []; // in arrival order
  #block: Uint8Array = EMPTY;
  #used = 0;

  constructor(backward: boolean) {
    this.#backward = backward;
  }

  /** Keep `piece`; a large one is copied only when `copy`. */
  add(piece: Uint8Array, copy: boolean): void {
    const n = piece.length;
    if (n >= PACK_BYTES) {
      this.#seal();
      this.#parts.push(copy ? piece.slice() : piece);
      return;
    }
    if (this.#used + n > PACK_BYTES) this.#seal();
    if (this.#used + n > this.#block.length) {
      const block = new Uint8Array(
        Math.min(PACK_BYTES, Math.max(256, 2 * (this.#used + n))),
      );
      block.set(this.#packed(), this.#backward ? block.length - this.#used : 0);
      this.#block = block;
    }
    const at = this.#backward
      ? this.#block.length - this.#used - n
      : this.#used;
    this.#block.set(piece, at);
    this.#used += n;
  }

  /** The byte nearest the line's end, if any piece is kept. */
  lastByte(): number | undefined {
    const first = this.#parts[0];
    if (this.#backward && first !== undefined) return first[first.length - 1];
    if (this.#used > 0) {
      return this
        .#block[this.#backward ? this.#block.length - 1 : this.#used - 1];
    }
    const last = this.#parts[this.#parts.length - 1];
    return last?.[last.length - 1];
  }

  /** The first `length` bytes of the line, `head` being the piece not added. */
  join(head: Uint8Array, length: number): Uint8Array {
    this.#seal();
    const parts = this.#backward ? this.#parts.reverse() : this.#parts;
    if (head.length > 0) {
      if (this.#backward) parts.unshift(head);
      else parts.push(head);
    }
    return _join(parts, length);
  }

  clear(): void {
    this.#parts = [];
    this.#block = EMPTY;
    this.#used = 0;
  }

  #packed(): Uint8Array {
    return this.#backward
      ? this.#block.subarray(this.#block.length - this.#used)
      : this.#block.subarray(0, this.#used);
  }

  #seal(): void {
    if (this.#used > 0) this.#parts.push(this.#packed());
    this.#block = EMPTY;
    this.#used = 0;
  }
}

/** The first `length` bytes of `pieces` laid end to end; a view if one piece. */
function _join(pieces: Uint8Array[], length: number): Uint8Array {
  const only = pieces[0];
  if (length === 0) return EMPTY;
  if (pieces.length === 1 && only !== undefined) {
    return only.subarray(0, length);
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    if (at === length) break;
    const n = Math.min(piece.length, length - at);
    out.set(n === piece.length ? piece : piece.subarray(0, n), at);
    at += n;
  }
  return out;
}

function _line(
  bytes: Uint8Array | null,
  offset: number,
  index: number,
  size: number,
  terminated: boolean,
): Line {
  return {
    bytes: bytes ?? EMPTY,
    offset,
    index,
    size,
    terminated,
    oversized: bytes === null,
  };
}

/** Reads of `reader` into one reused buffer, as views of the bytes read. */
async function* _chunks(reader: Reader): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(READ_BUFFER_BYTES);
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

function _maxLineBytes(max: number | undefined): number {
  if (max === undefined || max === Infinity) return Infinity;
  _assertCount(max, 0, "maxLineBytes", " or Infinity");
  return max;
}

function _assertCount(
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
