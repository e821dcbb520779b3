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
const _PASS = 4;

/** The bytes a stretch free of escapable characters needs to be preferred. */
const _PLAIN_BYTES = 3;

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
   * words, or undefined when none has one (every line is decoded). A
   * stretch free of characters that may come escaped is preferred when it
   * has {@linkcode _PLAIN_BYTES}: the escapes' pass over a line's
   * backslashes (common in JSON) costs more than a shorter stretch.
   *
   * @param query The query.
   * @returns The needle.
   */
  static of(query: SearchQuery): ByteNeedle | undefined {
    const runs = query.terms.flatMap((t) => t.words.flatMap(_runs));
    const plain = runs.flatMap((run) => _split(run, _escapable));
    const best = _longest(plain);
    const chosen = _bytes(best) >= _PLAIN_BYTES ? best : _longest(runs);
    return chosen.length === 0 ? undefined : new ByteNeedle(chosen);
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
    // Each "u" after a backslash (rarer in JSON than backslashes, which
    // most lines hold for their "\n" and "\"").
    for (let i = bytes.indexOf(_U, 1); i !== -1;) {
      if (bytes[i - 1] === _BACKSLASH && this.#escapeAt(bytes, i - 1)) {
        return true;
      }
      i = bytes.indexOf(_U, i + 1);
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

const _encoder = new TextEncoder();

/** A code point's UTF-8 bytes (a lone surrogate's: U+FFFD's, as written). */
function _utf8(c: number): number[] {
  return [..._encoder.encode(String.fromCodePoint(c))];
}

/**
 * The stretches of a word that the filter can use: no character that JSON
 * writes with a two-character escape, none whose case variants differ in
 * UTF-8 length, at most {@linkcode NEEDLE_MAX_BYTES}.
 */
function _runs(word: string): number[][] {
  const chars = [...word].map((ch) => ch.codePointAt(0)!);
  const runs: number[][] = [];
  for (const run of _split(chars, (c) => !_usable(c))) {
    let part: number[] = [];
    for (const c of run) {
      if (_bytes(part) + _utf8(c).length > NEEDLE_MAX_BYTES) {
        runs.push(part);
        part = [];
      }
      part.push(c);
    }
    runs.push(part);
  }
  return runs;
}

/** The runs of `chars` between those that `cut`. */
function _split(chars: number[], cut: (c: number) => boolean): number[][] {
  const runs: number[][] = [[]];
  for (const c of chars) {
    if (cut(c)) runs.push([]);
    else runs.at(-1)!.push(c);
  }
  return runs.filter((r) => r.length > 0);
}

/** The first of the runs with the most bytes (none: empty). */
function _longest(runs: number[][]): number[] {
  let best: number[] = [];
  for (const run of runs) if (_bytes(run) > _bytes(best)) best = run;
  return best;
}

/** The UTF-8 bytes of a run. */
function _bytes(run: number[]): number {
  return run.reduce((n, c) => n + _utf8(c).length, 0);
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
