/**
 * The scan's byte filter: a stretch of one of the query's words, as the
 * bytes it can take in a line (every case variant, byte by byte), so a
 * line that cannot hold a match is skipped without being decoded. It is
 * found with `Uint8Array.prototype.indexOf`: one byte of the stretch (an
 * anchor, chosen rare and with few case variants) is looked for, and the
 * whole stretch checked where it is.
 *
 * A word's characters can be written escaped in JSON: `\"`, `\\`, `\/`
 * and control characters never are part of the stretch, and a character
 * that some writers escape as `\uXXXX` (non-ASCII, `<`, `>`, `&`, `'`)
 * makes a line that holds such an escape of it pass too. A character
 * whose case variants differ in UTF-8 length (`k` and the Kelvin sign)
 * ends the stretch. So the filter never drops a line that matches.
 *
 * @module
 */

import { caseVariants } from "./_fold.ts";
import type { SearchQuery } from "./_query.ts";

/** The longest stretch used. */
export const NEEDLE_MAX_BYTES = 64;

/**
 * What one more `indexOf` pass over a line costs, in the units of
 * {@linkcode _weight} (chance matches per 1,000 bytes, each checked): an
 * anchor with two values (a letter's cases) takes two passes, so a rarer
 * one must be worth it.
 */
const _PASS = 12;

/** A stretch of a word, as bytes. */
export class ByteNeedle {
  /** Its length in bytes. */
  readonly length: number;
  /** UTF-16 code units whose `\uXXXX` escape lets a line pass; empty when none. */
  readonly escapes: ReadonlySet<number>;
  /** `allowed[j * 256 + b]`: byte `b` may be at position `j`. */
  readonly #allowed: Uint8Array;
  /** The position looked for with `indexOf`, and the bytes it may be. */
  readonly #anchor: number;
  readonly #anchorBytes: readonly number[];

  private constructor(chars: number[]) {
    const variants = chars.map((c) => caseVariants(c).map(_utf8));
    this.length = variants.reduce((n, v) => n + v[0]!.length, 0);
    this.#allowed = new Uint8Array(Math.max(1, this.length) * 256);
    const escapes = new Set<number>();
    let j = 0;
    chars.forEach((c, i) => {
      const forms = variants[i]!;
      for (const bytes of forms) {
        bytes.forEach((b, k) => this.#allowed[(j + k) * 256 + b] = 1);
      }
      if (_escapable(c)) {
        for (const v of caseVariants(c)) {
          const s = String.fromCodePoint(v);
          for (let u = 0; u < s.length; u++) escapes.add(s.charCodeAt(u));
        }
      }
      j += forms[0]!.length;
    });
    this.escapes = escapes;
    [this.#anchor, this.#anchorBytes] = this.#choose();
  }

  /**
   * The byte filter of a query: the longest usable stretch among its
   * words, or undefined when none has one (every line is decoded).
   *
   * @param query The query.
   * @returns The needle.
   */
  static of(query: SearchQuery): ByteNeedle | undefined {
    let best: number[] = [];
    let bestBytes = 0;
    for (const term of query.terms) {
      for (const word of term.words) {
        for (const run of _runs(word)) {
          const bytes = run.reduce((n, c) => n + _utf8(c).length, 0);
          if (bytes > bestBytes) [best, bestBytes] = [run, bytes];
        }
      }
    }
    return best.length === 0 ? undefined : new ByteNeedle(best);
  }

  /**
   * Whether `bytes` may hold a match: the needle's bytes are in it, or a
   * `\uXXXX` escape of one of its characters is.
   *
   * @param bytes A line's bytes.
   * @returns False only when no text decoded from them can match.
   */
  in(bytes: Uint8Array): boolean {
    const anchor = this.#anchor;
    for (const b of this.#anchorBytes) {
      for (let i = bytes.indexOf(b, anchor); i !== -1;) {
        if (this.#at(bytes, i - anchor)) return true;
        i = bytes.indexOf(b, i + 1);
      }
    }
    if (this.escapes.size === 0) return false;
    for (let i = bytes.indexOf(_BACKSLASH); i !== -1;) {
      if (bytes[i + 1] === _U && this.#escapeAt(bytes, i)) return true;
      i = bytes.indexOf(_BACKSLASH, i + 1);
    }
    return false;
  }

  /** Whether the needle's bytes are at `at` in `bytes`. */
  #at(bytes: Uint8Array, at: number): boolean {
    if (at + this.length > bytes.length) return false;
    const allowed = this.#allowed;
    for (let j = 0; j < this.length; j++) {
      if (allowed[j * 256 + bytes[at + j]!] === 0) return false;
    }
    return true;
  }

  /** Whether the `\uXXXX` at `at` escapes one of the needle's characters. */
  #escapeAt(bytes: Uint8Array, at: number): boolean {
    if (at + 6 > bytes.length) return false;
    let unit = 0;
    for (let i = at + 2; i < at + 6; i++) {
      const c = bytes[i]! | 0x20; // digits keep, letters lower
      const d = c >= 0x30 && c <= 0x39
        ? c - 0x30
        : c >= 0x61 && c <= 0x66
        ? c - 0x57
        : -1;
      if (d < 0) return false;
      unit = unit * 16 + d;
    }
    return this.escapes.has(unit);
  }

  /**
   * The anchor: the position whose bytes cost the least to look for, a
   * pass per value it may take and the chance matches each finds.
   */
  #choose(): [number, number[]] {
    let best: [number, number[]] = [0, []];
    let bestCost = Infinity;
    for (let j = 0; j < this.length; j++) {
      const values: number[] = [];
      let cost = 0;
      for (let b = 0; b < 256; b++) {
        if (this.#allowed[j * 256 + b] === 0) continue;
        values.push(b);
        cost += _PASS + _weight(b);
      }
      if (cost < bestCost) [best, bestCost] = [[j, values], cost];
    }
    return best;
  }
}

const _BACKSLASH = 0x5c;
const _U = 0x75;

/** Per 1,000 letters of English text, a to z. */
// deno-fmt-ignore
const _LETTERS = [
  82, 15, 28, 43, 127, 22, 20, 61, 70, 1.5, 8, 40, 24,
  67, 75, 19, 1, 60, 63, 91, 28, 10, 24, 1.5, 20, 0.7,
];

/**
 * About how many of 1,000 bytes of a transcript's JSON are `b`: letters
 * by their English frequency (capitals an eighth as common), digits (ids,
 * timestamps), JSON's and code's punctuation, and UTF-8: lead bytes of
 * CJK common, continuation bytes spread over 64 values. A guide for
 * choosing the anchor, not a measure: any choice finds the same lines.
 */
function _weight(b: number): number {
  const lower = b >= 0x41 && b <= 0x5a ? b + 32 : b;
  if (lower >= 0x61 && lower <= 0x7a) {
    const w = _LETTERS[lower - 0x61]! / 2; // half the bytes are letters
    return b === lower ? w : w / 8;
  }
  if (b >= 0x30 && b <= 0x39) return 6;
  if (b === 0x20) return 120;
  if (b >= 0x80 && b <= 0xbf) return 1.5;
  if (b >= 0xe3 && b <= 0xe9) return 5;
  if (b >= 0xc2) return 2;
  if (b < 0x20 || b === 0x7f) return 0.5;
  return 5; // punctuation
}

/** A code point's UTF-8 bytes (a lone surrogate's as TextEncoder writes it, U+FFFD). */
function _utf8(c: number): number[] {
  if (c < 0x80) return [c];
  if (c < 0x800) return [0xc0 | (c >> 6), 0x80 | (c & 0x3f)];
  if (c >= 0xd800 && c <= 0xdfff) return [0xef, 0xbf, 0xbd];
  if (c < 0x10000) {
    return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)];
  }
  return [
    0xf0 | (c >> 18),
    0x80 | ((c >> 12) & 0x3f),
    0x80 | ((c >> 6) & 0x3f),
    0x80 | (c & 0x3f),
  ];
}

/**
 * The stretches of a word that the filter can use: no character that JSON
 * writes with a two-character escape, none whose case variants differ in
 * UTF-8 length, at most {@linkcode NEEDLE_MAX_BYTES}.
 */
function _runs(word: string): number[][] {
  const runs: number[][] = [];
  let run: number[] = [];
  let bytes = 0;
  for (const ch of word) {
    const c = ch.codePointAt(0)!;
    const n = _utf8(c).length;
    if (!_usable(c) || bytes + n > NEEDLE_MAX_BYTES) {
      if (run.length > 0) runs.push(run);
      run = [];
      bytes = 0;
      if (!_usable(c)) continue;
    }
    run.push(c);
    bytes += n;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

function _usable(c: number): boolean {
  if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x2f) return false;
  if (c >= 0xd800 && c <= 0xdfff) return false; // a lone surrogate
  const lengths = new Set(caseVariants(c).map((v) => _utf8(v).length));
  return lengths.size === 1;
}

/** Whether some JSON writer escapes `c` as `\uXXXX`. */
function _escapable(c: number): boolean {
  return c >= 0x7f || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x27;
}
