/**
 * The line source, forward half: bytes in, {@linkcode Line}s out, with no
 * text decoded. One splitter ({@linkcode LineSplitter}) does the work, fed
 * either by a web stream ({@linkcode LineStream}, the `TransformStream` a
 * user pipes a file's `readable` through) or by positional reads of a file
 * ({@linkcode readLines}, which skips the web stream's cost per chunk). The
 * backward half is `_backward_lines.ts`; both give the same lines.
 *
 * A line ends at "\n". A "\r" directly before that "\n" belongs to the
 * terminator; a "\r" anywhere else stays in the line. So no byte is lost:
 * each line's content followed by its terminator (`size - length` bytes:
 * "\r\n", "\n" or nothing) rebuilds the input exactly.
 *
 * @module
 */

import { findByte } from "./_find_byte.ts";
import { PAGE_BYTES, readBuffer } from "./_read_buffer.ts";
import type { FileHandle } from "../_fs.ts";

/**
 * The longest entry line read by default: 64 MiB. omp cuts any string over
 * 500,000 characters when it writes and keeps images as blobs, so real lines
 * are far shorter; a longer line is damage (or a file that is not a session)
 * and would cost its size several times over in memory to parse.
 */
export const DEFAULT_MAX_LINE_BYTES = 64 << 20;

/** One line of a session file, as a line source found it. */
export interface Line {
  /** Byte offset of its first byte in the file or stream. */
  offset: number;
  /** Bytes it occupies, "\n" or "\r\n" included: `offset + size` is the next line's offset. */
  size: number;
  /** Its content's length in bytes (the terminator left out), kept or not. */
  length: number;
  /** 0-based line number (blank lines count), or -1 where unknown (read backwards, or from the middle of a file). */
  index: number;
  /** False for a last line that has no "\n" (the stream ended mid-line). */
  terminated: boolean;
  /**
   * Its first bytes: the whole content when it is short, else at least the
   * source's `headBytes` (the envelope, a preview). Empty for a NUL line. A
   * view: valid until the next line is asked for, unless the source's chunks
   * are never reused (a stream's).
   */
  head: Uint8Array;
  /**
   * The whole content (a view, valid as `head` is), or undefined when it is
   * not kept: the line is `oversized` or `nul`, or, read backwards, it is
   * not at hand (`BackwardLines.complete` reads it).
   */
  bytes: Uint8Array | undefined;
  /** Longer than the source's `maxLineBytes`: its content is not kept. */
  oversized: boolean;
  /** Starts with a NUL byte (what a crash leaves): its content is never kept. */
  nul: boolean;
}

/** Limits of a line source. */
export interface LineLimits {
  /**
   * Lines whose content is longer than this are not kept (`oversized`), so
   * a reader holds at most about this much per line. A non-negative integer
   * or Infinity; default Infinity.
   */
  maxLineBytes?: number;
  /** The same limit for line 0 (a title slot or a header: small, so a longer one is damage). Default `maxLineBytes`. */
  maxFirstLineBytes?: number;
  /** Bytes of each line's start kept in `head`, whatever its length. Default {@linkcode HEAD_BYTES}. */
  headBytes?: number;
}

/**
 * Bytes of a line's start kept in its `head` by default: enough for an
 * entry's envelope and a preview of its text, little enough that a 200 KB
 * tool output costs no more than a 2 KB one.
 */
export const HEAD_BYTES = 8 << 10;
/** Bytes asked for per read by {@linkcode readLines}: reads this large run at the speed of the page cache. */
export const READ_BYTES = 2 << 20;
export const LF = 0x0a;
export const CR = 0x0d;
const _EMPTY = new Uint8Array(0);

/**
 * The limits checked: each a non-negative safe integer (Infinity allowed
 * for the line limits).
 *
 * @param limits What the caller gave.
 * @returns The limits, defaults filled.
 * @throws {RangeError} When a limit is not such a number.
 */
export function checkLimits(limits: LineLimits): Required<LineLimits> {
  const max = _count(limits.maxLineBytes ?? Infinity, "maxLineBytes");
  const first = _count(limits.maxFirstLineBytes ?? max, "maxFirstLineBytes");
  const head = _count(limits.headBytes ?? HEAD_BYTES, "headBytes");
  return {
    maxLineBytes: max,
    maxFirstLineBytes: Math.min(first, max),
    headBytes: head,
  };
}

function _count(value: number, name: string): number {
  if (value === Infinity || (Number.isSafeInteger(value) && value >= 0)) {
    return value;
  }
  throw new RangeError(
    `Cannot read lines: ${name} must be a non-negative integer or Infinity, got ${value}`,
  );
}

/**
 * The forward splitter: chunks in, the lines they complete out. The part of
 * a line seen in earlier chunks is copied into one growing buffer (so tiny
 * chunks cost one array, not one each) while the line can still fit the
 * limit: one byte more than the limit is kept, since a last "\r" may turn
 * out to be part of "\r\n". Past the limit only its head is kept.
 */
export class LineSplitter {
  readonly #limits: Required<LineLimits>;
  #offset: number;
  #index: number;
  /** Bytes of the current line in earlier chunks, and those kept of them. */
  #pending = 0;
  #kept: Uint8Array = _EMPTY;
  #keptLength = 0;
  #nul = false;
  #lastByte = -1;

  /**
   * @param limits The line limits.
   * @param offset The file offset of the first byte pushed.
   * @param index The number of the first line (-1: unknown).
   * @throws {RangeError} When a limit is not a non-negative integer.
   */
  constructor(limits: LineLimits = {}, offset = 0, index = 0) {
    this.#limits = checkLimits(limits);
    this.#offset = offset;
    this.#index = index;
  }

  /**
   * The lines `chunk` completes. Their bytes are views of `chunk` where they
   * lie in it: valid while `chunk` is.
   *
   * @param chunk The next bytes.
   * @returns The lines ended in it, in order.
   */
  push(chunk: Uint8Array): Line[] {
    const lines: Line[] = [];
    let start = 0;
    for (
      let nl = findByte(chunk, LF, 0);
      nl !== -1;
      nl = findByte(chunk, LF, start)
    ) {
      lines.push(this.#line(chunk, start, nl, true));
      start = nl + 1;
    }
    if (start < chunk.length) this.#keep(chunk, start);
    return lines;
  }

  /**
   * The last line, when the bytes ended without a "\n" after it.
   *
   * @returns The line, or undefined.
   */
  end(): Line | undefined {
    if (this.#pending === 0) return undefined;
    return this.#line(_EMPTY, 0, 0, false);
  }

  /** The line made of the bytes pending and `chunk[start, end)`. */
  #line(
    chunk: Uint8Array,
    start: number,
    end: number,
    terminated: boolean,
  ): Line {
    const pending = this.#pending;
    const raw = pending + end - start;
    const nul = pending > 0 ? this.#nul : end > start && chunk[start] === 0;
    const last = end > start ? chunk[end - 1] : this.#lastByte;
    const length = terminated && last === CR ? raw - 1 : raw;
    const max = this.#index === 0
      ? this.#limits.maxFirstLineBytes
      : this.#limits.maxLineBytes;
    const oversized = !nul && length > max;
    let bytes: Uint8Array | undefined;
    let head: Uint8Array;
    if (pending === 0) {
      bytes = chunk.subarray(start, start + length);
      head = bytes.subarray(0, Math.min(length, this.#limits.headBytes));
    } else {
      const piece = chunk.subarray(start, end);
      const headRoom = Math.max(0, this.#limits.headBytes - this.#keptLength);
      if (!nul) this.#append(oversized ? piece.subarray(0, headRoom) : piece);
      bytes = this.#kept.subarray(0, Math.min(length, this.#keptLength));
      head = bytes.subarray(0, Math.min(bytes.length, this.#limits.headBytes));
    }
    const line: Line = {
      offset: this.#offset,
      size: terminated ? raw + 1 : raw,
      length,
      index: this.#index,
      terminated,
      head: nul ? _EMPTY : head,
      bytes: oversized || nul ? undefined : bytes,
      oversized,
      nul,
    };
    this.#offset += line.size;
    if (this.#index >= 0) this.#index++;
    this.#pending = 0;
    this.#kept = _EMPTY;
    this.#keptLength = 0;
    this.#lastByte = -1;
    return line;
  }

  /** Keep the start of a line that goes on in the next chunk. */
  #keep(chunk: Uint8Array, start: number): void {
    if (this.#pending === 0) this.#nul = chunk[start] === 0;
    this.#pending += chunk.length - start;
    this.#lastByte = chunk[chunk.length - 1]!;
    if (this.#nul) return;
    const max = this.#index === 0
      ? this.#limits.maxFirstLineBytes
      : this.#limits.maxLineBytes;
    // Within the limit (and one byte, for a "\r" of "\r\n"): all of it;
    // past it, the head only.
    const room = this.#pending <= max + 1
      ? Infinity
      : this.#limits.headBytes - this.#keptLength;
    if (room > 0) {
      this.#append(
        chunk.subarray(start, start + Math.min(room, chunk.length - start)),
      );
    }
  }

  #append(piece: Uint8Array): void {
    const need = this.#keptLength + piece.length;
    if (need > this.#kept.length) {
      const grown = new Uint8Array(Math.max(256, need, 2 * this.#kept.length));
      grown.set(this.#kept.subarray(0, this.#keptLength));
      this.#kept = grown;
    }
    this.#kept.set(piece, this.#keptLength);
    this.#keptLength = need;
  }
}

/**
 * The design card's line splitter as a web stream: bytes in, {@linkcode Line}s
 * out, chunks split anywhere (inside a UTF-8 character, between "\r" and
 * "\n"). A line's bytes are views of the chunks it came in, which a stream
 * hands over for good, so lines may be kept.
 *
 * @example Splitting a file's bytes into lines
 * ```ts
 * import { LineStream } from "@xdev/session";
 * import { deepEqual } from "node:assert/strict";
 *
 * const bytes = new Blob(['{"a":1}\r\n', '{"b":', "2}"]).stream();
 * const lines = await Array.fromAsync(bytes.pipeThrough(new LineStream()));
 * const text = lines.map((l) => new TextDecoder().decode(l.bytes));
 * deepEqual(text, ['{"a":1}', '{"b":2}']);
 * deepEqual(lines.map((l) => [l.offset, l.size, l.terminated]), [[0, 9, true], [9, 7, false]]);
 * ```
 */
export class LineStream extends TransformStream<Uint8Array, Line> {
  /**
   * A stream that splits the bytes it is given into lines.
   *
   * @param limits The longest line kept (longer ones come `oversized`,
   * without their content), and the head kept of every line.
   * @throws {RangeError} When a limit is not a non-negative integer.
   */
  constructor(limits: LineLimits = {}) {
    const splitter = new LineSplitter(limits);
    super({
      transform(chunk, controller) {
        for (const line of splitter.push(chunk)) controller.enqueue(line);
      },
      flush(controller) {
        const last = splitter.end();
        if (last !== undefined) controller.enqueue(last);
      },
    });
  }
}

/** Where {@linkcode readLines} reads, and its limits. */
export interface ReadLinesOptions extends LineLimits {
  /** The offset of the first line to read. Default 0. */
  start?: number;
  /** Where to stop (a line cut by it ends there, unterminated). Default: the end of the file. */
  end?: number;
  /** Bytes per read. Default {@linkcode READ_BYTES}, fewer for a short range. */
  readBytes?: number;
}

/**
 * The lines of an open file, first to last, from positional reads into one
 * reused buffer. Line numbers count from 0 when reading from the start,
 * else they are unknown (-1). A line is valid until the next is asked for.
 *
 * @param file The file (not closed).
 * @param options Where to read, and the limits.
 * @returns The lines.
 * @throws {RangeError} When a limit is not a non-negative integer.
 *
 * @example Reading a file's lines
 * ```ts
 * import { readLines } from "./lines.ts";
 * import { fs } from "../_fs.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n');
 * await using file = await fs().open(path, { read: true });
 * const offsets = [];
 * for await (const line of readLines(file)) offsets.push(line.offset);
 * deepEqual(offsets, [0, 8]);
 * await Deno.remove(path);
 * ```
 */
export async function* readLines(
  file: FileHandle,
  options: ReadLinesOptions = {},
): AsyncGenerator<Line, void, undefined> {
  const start = options.start ?? 0;
  const end = options.end ?? (await file.stat()).size;
  const splitter = new LineSplitter(options, start, start === 0 ? 0 : -1);
  const size = Math.max(
    1,
    Math.min(options.readBytes ?? READ_BYTES, end - start),
  );
  // Two buffers: the next read goes into one while the lines of the other
  // are taken, so the wait for the disk overlaps the work on the bytes. A
  // line is valid until the next is asked for, and the buffer it lies in is
  // read into again only after its last line was taken.
  const buffers = [readBuffer(size), readBuffer(size)];
  // A read from the middle of a page stops at the next page, so the reads
  // after it start on one (see `_read_buffer.ts`).
  const read = (i: number, at: number): Promise<number> => {
    if (at >= end) return Promise.resolve(0);
    const rest = at % PAGE_BYTES;
    const room = size > PAGE_BYTES && rest !== 0 ? size - rest : size;
    return file.read(buffers[i]!.subarray(0, Math.min(room, end - at)), at);
  };
  let next = read(0, start);
  try {
    for (let at = start, i = 0;; i ^= 1) {
      const n = await next;
      if (n === 0) break;
      at += n;
      next = read(i ^ 1, at);
      yield* splitter.push(buffers[i]!.subarray(0, n));
    }
  } finally {
    await next.catch(() => {}); // a read still under way ends before the file may close
  }
  const last = splitter.end();
  if (last !== undefined) yield last;
}
