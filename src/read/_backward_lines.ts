/**
 * The line source, backward half: a file's lines from the last to the
 * first, over positional reads that go backwards in large blocks, each
 * line's start found with `findLastByte` (`lastIndexOf`). A line's head is
 * always at hand (every block keeps the bytes just after it); its whole
 * content only when it lies in the block, else
 * {@linkcode BackwardLines.complete} reads it. Nothing is allocated for a
 * line that is passed over.
 *
 * @module
 */

import type { FileHandle } from "../_fs.ts";
import { findLastByte } from "./_find_byte.ts";
import { alignDown, PAGE_BYTES, readBuffer } from "./_read_buffer.ts";
import {
  checkLimits,
  CR,
  HEAD_BYTES,
  LF,
  type Line,
  type LineLimits,
} from "./lines.ts";

/**
 * Bytes read at first, then doubling up to the largest block: a window near
 * the end costs what it weighs, a long walk reads in large blocks.
 */
const _FIRST_BLOCK_BYTES = 64 << 10;
const _BLOCK_BYTES = 4 << 20;
/** Blocks at least this large start on a page (see `_read_buffer.ts`). */
const _ALIGNED_BLOCK_BYTES = 64 << 10;

/** Options of {@linkcode BackwardLines}. */
export interface BackwardLinesOptions extends LineLimits {
  /** The first offset that belongs to the lines (after a file's head). Default 0. */
  floor?: number;
  /** The end of the bytes (the file's size). */
  size: number;
  /** Bytes of the first read, and of the largest (tests make them small to reach the blocks' edges). */
  firstBlockBytes?: number;
  blockBytes?: number;
  /**
   * Once the blocks are at their largest (a long walk), read the block
   * before the one at hand while its lines are taken, so the wait for the
   * disk overlaps the work on the bytes. The owner then calls {@linkcode
   * BackwardLines.settle} before it closes the file. Default false.
   */
  readAhead?: boolean;
}

/** A block read ahead: its range, and the read under way (true once the bytes are all in). */
interface _Ahead {
  start: number;
  bytes: Uint8Array;
  read: Promise<boolean>;
}

/** The block sizes of {@linkcode BackwardLinesOptions}. */
export type BackwardLinesBlocks = Pick<
  BackwardLinesOptions,
  "firstBlockBytes" | "blockBytes"
>;

/** The block sizes of every {@linkcode BackwardLines} made without its own. */
let _blocks: BackwardLinesBlocks = {};

/**
 * Set the block sizes of every {@linkcode BackwardLines} made without its
 * own, for tests: the fuzzer walks its cases with tiny blocks, so a file of
 * a few kilobytes crosses as many block edges as a large one. The library
 * never calls it.
 *
 * @param blocks The sizes; `{}` restores the library's own.
 */
export function setBackwardLinesBlocks(blocks: BackwardLinesBlocks): void {
  _blocks = { ...blocks };
}

/**
 * A cursor over the lines of a file's bytes `[floor, size)`, last first.
 *
 * @example The last line first
 * ```ts
 * import { BackwardLines } from "./_backward_lines.ts";
 * import { fs } from "../_fs.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "a\r\nbb\nccc");
 * await using file = await fs().open(path, { read: true });
 * const lines = new BackwardLines(file, { size: 9 });
 * const seen = [];
 * for (let l = await lines.prev(); l !== undefined; l = await lines.prev()) {
 *   seen.push([new TextDecoder().decode(l.bytes), l.offset, l.size, l.terminated]);
 * }
 * deepEqual(seen, [["ccc", 6, 3, false], ["bb", 3, 3, true], ["a", 0, 3, true]]);
 * await Deno.remove(path);
 * ```
 */
export class BackwardLines {
  readonly #file: Pick<FileHandle, "read">;
  readonly #floor: number;
  readonly #size: number;
  readonly #limits: Required<LineLimits>;
  /** The block at hand and the head bytes after it (swapped with `#aheadBuffer` when a block read ahead is taken). */
  #buffer: Uint8Array;
  /** The file offsets of `#buffer[0]` and of the end of the bytes in it. */
  #bufferStart: number;
  #bufferEnd: number;
  /** The end of the next line to step to (its terminator included). */
  #cursor: number;
  #block: number;
  readonly #maxBlock: number;
  readonly #readAhead: boolean;
  /** Head bytes kept after a block. */
  readonly #headBytes: number;
  /**
   * Blocks start at a multiple of this (a page: see `_read_buffer.ts`), or
   * of 1 where blocks are too small for it to matter (tests' tiny ones).
   */
  readonly #align: number;
  #ahead: _Ahead | undefined;
  /** The buffer blocks are read ahead into (one at a time), made on first use, as large as `#buffer`. */
  #aheadBuffer: Uint8Array | undefined;
  /** The last content byte of the line {@linkcode prev} gave, or -1 for an empty one. */
  lastByte = -1;

  /**
   * @param file The file (not closed).
   * @param options The range, the limits, the block sizes.
   * @throws {RangeError} When a limit is not a non-negative integer.
   */
  constructor(file: Pick<FileHandle, "read">, options: BackwardLinesOptions) {
    this.#file = file;
    this.#limits = checkLimits({ headBytes: HEAD_BYTES, ...options });
    this.#floor = options.floor ?? 0;
    this.#size = options.size;
    this.#block = options.firstBlockBytes ?? _blocks.firstBlockBytes ??
      _FIRST_BLOCK_BYTES;
    this.#maxBlock = options.blockBytes ?? _blocks.blockBytes ?? _BLOCK_BYTES;
    this.#readAhead = options.readAhead === true;
    this.#align = this.#maxBlock >= _ALIGNED_BLOCK_BYTES ? PAGE_BYTES : 1;
    const span = Math.max(0, this.#size - this.#floor);
    this.#headBytes = Math.min(this.#limits.headBytes, span);
    this.#buffer = readBuffer(
      Math.min(this.#maxBlock, span) + this.#headBytes + this.#align - 1,
    );
    this.#bufferStart = this.#size;
    this.#bufferEnd = this.#size;
    this.#cursor = this.#size;
  }

  /**
   * Step to the previous line: at once when the buffer holds all of it (the
   * most lines of a long walk, which then cost no promise), else after the
   * reads that bring it.
   *
   * @returns The line, or undefined before the first.
   */
  prev(): Line | undefined | Promise<Line | undefined> {
    const end = this.#cursor;
    if (end <= this.#floor) return undefined;
    return this.#atHand(end) ?? this.#read(end);
  }

  /**
   * The line ending at `end` when the buffer holds it whole (with the "\n"
   * before it, or the floor); undefined when a read is needed.
   */
  #atHand(end: number): Line | undefined {
    const base = this.#bufferStart;
    if (end - 1 < base || end > this.#bufferEnd) return undefined;
    const terminated = this.#byteAt(end - 1) === LF;
    let contentEnd = terminated ? end - 1 : end;
    if (terminated && contentEnd > this.#floor) {
      if (contentEnd - 1 < base) return undefined;
      if (this.#byteAt(contentEnd - 1) === CR) contentEnd--;
    }
    // base >= floor, so a "\n" found is above the floor.
    const found = contentEnd - 1 >= base
      ? findLastByte(this.#buffer, LF, contentEnd - 1 - base)
      : -1;
    const start = found >= 0
      ? found + base + 1
      : base === this.#floor
      ? this.#floor
      : -1;
    if (start < 0) return undefined;
    this.lastByte = start < contentEnd ? this.#byteAt(contentEnd - 1) : -1;
    this.#cursor = start;
    return this.#line(start, contentEnd, end, terminated);
  }

  /** {@linkcode prev} when the line is not all at hand: block by block. */
  async #read(end: number): Promise<Line> {
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
    const start = await this.#startOf(contentEnd);
    this.lastByte = start < contentEnd ? lastByte : -1;
    this.#cursor = start;
    // The head: the block holding the line's start, and the bytes after it.
    if (start < contentEnd) await this.#cover(start);
    return this.#line(start, contentEnd, end, terminated);
  }

  /**
   * The line with its whole content: read when it was not at hand.
   *
   * @param line A line {@linkcode prev} gave (kept or not).
   * @returns The same line with `bytes`, unless it is `oversized` or `nul`.
   */
  async complete(line: Line): Promise<Line> {
    if (line.bytes !== undefined || line.oversized || line.nul) return line;
    const bytes = new Uint8Array(line.length);
    await this.#readFully(bytes, line.offset);
    return { ...line, bytes };
  }

  /**
   * Wait for a block read ahead (its error, if any, is dropped: no line
   * needed it). Call before the file is closed.
   */
  async settle(): Promise<void> {
    await this.#ahead?.read;
    this.#ahead = undefined;
  }

  /** Where the line ending at `contentEnd` starts. */
  async #startOf(contentEnd: number): Promise<number> {
    for (let at = contentEnd; at > this.#floor;) {
      await this.#cover(at - 1);
      const base = this.#bufferStart;
      // lastIndexOf counts a negative position from the end: stay at >= 0.
      const found = findLastByte(this.#buffer, LF, at - 1 - base);
      if (found >= 0) return found + base + 1;
      at = base;
    }
    return this.#floor;
  }

  #line(
    start: number,
    contentEnd: number,
    end: number,
    terminated: boolean,
  ): Line {
    const length = contentEnd - start;
    const base = this.#bufferStart;
    const nul = length > 0 && this.#byteAt(start) === 0;
    const max = start === 0
      ? this.#limits.maxFirstLineBytes
      : this.#limits.maxLineBytes;
    const oversized = !nul && length > max;
    const atHand = Math.min(contentEnd, this.#bufferEnd) - start;
    const head = nul || length === 0
      ? new Uint8Array(0)
      : this.#buffer.subarray(
        start - base,
        start - base + Math.min(atHand, this.#limits.headBytes),
      );
    const whole = !oversized && !nul && atHand === length;
    return {
      offset: start,
      size: end - start,
      length,
      index: -1,
      terminated,
      head,
      bytes: whole
        ? this.#buffer.subarray(start - base, contentEnd - base)
        : undefined,
      oversized,
      nul,
    };
  }

  #byteAt(offset: number): number {
    return this.#buffer[offset - this.#bufferStart]!;
  }

  /** Make the buffer hold `offset`: the block ending there, and head bytes after it. */
  async #cover(offset: number): Promise<void> {
    if (offset >= this.#bufferStart && offset < this.#bufferEnd) return;
    const headBytes = this.#headBytes;
    const capacity = Math.min(this.#block, this.#maxBlock);
    this.#block = Math.min(2 * this.#block, this.#maxBlock);
    const blockEnd = Math.min(offset + 1, this.#size);
    const blockStart = this.#blockStart(blockEnd - capacity);
    const end = Math.min(this.#size, blockEnd + headBytes);
    // Bytes at hand that the new range holds (the old block's start) move
    // to their place, and only the rest is read.
    const keepFrom = Math.max(blockStart, this.#bufferStart);
    const keepTo = Math.min(end, this.#bufferEnd);
    if (keepFrom < keepTo) {
      const kept = this.#buffer.subarray(
        keepFrom - this.#bufferStart,
        keepTo - this.#bufferStart,
      );
      if (await this.#tookAhead(blockStart, keepFrom - blockStart)) {
        this.#buffer.set(kept, keepFrom - blockStart);
      } else {
        this.#buffer.copyWithin(
          keepFrom - blockStart,
          keepFrom - this.#bufferStart,
          keepTo - this.#bufferStart,
        );
        await this.#readFully(
          this.#buffer.subarray(0, keepFrom - blockStart),
          blockStart,
        );
      }
      await this.#readFully(
        this.#buffer.subarray(keepTo - blockStart, end - blockStart),
        keepTo,
      );
    } else {
      await this.#readFully(
        this.#buffer.subarray(0, end - blockStart),
        blockStart,
      );
    }
    this.#bufferStart = blockStart;
    this.#bufferEnd = end;
    if (this.#readAhead && capacity === this.#maxBlock) {
      this.#startAhead(blockStart);
    }
  }

  /**
   * Whether the block read ahead is the `length` bytes at `position`, read
   * whole: then it becomes the buffer (its start), with no copy, and the
   * old buffer the one the next block is read ahead into. Otherwise (no
   * block ahead, another range, a failed read, which the caller's read
   * repeats) the buffer stays.
   */
  async #tookAhead(position: number, length: number): Promise<boolean> {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    if (ahead === undefined || !(await ahead.read)) return false;
    if (ahead.start !== position || ahead.bytes.length !== length) return false;
    const old = this.#buffer;
    this.#buffer = this.#aheadBuffer!;
    this.#aheadBuffer = old;
    return true;
  }

  /** Read the largest block ending at `end` (but not below the floor), ahead. */
  #startAhead(end: number): void {
    const start = this.#blockStart(end - this.#maxBlock);
    if (start >= end) return;
    this.#aheadBuffer ??= readBuffer(this.#buffer.length);
    const bytes = this.#aheadBuffer.subarray(0, end - start);
    const read = this.#readFully(bytes, start).then(() => true, () => false);
    this.#ahead = { start, bytes, read };
  }

  /** Where a block reaching back to `position` starts: aligned, not below the floor. */
  #blockStart(position: number): number {
    const start = Math.max(this.#floor, position);
    return this.#align === 1 ? start : alignDown(start, this.#floor);
  }

  /** Fill `into` from `position`, looping on short reads. */
  async #readFully(into: Uint8Array, position: number): Promise<void> {
    for (let done = 0; done < into.length;) {
      const n = await this.#file.read(into.subarray(done), position + done);
      if (!(n > 0 && n <= into.length - done)) {
        throw Object.assign(
          new Error(
            `Cannot read lines backward: the file ended at byte ${
              position + done
            }, before its size ${this.#size}`,
          ),
          { code: "EOF" },
        );
      }
      done += n;
    }
  }
}
