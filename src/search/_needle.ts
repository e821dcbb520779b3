/**
 * The scan's byte filter: a stretch of one of the query's words, as the
 * forms its characters can take in a line's JSON (each case variant's
 * UTF-8, and for a character that some writers escape, its `\uXXXX`), so
 * a line that cannot hold a match is skipped without being decoded. It is
 * found with `Uint8Array.prototype.indexOf`: one byte (an anchor, chosen
 * rare and with few values) is looked for, and the stretch checked where
 * it is.
 *
 * `\"`, `\\`, `\/` and control characters are never part of the stretch;
 * a character whose case variants differ in UTF-8 length (`k` and the
 * Kelvin sign) ends it. A match starts with the characters before the
 * first one a writer may escape (non-ASCII, `<`, `>`, `&`, `'`), raw,
 * then that one, raw or escaped: one anchor is in those raw bytes, one in
 * that escape. So the filter never drops a line that matches.
 *
 * @module
 */

import { caseVariants } from "./_fold.ts";
import type { SearchQuery } from "./_query.ts";

/** The longest stretch used. */
const _MAX_BYTES = 64;

/**
 * What one more `indexOf` pass over a line costs, in the units of
 * {@linkcode _weight} (chance matches per 1,000 bytes, each checked): an
 * anchor with two values (a letter's cases) takes two passes, so a rarer
 * one must be worth it.
 */
const _PASS = 4;

/** The bytes a stretch free of escapable characters needs to be preferred. */
const _PLAIN_BYTES = 3;

/** The forms of one character, each as bytes (all of one length). */
type _Forms = Uint8Array[];

/** A character of the stretch: its forms raw, and escaped (none when no writer escapes it). */
interface _Char {
  raw: _Forms;
  escaped: _Forms;
}

/** A byte to look for, the values it may take, that many bytes after a match's start. */
interface _Anchor {
  values: number[];
  back: number;
}

/** A stretch of a word, as the bytes it may be written as. */
export class ByteNeedle {
  readonly #chars: _Char[];
  readonly #anchors: _Anchor[];

  private constructor(codePoints: number[]) {
    this.#chars = codePoints.map((c) => {
      const variants = caseVariants(c);
      const raw = variants.map((v) => _encoder.encode(String.fromCodePoint(v)));
      return { raw, escaped: _escapable(c) ? variants.map(_escape) : [] };
    });
    const k = this.#chars.findIndex((c) => c.escaped.length > 0);
    const lead = this.#chars.slice(0, k === -1 ? undefined : k + 1);
    this.#anchors = [_anchor(lead.map((c) => c.raw), 0)];
    if (k !== -1) {
      const before = lead.slice(0, k).reduce((n, c) => n + c.raw[0]!.length, 0);
      this.#anchors.push(_anchor([this.#chars[k]!.escaped], before));
    }
  }

  /**
   * The byte filter of a query: the longest usable stretch among its
   * words, or undefined when none has one (every line is decoded). A
   * stretch free of characters that may come escaped is preferred when it
   * has {@linkcode _PLAIN_BYTES}: looking for an escape too costs a pass.
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
   * Whether `bytes` may hold a match: the stretch is written in them,
   * each character in one of its forms.
   *
   * @param bytes A line's bytes.
   * @returns False only when no text decoded from them can match.
   */
  in(bytes: Uint8Array): boolean {
    for (const { values, back } of this.#anchors) {
      for (const b of values) {
        for (let i = bytes.indexOf(b, back); i !== -1;) {
          if (this.#at(bytes, i - back)) return true;
          i = bytes.indexOf(b, i + 1);
        }
      }
    }
    return false;
  }

  /** Whether the stretch is written at `at`. */
  #at(bytes: Uint8Array, at: number): boolean {
    for (const { raw, escaped } of this.#chars) {
      const n = _formAt(bytes, at, raw) || _formAt(bytes, at, escaped);
      if (n === 0) return false;
      at += n;
    }
    return true;
  }
}

const _encoder = new TextEncoder();

/** A code point's `\uXXXX` (two for a surrogate pair), lowercase. */
function _escape(c: number): Uint8Array {
  const s = String.fromCodePoint(c);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    out += `\\u${s.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  return _encoder.encode(out);
}

/** The length of the form of `forms` at `at` in `bytes` (a hex digit in either case), or 0. */
function _formAt(bytes: Uint8Array, at: number, forms: _Forms): number {
  next: for (const form of forms) {
    if (at + form.length > bytes.length) continue;
    for (let k = 0; k < form.length; k++) {
      const b = bytes[at + k]!;
      const f = form[k]!;
      if (b !== f && !(_isHexLetter(f) && (b | 0x20) === f)) continue next;
    }
    return form.length;
  }
  return 0;
}

/** Whether `b` is `a` to `f`: in an escape, `A` to `F` too. */
function _isHexLetter(b: number): boolean {
  return b >= 0x61 && b <= 0x66;
}

/**
 * The cheapest byte to look for in a sequence of characters (each given
 * by its forms): a pass per value it may take, and the chance matches
 * each finds.
 */
function _anchor(chars: _Forms[], back: number): _Anchor {
  let best: _Anchor = { values: [], back };
  let cost = Infinity;
  let offset = back;
  for (const forms of chars) {
    for (let j = 0; j < forms[0]!.length; j++) {
      const values = new Set<number>();
      for (const form of forms) {
        values.add(form[j]!);
        if (_isHexLetter(form[j]!)) values.add(form[j]! - 0x20);
      }
      let c = 0;
      for (const v of values) c += _PASS + _weight(v);
      if (c < cost) {
        [best, cost] = [{ values: [...values], back: offset + j }, c];
      }
    }
    offset += forms[0]!.length;
  }
  return best;
}

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
  if (b === 0x5c || b === 0x22) return 20; // JSON's escapes and quotes
  if (b >= 0x80 && b <= 0xbf) return 1.5;
  if (b >= 0xe3 && b <= 0xe9) return 5;
  if (b >= 0xc2) return 2;
  if (b < 0x20 || b === 0x7f) return 0.5;
  return 5; // punctuation
}

/** A code point's length in UTF-8. */
function _utf8Length(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/**
 * The stretches of a word that the filter can use: no character that JSON
 * writes with a two-character escape, none whose case variants differ in
 * UTF-8 length, at most {@linkcode _MAX_BYTES}.
 */
function _runs(word: string): number[][] {
  const chars = [...word].map((ch) => ch.codePointAt(0)!);
  const runs: number[][] = [];
  for (const run of _split(chars, (c) => !_usable(c))) {
    let part: number[] = [];
    for (const c of run) {
      if (_bytes(part) + _utf8Length(c) > _MAX_BYTES) {
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
  return run.reduce((n, c) => n + _utf8Length(c), 0);
}

function _usable(c: number): boolean {
  if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x2f) return false;
  if (c >= 0xd800 && c <= 0xdfff) return false; // a lone surrogate
  const lengths = new Set(caseVariants(c).map((v) => _utf8Length(v)));
  return lengths.size === 1;
}

/** Whether some JSON writer escapes `c` as `\uXXXX`. */
function _escapable(c: number): boolean {
  return c >= 0x7f || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x27;
}
