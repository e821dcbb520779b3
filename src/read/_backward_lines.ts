/**
 * Stepping through a file's lines from the last to the first over raw
 * bytes: large sequential reads going backwards, line starts listed per
 * block by a SIMD kernel (`_newlines.ts`) and taken one a step, and each
 * line's first bytes at hand for its envelope. Nothing is allocated for a
 * line that is passed over; a line's full bytes are read only when asked
 * for.
 *
 * @module
 */

import type { ReaderAt } from "../fs/_read.ts";
import { CR, LF, type Line, makeLine } from "./_line.ts";
import { Newlines } from "./_newlines.ts";

/**
 * Bytes read per step backwards: the first read is small (a window near the
 * end costs what it weighs), then each read doubles up to the largest. 1
 * MiB reads run at the speed of the page cache as 4 MiB ones do, and the
 * buffer is touched for the first time in every open: 4 MiB made a 100 MB
 * checkpoint-less open ~10 ms slower here (~770 more page faults, ~13 µs
 * each on this machine), and a 1 GB one no faster.
 */
const _FIRST_BLOCK_BYTES = 64 << 10;
const _BLOCK_BYTES = 1 << 20;
/** Bytes kept after a block, so a line starting near its end has its first bytes at hand. */
const _HEAD_BYTES = 512;

/** Options of {@linkcode BackwardLines}: tests make the blocks small, to reach their edges. */
export interface BackwardLinesOptions {
  /**
   * List line ends with `indexOf` (true) or the WebAssembly kernel (false).
   * By default the kernel, unless the lines fit in the first read: setting
   * up its memory and instance (~50 µs, and the garbage it leaves) made
   * opening a small session 30–50 % slower.
   */
  plain?: boolean;
  /** Bytes of the first read, and of the largest. */
  firstBlockBytes?: number;
  blockBytes?: number;
  /** Bytes the kernel lists per call. */
  segmentBytes?: number;
}

let _defaults: BackwardLinesOptions = {};

/**
 * Set the options of every {@linkcode BackwardLines} made without its own,
 * for tests: the fuzzer walks its cases with tiny blocks, kernel or plain,
 * to cross block edges in small files. The library never calls it.
 *
 * @param options The options; `{}` restores the library's own.
 */
export function setBackwardLinesDefaults(options: BackwardLinesOptions): void {
  _defaults = { ...options };
}

/**
 * A cursor over the lines of `source[floor, size)`, last line first. After
 * {@linkcode prev} returns true, the current line is `[start, contentEnd)`
 * (its terminator excluded, the `"\r"` of a `"\r\n"` too); its first bytes
 * are `bytes[headStart, headEnd)`.
 */
export class BackwardLines {
  readonly #source: ReaderAt;
  readonly #floor: number;
  /** The buffer (`#lines.bytes`) and the line ends in it. */
  readonly #lines: Newlines;
  readonly #buffer: Uint8Array;
  /** The file offset of `#buffer[0]`, and the end of the bytes in it. */
  #bufferStart: number;
  #bufferEnd: number;
  /** The end of the next line to step to (its terminator included). */
  #cursor: number;
  /** Bytes the next read backwards takes, and the most a read takes. */
  #block: number;
  readonly #maxBlock: number;
  /** Bytes read from the source. */
  bytesRead = 0;

  /** The current line's first byte (file offset). */
  start = 0;
  /** The end of its content (file offset). */
  contentEnd = 0;
  /** The end of the line, terminator included (file offset). */
  lineEnd = 0;
  /** Whether it ends in "\n". */
  terminated = false;
  /** The last byte of its content, or -1 for an empty line. */
  lastByte = -1;

  /**
   * @param source The file.
   * @param floor The first offset that belongs to the lines (after the head).
   * @param options Block sizes and the way line ends are listed.
   */
  constructor(
    source: ReaderAt,
    floor: number,
    options: BackwardLinesOptions = _defaults,
  ) {
    this.#source = source;
    this.#floor = floor;
    this.#block = options.firstBlockBytes ?? _FIRST_BLOCK_BYTES;
    this.#maxBlock = options.blockBytes ?? _BLOCK_BYTES;
    const size = Math.max(0, source.size - floor);
    this.#lines = new Newlines(
      Math.min(this.#maxBlock, size) + _HEAD_BYTES,
      {
        plain: options.plain ?? size <= this.#block,
        ...(options.segmentBytes ? { segmentBytes: options.segmentBytes } : {}),
      },
    );
    this.#buffer = this.#lines.bytes;
    this.#bufferStart = source.size;
    this.#bufferEnd = source.size;
    this.#cursor = source.size;
  }

  /** The buffer the current line's first bytes are in. */
  get bytes(): Uint8Array {
    return this.#buffer;
  }

  /** Where the current line's first bytes start in {@linkcode bytes}. */
  get headStart(): number {
    return this.start - this.#bufferStart;
  }

  /** Where they end: the line's content end, or the end of what is at hand. */
  get headEnd(): number {
    return Math.min(this.contentEnd, this.#bufferEnd) - this.#bufferStart;
  }

  /** The current line's size in bytes, terminator included. */
  get size(): number {
    return this.lineEnd - this.start;
  }

  /**
   * Step to the previous line; false when there is none. Synchronous while
   * the line is in the bytes at hand (the common case), so a walk over many
   * lines does not pay a promise each.
   */
  prev(): boolean | Promise<boolean> {
    const end = this.#cursor;
    if (end <= this.#floor) return false;
    const bufferStart = this.#bufferStart;
    // The fast path: the line's last byte and its start are both at hand.
    if (end - 1 >= bufferStart && end <= this.#bufferEnd) {
      const buffer = this.#buffer;
      const terminated = buffer[end - 1 - bufferStart] === LF;
      let contentEnd = terminated ? end - 1 : end;
      if (
        terminated && contentEnd > bufferStart &&
        buffer[contentEnd - 1 - bufferStart] === CR
      ) contentEnd--;
      if (contentEnd === bufferStart && contentEnd > this.#floor) {
        return this.#prevSlow(); // a CR or the content may lie before the bytes at hand
      }
      const found = contentEnd > bufferStart
        ? this.#lines.lastBefore(contentEnd - bufferStart)
        : -1;
      if (found >= 0 || bufferStart === this.#floor) {
        const start = found >= 0 ? found + bufferStart + 1 : this.#floor;
        const lastByte = start < contentEnd
          ? buffer[contentEnd - 1 - bufferStart]!
          : -1;
        this.#set(start, contentEnd, end, terminated, lastByte);
        return true;
      }
    }
    return this.#prevSlow();
  }

  /** {@linkcode prev} where bytes must be read first. */
  async #prevSlow(): Promise<boolean> {
    const end = this.#cursor;
    await this.#cover(end - 1);
    const terminated = this.#byteAt(end - 1) === LF;
    let contentEnd = terminated ? end - 1 : end;
    if (terminated && contentEnd > this.#floor) {
      await this.#cover(contentEnd - 1);
      if (this.#byteAt(contentEnd - 1) === CR) contentEnd--;
    }
    let lastByte = -1;
    if (contentEnd > this.#floor) {
      await this.#cover(contentEnd - 1);
      lastByte = this.#byteAt(contentEnd - 1);
    }
    let start = this.#floor;
    for (let at = contentEnd; at > this.#floor;) {
      await this.#cover(at - 1);
      const found = this.#lines.lastBefore(at - this.#bufferStart);
      if (found >= 0) {
        start = found + this.#bufferStart + 1;
        break;
      }
      at = this.#bufferStart;
    }
    // The first bytes of the line: the block holding its start, with the
    // bytes after it.
    if (start < contentEnd) await this.#cover(start);
    this.#set(
      start,
      contentEnd,
      end,
      terminated,
      start < contentEnd ? lastByte : -1,
    );
    return true;
  }

  #set(
    start: number,
    contentEnd: number,
    end: number,
    terminated: boolean,
    lastByte: number,
  ): void {
    this.start = start;
    this.contentEnd = contentEnd;
    this.lineEnd = end;
    this.terminated = terminated;
    this.lastByte = lastByte;
    this.#cursor = start;
  }

  /** Whether the current line starts with a NUL byte (crash damage). */
  isNul(): boolean {
    return this.contentEnd > this.start && this.#buffer[this.headStart] === 0;
  }

  /**
   * The current line as a {@linkcode Line} (index unknown: -1), its bytes
   * read when they are not at hand; a line over `max` bytes, or one of NUL
   * bytes, comes without them (`oversized` / `nul`). Synchronous when the
   * bytes are at hand: then they are a view, valid until the next step.
   */
  line(max: number): Line | Promise<Line> {
    const length = this.contentEnd - this.start;
    if (this.isNul()) {
      return makeLine(null, this.start, -1, this.size, this.terminated, true);
    }
    if (length > max) {
      return makeLine(null, this.start, -1, this.size, this.terminated);
    }
    if (this.start >= this.#bufferStart && this.contentEnd <= this.#bufferEnd) {
      const bytes = this.#buffer.subarray(
        this.headStart,
        this.headStart + length,
      );
      return makeLine(bytes, this.start, -1, this.size, this.terminated);
    }
    return this.#readLine(length);
  }

  async #readLine(length: number): Promise<Line> {
    const bytes = new Uint8Array(length);
    await this.#readFully(bytes, this.start);
    return makeLine(bytes, this.start, -1, this.size, this.terminated);
  }

  #byteAt(offset: number): number {
    return this.#buffer[offset - this.#bufferStart]!;
  }

  /** Make the buffer hold `offset`: the block ending there (plus head bytes after it). */
  async #cover(offset: number): Promise<void> {
    if (offset >= this.#bufferStart && offset < this.#bufferEnd) return;
    const capacity = Math.min(this.#block, this.#buffer.length - _HEAD_BYTES);
    this.#block = Math.min(2 * this.#block, this.#maxBlock);
    const blockEnd = Math.min(offset + 1, this.#source.size);
    const blockStart = Math.max(this.#floor, blockEnd - capacity);
    const end = Math.min(this.#source.size, blockEnd + _HEAD_BYTES);
    // Bytes already at hand (the start of the old block) move to the end.
    const keepFrom = Math.max(blockEnd, this.#bufferStart);
    const keepTo = Math.min(end, this.#bufferEnd);
    let readTo = end;
    if (keepFrom === blockEnd && keepTo > keepFrom) {
      this.#buffer.copyWithin(
        keepFrom - blockStart,
        keepFrom - this.#bufferStart,
        keepTo - this.#bufferStart,
      );
      readTo = keepFrom;
    }
    await this.#readFully(
      this.#buffer.subarray(0, readTo - blockStart),
      blockStart,
    );
    if (readTo < end && keepTo < end) {
      await this.#readFully(
        this.#buffer.subarray(keepTo - blockStart, end - blockStart),
        keepTo,
      );
    }
    this.#bufferStart = blockStart;
    this.#bufferEnd = end;
    this.#lines.reset();
  }

  /** Fill `into` from `position`, looping on short reads. */
  async #readFully(into: Uint8Array, position: number): Promise<void> {
    for (let done = 0; done < into.length;) {
      const n = await this.#source.readAt(into.subarray(done), position + done);
      if (!(n > 0 && n <= into.length - done)) {
        throw new Deno.errors.UnexpectedEof(
          `Cannot read lines backward: the source ended at byte ${
            position + done
          }, before its size ${this.#source.size}`,
        );
      }
      done += n;
      this.bytesRead += n;
    }
  }
}
