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
 * Only the choice of hits needs the order: what each line gives (decoded,
 * parsed, matched, its snippet made: `HitList.judge`) can be made before,
 * while a read ahead is under way (`prepare`), and the scan's end is left
 * with choosing. Only that small result is kept, not the line's text
 * (texts kept made V8 grow its young generation: a 1 GB scan took 31 MB
 * more).
 *
 * @module
 */

import type { HitList, Judged } from "./_hits.ts";
import { type LineText, lineText } from "./_line.ts";

/** Bytes of lines held back at most (a longer line is taken at once). */
export const LATER_BYTES = 4 << 20;

/** A buffer given back by a finished scan, for the next (fresh pages cost). */
let _idle: Uint8Array | undefined;

/** Where the lines held go: the hits, and the file they are from. */
export interface LaterSink {
  hits: HitList;
  path: string;
}

/** Give a line's text (if it has one) to the hits. */
function _take(sink: LaterSink, offset: number, text: LineText | undefined) {
  if (text !== undefined) sink.hits.take(sink.path, offset, text);
}

/** Lines held back, their bytes copied. */
export class LaterLines {
  #bytes: Uint8Array | undefined;
  #used = 0;
  /** Per line: offset, size, where its bytes start, how many. */
  readonly #lines: number[] = [];
  /** What the first lines held give, judged so far. */
  readonly #judged: Judged[] = [];

  /**
   * Hold a line back, or take it (and those held) now when it does not fit.
   *
   * @param offset Its offset in the file.
   * @param size Its size (more than `bytes` holds for a line too long to parse).
   * @param bytes Its bytes (copied).
   * @param sink Where a line taken goes.
   */
  add(offset: number, size: number, bytes: Uint8Array, sink: LaterSink): void {
    if (bytes.length > LATER_BYTES / 4) {
      return _take(sink, offset, lineText(bytes, size));
    }
    if (this.#used + bytes.length > LATER_BYTES) this.takeAll(sink);
    if (this.#bytes === undefined) {
      this.#bytes = _idle ?? new Uint8Array(LATER_BYTES);
      _idle = undefined;
    }
    this.#bytes.set(bytes, this.#used);
    this.#lines.push(offset, size, this.#used, bytes.length);
    this.#used += bytes.length;
  }

  /**
   * Judge the lines held not judged yet.
   *
   * @param hits What judges a line's text.
   */
  prepare(hits: HitList): void {
    const lines = this.#lines;
    for (let i = this.#judged.length * 4; i < lines.length; i += 4) {
      const text = this.#text(i);
      this.#judged.push(text === undefined ? undefined : hits.judge(text));
    }
  }

  /**
   * Take every line held, the last first, and forget them.
   *
   * @param sink Where they go.
   */
  takeAll(sink: LaterSink): void {
    const lines = this.#lines;
    const judged = this.#judged;
    for (let i = lines.length - 4; i >= 0; i -= 4) {
      const k = i / 4;
      if (k < judged.length) {
        sink.hits.takeJudged(sink.path, lines[i]!, judged[k]);
      } else _take(sink, lines[i]!, this.#text(i));
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
    this.#judged.length = 0;
    this.#used = 0;
  }

  /** Forget the lines held and give the buffer back, for the next scan. */
  release(): void {
    this.clear();
    if (this.#bytes !== undefined) _idle = this.#bytes;
    this.#bytes = undefined;
  }
}
