/**
 * The byte ranges of a file that reads covered, merged: what an open's
 * `bytesRead` counts. A windowed open reads some bytes more than once (a
 * line across a block's edge is read whole again, a message's head before
 * the whole line, a block read ahead and then asked for again); counting
 * each read would report more bytes than the file holds.
 *
 * @module
 */

/**
 * Disjoint, sorted `[start, end)` ranges and the bytes they cover.
 *
 * Invariant: `#starts` is ascending, `#ends[i] < #starts[i + 1]` (touching
 * ranges are merged), so {@linkcode ReadRanges.bytes} is their sum.
 *
 * @example Overlapping reads count once
 * ```ts
 * import { ReadRanges } from "./_read_ranges.ts";
 * import { equal } from "node:assert/strict";
 * const r = new ReadRanges();
 * r.add(100, 200);
 * r.add(0, 64);
 * r.add(150, 300); // overlaps the first
 * r.add(64, 100); // joins them all
 * equal(r.bytes, 300);
 * ```
 */
export class ReadRanges {
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];
  #bytes = 0;

  /** Distinct bytes covered. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Add the range `[start, end)` (an empty one changes nothing).
   *
   * @param start Its first byte.
   * @param end The byte after its last.
   */
  add(start: number, end: number): void {
    if (!(end > start)) return;
    const starts = this.#starts;
    const ends = this.#ends;
    // The first range that ends at or after `start`: it and those after it
    // that start at or before `end` merge with the new one.
    let lo = 0;
    for (let hi = ends.length; lo < hi;) {
      const mid = (lo + hi) >>> 1;
      if (ends[mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    let last = lo;
    let s = start;
    let e = end;
    for (; last < starts.length && starts[last]! <= end; last++) {
      s = Math.min(s, starts[last]!);
      e = Math.max(e, ends[last]!);
      this.#bytes -= ends[last]! - starts[last]!;
    }
    starts.splice(lo, last - lo, s);
    ends.splice(lo, last - lo, e);
    this.#bytes += e - s;
  }
}
