/**
 * Text for the terminal, shared by the CLI's commands: the one sanitizer
 * everything read from a file goes through before it is printed, the
 * width of text in terminal cells, cutting text to a width, byte sizes.
 *
 * @module
 */

const _ELLIPSIS = "…";
let _segmenterMade: Intl.Segmenter | undefined;

/** The grapheme segmenter, made on first use (making one costs ~20 ms). */
function _segmenter(): Intl.Segmenter {
  return _segmenterMade ??= new Intl.Segmenter();
}

/**
 * Text safe to print on a terminal: control characters (C0, C1, the line and
 * paragraph separators) become spaces.
 *
 * @param text Any text.
 * @returns The text without control characters.
 */
export function sanitize(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, " ");
}

/**
 * {@linkcode sanitize} for each line of a text: its line breaks are kept.
 *
 * @param text Lines joined by `"\n"`.
 * @returns The text without other control characters.
 */
export function sanitizeLines(text: string): string {
  return text.split("\n").map(sanitize).join("\n");
}

/**
 * The terminal cells `text` takes: wide East Asian characters and emoji take
 * two, combining marks and joiners none, everything else one.
 *
 * @param text Text without control characters.
 * @returns Its width in cells.
 */
export function textWidth(text: string): number {
  if (_ASCII.test(text)) return text.length;
  if (_needsSegmenter(text)) {
    let n = 0;
    for (const { segment } of _segmenter().segment(text)) {
      n += graphemeCells(segment);
    }
    return n;
  }
  let n = 0;
  for (let at = 0; at < text.length;) {
    const end = _graphemeEnd(text, at);
    n += end === _next(text, at)
      ? _cellsAt(text, at)
      : _cellsOf(text.slice(at, end));
    at = end;
  }
  return n;
}

/**
 * `text` cut to at most `width` cells, `…` marking the cut.
 *
 * @param text The text.
 * @param width The cells available.
 * @param from Which end is cut: `end` keeps the start, `start` the end.
 * @returns The text, whole when it fits.
 */
export function truncate(
  text: string,
  width: number,
  from: "start" | "end" = "end",
): string {
  if (textWidth(text) <= width) return text;
  if (width <= 0) return "";
  if (_ASCII.test(text)) {
    return from === "start"
      ? _ELLIPSIS + text.slice(text.length - (width - 1))
      : text.slice(0, width - 1) + _ELLIPSIS;
  }
  const graphemes = Array.from(_graphemes(text));
  if (from === "start") graphemes.reverse();
  const kept: string[] = [];
  let used = 1; // the ellipsis
  for (const [g, w] of graphemes) {
    if (used + w > width) break;
    kept.push(g);
    used += w;
  }
  if (from === "start") return _ELLIPSIS + kept.reverse().join("");
  return kept.join("") + _ELLIPSIS;
}

// deno-lint-ignore no-control-regex
const _ASCII = /^[\x00-\x7e]*$/;

/**
 * What only `Intl.Segmenter` groups rightly: spacing marks, format
 * characters (joiners among them), regional indicators, Hangul jamo,
 * viramas (Indic conjuncts), prepended letters. Text without them is
 * graphemes of one code point and its combining marks, which
 * {@linkcode _graphemes} walks itself: a table of 10,000 titles with CJK
 * and emoji took 0.6 s through the segmenter.
 */
const _COMPLEX =
  /[\p{Mc}\p{Cf}\p{Regional_Indicator}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\u094d\u09cd\u0acd\u0b4d\u0c4d\u0d4d\u0d4e\u{111c2}\u{111c3}\u{11a3a}\u{11a84}-\u{11a89}\u{11d46}]/u;

/** What joins the grapheme before it (outside {@linkcode _COMPLEX}). */
const _EXTEND = /[\p{Mn}\p{Me}\p{Emoji_Modifier}]/u;

/** Each grapheme of `text` with its cells. */
function* _graphemes(text: string): Generator<[string, number]> {
  if (_needsSegmenter(text)) {
    for (const { segment } of _segmenter().segment(text)) {
      yield [segment, graphemeCells(segment)];
    }
    return;
  }
  for (let at = 0; at < text.length;) {
    const end = _graphemeEnd(text, at);
    const g = text.slice(at, end);
    yield [g, end === _next(text, at) ? _cellsAt(text, at) : _cellsOf(g)];
    at = end;
  }
}

function _needsSegmenter(text: string): boolean {
  return _COMPLEX.test(text) ||
    (_kind(text.codePointAt(0) ?? 0) & _JOINS) !== 0;
}

/** Where the code point at `at` ends. */
function _next(text: string, at: number): number {
  return at + (text.codePointAt(at)! > 0xffff ? 2 : 1);
}

/** Where the grapheme starting at `at` ends: its code point and the marks after it. */
function _graphemeEnd(text: string, at: number): number {
  let end = _next(text, at);
  while (end < text.length && (_kind(text.codePointAt(end)!) & _JOINS) !== 0) {
    end = _next(text, end);
  }
  return end;
}

/** The cells of the lone code point at `at`. */
function _cellsAt(text: string, at: number): number {
  return (_kind(text.codePointAt(at)!) & _CELLS) - 1;
}

/** A code point's kind: its cells + 1, and whether it joins the one before. */
const _CELLS = 3;
const _JOINS = 4;
const _bmp = new Uint8Array(0x10000);
const _astral = new Map<number, number>();

function _kind(cp: number): number {
  if (cp < 0x300) return 2; // one cell, joins nothing
  let kind = cp < 0x10000 ? _bmp[cp]! : _astral.get(cp) ?? 0;
  if (kind === 0) {
    const ch = String.fromCodePoint(cp);
    kind = (graphemeCells(ch) + 1) | (_EXTEND.test(ch) ? _JOINS : 0);
    if (cp < 0x10000) _bmp[cp] = kind;
    else _astral.set(cp, kind);
  }
  return kind;
}

/** Cells of graphemes of several code points met before, up to a bound. */
const _known = new Map<string, number>();

function _cellsOf(g: string): number {
  let cells = _known.get(g);
  if (cells === undefined) {
    if (_known.size >= 4096) _known.clear();
    cells = graphemeCells(g);
    _known.set(g, cells);
  }
  return cells;
}

const _WIDE: readonly [number, number][] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x20000, 0x3fffd],
];

/**
 * The cells one grapheme takes (as `Intl.Segmenter` cuts them).
 *
 * @param grapheme One grapheme.
 * @returns 0, 1 or 2.
 */
export function graphemeCells(grapheme: string): number {
  if (/^[\p{Mn}\p{Me}\p{Cf}]+$/u.test(grapheme)) return 0;
  if (
    /\p{Extended_Pictographic}/u.test(grapheme) &&
    (/\p{Emoji_Presentation}|\uFE0F/u.test(grapheme))
  ) {
    return 2;
  }
  const cp = grapheme.codePointAt(0)!;
  return _WIDE.some(([lo, hi]) => cp >= lo && cp <= hi) ? 2 : 1;
}

/** Binary units, labelled as `gen --size` reads them (`M` = 1024²). */
const _UNITS = ["B", "KB", "MB", "GB", "TB"] as const;

/**
 * A byte count for people: `512 B`, `1.5 KB`, `45.0 MB` (binary units, as
 * `gen --size` reads them).
 *
 * @param bytes A count.
 * @returns The text.
 */
export function formatBytes(bytes: number): string {
  const power = _unitOf(bytes);
  return `${_scaled(bytes, power)} ${_UNITS[power]}`;
}

/**
 * Bytes done of a total, both in the total's unit: `45.0/100.0 MB`.
 *
 * @param done The bytes done.
 * @param total The bytes in all.
 * @returns The text.
 */
export function formatBytesOf(done: number, total: number): string {
  const power = _unitOf(total);
  return `${_scaled(done, power)}/${_scaled(total, power)} ${_UNITS[power]}`;
}

function _scaled(bytes: number, power: number): string {
  return power === 0 ? String(bytes) : (bytes / 1024 ** power).toFixed(1);
}

function _unitOf(bytes: number): number {
  let power = 0;
  while (power < _UNITS.length - 1 && Math.abs(bytes) >= 1024 ** (power + 1)) {
    power++;
  }
  return power;
}
