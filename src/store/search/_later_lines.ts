/**
 * Matching lines held back until their file is scanned, then taken newest
 * first (the last line first): once the hit list is full, a line older
 * than every hit kept is still parsed (it may be damaged, which is
 * reported) but neither matched nor cut into a snippet. In a transcript
 * written in time order, that spares most of the lines a common word
 * flags. The lines' bytes are copied into one buffer of fixed size, so
 * holding them back costs no more memory however many there are: when it
 * is full, the lines held are taken and it starts over.
 *
 * Only the choice of hits needs the order: the lines' texts (decoded and
 * parsed, every line is) can be made before, while a read ahead is under
 * way (`prepare`), and the scan's end is left with the matching. A text is
 * no longer than its line, so they take at most twice the buffer's memory.
 *
 * @module
 */

import { type LineText, lineText } from "./_line.ts";

/** Bytes of lines held back at most (a longer line is taken at once). */
export const LATER_BYTES = 4 << 20;

/** A buffer given back by a finished scan, for the next (fresh pages cost). */
let _idle: Uint8Array | undefined;

/** A line's offset in its file, and its text (undefined for a line without). */
export type LaterTake = (offset: number, text: LineText | undefined) => void;

/** Lines held back, their bytes copied. */
export class LaterLines {
  #bytes: Uint8Array | undefined;
  #used = 0;
  /** Per line: offset, size, where its bytes start, how many. */
  readonly #lines: number[] = [];
  /** The texts made so far, of the first lines held. */
  readonly #texts: (LineText | undefined)[] = [];

  /**
   * Hold a line back, or take it (and those held) now when it does not fit.
   *
   * @param offset Its offset in the file.
   * @param size Its size (more than `bytes` holds for a line too long to parse).
   * @param bytes Its bytes (copied).
   * @param take What takes a line.
   */
  add(offset: number, size: number, bytes: Uint8Array, take: LaterTake): void {
    if (bytes.length > LATER_BYTES / 4) {
      return take(offset, lineText(bytes, size));
    }
    if (this.#used + bytes.length > LATER_BYTES) this.takeAll(take);
    if (this.#bytes === undefined) {
      this.#bytes = _idle ?? new Uint8Array(LATER_BYTES);
      _idle = undefined;
    }
    this.#bytes.set(bytes, this.#used);
    this.#lines.push(offset, size, this.#used, bytes.length);
    this.#used += bytes.length;
  }

  /** Make the texts of the lines held that have none yet. */
  prepare(): void {
    const lines = this.#lines;
    for (let i = this.#texts.length * 4; i < lines.length; i += 4) {
      this.#texts.push(this.#text(i));
    }
  }

  /**
   * Take every line held, the last first, and forget them.
   *
   * @param take What takes a line.
   */
  takeAll(take: LaterTake): void {
    const lines = this.#lines;
    const texts = this.#texts;
    for (let i = lines.length - 4; i >= 0; i -= 4) {
      const k = i / 4;
      take(lines[i]!, k < texts.length ? texts[k] : this.#text(i));
    }
    this.clear();
  }

  /** The text of the line at `i` of `#lines`. */
  #text(i: number): LineText | undefined {
    const lines = this.#lines;
    const from = lines[i + 2]!;
    const bytes = this.#bytes!.subarray(from, from + lines[i + 3]!);
    return lineText(bytes, lines[i + 1]!);
  }

  /** Forget the lines held (a file given up). */
  clear(): void {
    this.#lines.length = 0;
    this.#texts.length = 0;
    this.#used = 0;
  }

  /** Forget the lines held and give the buffer back, for the next scan. */
  release(): void {
    this.clear();
    if (this.#bytes !== undefined) _idle = this.#bytes;
    this.#bytes = undefined;
  }
}
