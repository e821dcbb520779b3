/**
 * The scan's byte filter: a stretch of one of the query's words, as the
 * forms its characters can take in a line's JSON, so a line that cannot
 * hold a match is skipped without being decoded. A character may be
 * written raw (one of its case variants' UTF-8) or, since JSON may spell
 * any character of a string so, as `\uXXXX` (`z\u0065bra` is "zebra").
 *
 * A line holds a match only if the stretch is written in it, each of its
 * characters in one of those forms. One character of the stretch, the
 * pivot, is then written raw or escaped. Raw, it is looked for with
 * `findByte` (`Uint8Array.prototype.indexOf`) by one byte of it (an anchor, chosen rare
 * and with few values); escaped, at each `\u` of the line (rare in most
 * transcripts: writers escape little). Around each place it is, the
 * characters before it are checked backwards, those after it forwards.
 * So the filter never drops a line that matches.
 *
 * `\"`, `\\`, `\/` and control characters are never part of the stretch
 * (JSON writes them with two-character escapes); a character whose case
 * variants differ in UTF-8 length (`k` and the Kelvin sign) ends it.
 *
 * @module
 */

import { findByte } from "../read/_find_byte.ts";
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

/**
 * The bytes a stretch free of characters that writers commonly escape
 * (non-ASCII, `<`, `>`, `&`, `'`) needs to be preferred: the fewer lines
 * hold an escape of one of its characters, the fewer are decoded for
 * nothing.
 */
const _PLAIN_BYTES = 3;

/** The forms of one character, each as bytes (all of one length). */
type _Forms = Uint8Array[];

/** A character of the stretch: its forms raw, and escaped. */
interface _Char {
  raw: _Forms;
  escaped: _Forms;
}

/** A byte to look for, the values it may take, that many bytes into the pivot's raw form. */
interface _Anchor {
  values: number[];
  back: number;
  cost: number;
}

/**
 * `\u`, the start of every escape written `\uXXXX`, as one 16-bit value
 * read in the platform's byte order: looked for with
 * `Uint16Array.prototype.indexOf`, it is found only where an escape is.
 */
const _BACKSLASH_U = new Uint16Array(new Uint8Array([0x5c, 0x75]).buffer)[0]!;

/** A stretch of a word, as the bytes it may be written as. */
export class ByteNeedle {
  readonly #chars: _Char[];
  /** The pivot: the character whose forms are looked for. */
  readonly #pivot: number;
  /** The byte its raw forms are found by. */
  readonly #anchor: _Anchor;

  private constructor(codePoints: number[]) {
    this.#chars = codePoints.map((c) => {
      const variants = caseVariants(c).map((v) => String.fromCodePoint(v));
      return {
        raw: variants.map((v) => _encoder.encode(v)),
        escaped: variants.map(_escape),
      };
    });
    const anchors = this.#chars.map((c) => _anchor(c.raw));
    let pivot = 0;
    anchors.forEach((a, p) => {
      if (a.cost < anchors[pivot]!.cost) pivot = p;
    });
    this.#pivot = pivot;
    this.#anchor = anchors[pivot]!;
  }

  /**
   * The byte filter of a query: the longest usable stretch among its
   * words, or undefined when none has one (every line is decoded). A
   * stretch free of characters that writers commonly escape is preferred
   * when it has {@linkcode _PLAIN_BYTES}: fewer lines hold an escape of one
   * of its characters, so fewer are checked for nothing.
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
   * each character raw or escaped.
   *
   * @param bytes A line's bytes.
   * @returns False only when no text decoded from them can match.
   */
  in(bytes: Uint8Array): boolean {
    const { values, back } = this.#anchor;
    const raw = this.#chars[this.#pivot]!.raw;
    for (const b of values) {
      for (let i = findByte(bytes, b, back); i !== -1;) {
        const at = i - back;
        const n = _formAt(bytes, at, raw);
        if (n !== 0 && this.#around(bytes, at, at + n)) return true;
        i = findByte(bytes, b, i + 1);
      }
    }
    return this.#escapedIn(bytes);
  }

  /**
   * Whether the stretch is in `bytes` with its pivot escaped: at each
   * `\u`, looked for two bytes at a time (the pairs from even offsets,
   * then those from odd ones), the pivot's escape, then the rest.
   */
  #escapedIn(bytes: Uint8Array): boolean {
    if (bytes.length < 2) return false;
    const escaped = this.#chars[this.#pivot]!.escaped;
    for (const parity of [0, 1]) {
      const { pairs, shift } = _pairs(bytes, parity);
      for (let k = pairs.indexOf(_BACKSLASH_U); k !== -1;) {
        const at = shift + 2 * k;
        const n = _formAt(bytes, at, escaped);
        if (n !== 0 && this.#around(bytes, at, at + n)) return true;
        k = pairs.indexOf(_BACKSLASH_U, k + 1);
      }
    }
    return false;
  }

  /** Whether the characters before the pivot end at `start` and those after it start at `end`, each raw or escaped. */
  #around(bytes: Uint8Array, start: number, end: number): boolean {
    const chars = this.#chars;
    for (let j = this.#pivot - 1; j >= 0; j--) {
      const { raw, escaped } = chars[j]!;
      const n = _formBefore(bytes, start, raw) ||
        _formBefore(bytes, start, escaped);
      if (n === 0) return false;
      start -= n;
    }
    for (let j = this.#pivot + 1; j < chars.length; j++) {
      const { raw, escaped } = chars[j]!;
      const n = _formAt(bytes, end, raw) || _formAt(bytes, end, escaped);
      if (n === 0) return false;
      end += n;
    }
    return true;
  }
}

const _encoder = new TextEncoder();

/** The copy {@linkcode _pairs} makes when it must, kept for the next line while small. */
let _copy = new Uint8Array(0);
/** The largest copy kept. */
const _COPY_KEPT = 1 << 20;

/**
 * The byte pairs of `bytes` that start at its offsets of `parity` (0 or
 * 1), as 16-bit values, and the offset in `bytes` of the first. A 16-bit
 * view must start at an even offset of its buffer: where the pairs do
 * not, they are read from a copy of `bytes` a byte further on.
 */
function _pairs(
  bytes: Uint8Array,
  parity: number,
): { pairs: Uint16Array; shift: number } {
  const { buffer, byteOffset, length } = bytes;
  if (((byteOffset + parity) & 1) === 0) {
    const pairs = new Uint16Array(
      buffer,
      byteOffset + parity,
      (length - parity) >> 1,
    );
    return { pairs, shift: parity };
  }
  // bytes[parity] at an even offset of the copy: parity 1 starts at 1,
  // after a zero (its first pair starts before bytes, and holds no "\u").
  let copy = _copy;
  if (copy.length < length + 1) {
    copy = new Uint8Array(Math.max(length + 1, 2 * copy.length));
    if (copy.length <= _COPY_KEPT) _copy = copy;
  }
  copy[0] = 0;
  copy.set(bytes, parity);
  const pairs = new Uint16Array(copy.buffer, 0, (length + parity) >> 1);
  return { pairs, shift: -parity };
}

/** A code point's `\uXXXX` (two for a surrogate pair), lowercase. */
function _escape(ch: string): Uint8Array {
  let out = "";
  for (let i = 0; i < ch.length; i++) {
    out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  return _encoder.encode(out);
}

/** The length of the form of `forms` at `at` in `bytes` (a hex digit in either case), or 0. */
function _formAt(bytes: Uint8Array, at: number, forms: _Forms): number {
  next: for (const form of forms) {
    if (at < 0 || at + form.length > bytes.length) continue;
    for (let k = 0; k < form.length; k++) {
      const b = bytes[at + k]!;
      const f = form[k]!;
      if (b !== f && !(_isHexLetter(f) && (b | 0x20) === f)) continue next;
    }
    return form.length;
  }
  return 0;
}

/** The length of the form of `forms` that ends at `end` in `bytes`, or 0. */
function _formBefore(bytes: Uint8Array, end: number, forms: _Forms): number {
  const n = forms[0]!.length;
  return _formAt(bytes, end - n, forms);
}

/** Whether `b` is `a` to `f`: in an escape, `A` to `F` too. */
function _isHexLetter(b: number): boolean {
  return b >= 0x61 && b <= 0x66;
}

/**
 * The cheapest byte to look for in one character's raw forms: a pass per
 * value it may take, and the chance matches each finds.
 */
function _anchor(forms: _Forms): _Anchor {
  let best: _Anchor = { values: [], back: 0, cost: Infinity };
  for (let j = 0; j < forms[0]!.length; j++) {
    const values = new Set(forms.map((form) => form[j]!));
    let cost = 0;
    for (const v of values) cost += _PASS + _weight(v);
    if (cost < best.cost) best = { values: [...values], back: j, cost };
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

/** Whether JSON writers commonly escape `c` as `\uXXXX` (any writer may escape any character). */
function _escapable(c: number): boolean {
  return c >= 0x7f || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x27;
}
