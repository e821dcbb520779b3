/**
 * Text for the terminal, shared by the CLI's commands: the one sanitizer
 * everything read from a file goes through before it is printed, the width
 * of text in terminal cells and cutting text to a width, and numbers, byte
 * sizes and times for people.
 *
 * @module
 */

const _ELLIPSIS = "…";
// deno-lint-ignore no-control-regex
const _ASCII = /^[\x00-\x7e]*$/;

/**
 * What a terminal must not get from a file: control characters (C0, C1),
 * the line and paragraph separators, and the bidirectional formatting
 * characters (embeddings and overrides U+202A–U+202E, isolates
 * U+2066–U+2069, the marks U+200E, U+200F, U+061C). Those are invisible
 * and reorder the text shown around them, so a title, a path or a command
 * could read as another. The export drops the same set (its own copy, in
 * `src/export/_escape.ts`: the CLI's start loads this file alone);
 * `tests/cli/format_test.ts` keeps the two equal.
 */
const _UNSAFE =
  /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/gu;

/**
 * Text safe to print on a terminal: control characters (C0, C1, the line and
 * paragraph separators) and bidirectional controls become spaces.
 *
 * @param text Any text.
 * @returns The text without control characters.
 */
export function sanitize(text: string): string {
  return text.replace(_UNSAFE, " ");
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

let _segmenter: Intl.Segmenter | undefined;

/** Each grapheme of `text` (as `Intl.Segmenter` cuts them) with its cells. */
function* _graphemes(text: string): Generator<[string, number]> {
  _segmenter ??= new Intl.Segmenter();
  for (const { segment } of _segmenter.segment(text)) {
    yield [segment, graphemeCells(segment)];
  }
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
  let n = 0;
  for (const [, cells] of _graphemes(text)) n += cells;
  return n;
}

/**
 * `text` cut to at most `width` cells, `…` marking the cut.
 *
 * @param text The text.
 * @param width The cells available.
 * @param from Which part is cut: `end` keeps the start, `start` the end,
 * `middle` both ends (so rows that differ only at their end stay apart).
 * @returns The text, whole when it fits.
 */
export function truncate(
  text: string,
  width: number,
  from: "start" | "end" | "middle" = "end",
): string {
  if (textWidth(text) <= width) return text;
  if (width <= 0) return "";
  if (from === "middle") {
    // Half the width for the start, the ellipsis in it; the rest for the end.
    const head = truncate(text, Math.ceil(width / 2), "end").slice(0, -1);
    const tail = truncate(text, width - textWidth(head), "start");
    return head + tail;
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

/** Code point ranges of East Asian wide characters. */
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

/**
 * A moment to the minute in local time, `2026-09-28 10:05`.
 *
 * @param d The moment.
 * @returns The text.
 */
export function localMinute(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${
    p(d.getHours())
  }:${p(d.getMinutes())}`;
}

/**
 * A count and its noun, the noun in the plural but for 1: `1 image`,
 * `3 images`.
 *
 * @param n The count.
 * @param one The noun for one.
 * @param many The noun for several. Default: `one` and an `s`.
 * @returns The text.
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The fewest characters of an id a table shows (as git's short hashes). */
const _SHORT_ID_CHARS = 8;

/**
 * The shortest prefix length, at least 8, that tells every id apart: one
 * more than the longest prefix two neighbours share once sorted. Every
 * command takes such a prefix for the session.
 *
 * @example
 * ```ts
 * import { uniqueIdPrefix } from "./_format.ts";
 * console.assert(uniqueIdPrefix(["0190000001", "0190000002"]) === 10);
 * console.assert(uniqueIdPrefix(["01a0e7b8-62bc", "01a0e7b5-c8b3"]) === 8);
 * ```
 *
 * @param ids The ids of a table's rows.
 * @returns How many characters of each to show.
 */
export function uniqueIdPrefix(ids: readonly string[]): number {
  const sorted = [...new Set(ids)].sort();
  let n = _SHORT_ID_CHARS;
  let longest = _SHORT_ID_CHARS;
  for (let i = 0; i < sorted.length; i++) {
    const b = sorted[i]!;
    longest = Math.max(longest, b.length);
    if (i === 0) continue;
    const a = sorted[i - 1]!;
    let shared = 0;
    while (shared < a.length && a[shared] === b[shared]) shared++;
    n = Math.max(n, shared + 1);
  }
  return Math.min(n, longest);
}
