/**
 * The scan's byte filter: a stretch of one of the query's words, as the
 * bytes it can take in a line (every case variant, byte by byte), so a
 * line that cannot hold a match is skipped without being decoded.
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

/** The longest stretch used (the kernel looks this far ahead). */
export const NEEDLE_MAX_BYTES = 64;

const _encoder = new TextEncoder();

/** A stretch of a word, as bytes. */
export class ByteNeedle {
  /** Its length in bytes. */
  readonly length: number;
  /** The kernel's anchors: positions and the bytes each may be. */
  readonly anchors: {
    first: number;
    second: number;
    firstBytes: [number, number];
    secondBytes: [number, number];
  } | undefined;
  /** UTF-16 code units whose `\uXXXX` escape lets a line pass; empty when none. */
  readonly escapes: ReadonlySet<number>;
  /** `allowed[j * 256 + b]`: byte `b` may be at position `j`. */
  readonly #allowed: Uint8Array;

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
    this.anchors = this.#anchors();
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
   * Whether the needle's bytes are at `at` in `bytes`.
   *
   * @param bytes The buffer.
   * @param at Where to look.
   * @param end The end of the bytes that may be used.
   * @returns True when they are.
   */
  at(bytes: Uint8Array, at: number, end: number): boolean {
    if (at + this.length > end) return false;
    const allowed = this.#allowed;
    for (let j = 0; j < this.length; j++) {
      if (allowed[j * 256 + bytes[at + j]!] === 0) return false;
    }
    return true;
  }

  /**
   * Whether the `\uXXXX` at `at` escapes one of the needle's characters.
   *
   * @param bytes The buffer.
   * @param at Where the backslash is.
   * @param end The end of the bytes that may be used.
   * @returns True when it does.
   */
  escapeAt(bytes: Uint8Array, at: number, end: number): boolean {
    if (at + 6 > end) return false;
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

  /** Two positions whose bytes take at most two values each, far apart. */
  #anchors(): ByteNeedle["anchors"] {
    const usable: [number, [number, number]][] = [];
    for (let j = 0; j < this.length; j++) {
      const values: number[] = [];
      for (let b = 0; b < 256; b++) {
        if (this.#allowed[j * 256 + b] === 1) values.push(b);
      }
      if (values.length <= 2) {
        usable.push([j, [values[0]!, values.at(-1)!]]);
      }
    }
    if (usable.length === 0) return undefined;
    const [first, firstBytes] = usable[0]!;
    const [second, secondBytes] = usable.at(-1)!;
    return { first, second, firstBytes, secondBytes };
  }
}

function _utf8(c: number): Uint8Array {
  return _encoder.encode(String.fromCodePoint(c));
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
