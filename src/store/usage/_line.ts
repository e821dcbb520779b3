/**
 * The one way a usage pass reads a line, from the files or in the index:
 * the line's bytes as they are (no migration: omp counts a version 1
 * file's id-less entries as nothing), looked at only when they hold
 * `"usage"`, parsed, and asked {@linkcode requestUsage}.
 *
 * @module
 */

import type { SessionEntry } from "../../format/entries.ts";
import { type RequestUsage, requestUsage } from "../../format/usage.ts";
import { entryFields } from "./_fields.ts";
import { recordedFields } from "./_field_values.ts";
import { findUsage, type UsageFinder } from "./_finder.ts";
import { SKELETON_PLACEHOLDER } from "./_wasm.ts";

const _decoder = new TextDecoder();

/**
 * Lines shorter than this the fields pass gave up on are parsed whole (a
 * skeleton would not pay). It pays at any length: a 342-byte side call
 * took ~0.75 µs, against ~1.3 µs to decode and parse.
 */
const _SKELETON_FROM = 512;

/**
 * The model call a line records, or undefined (no call, or not JSON).
 *
 * @param bytes The line, without its line break.
 * @param checked Whether the caller already found `"usage"` in it.
 * @returns The call's figures.
 */
export function lineRequest(
  bytes: Uint8Array,
  checked = false,
): RequestUsage | undefined {
  if (!checked && findUsage(bytes, 0, bytes.length) === -1) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(_decoder.decode(bytes));
  } catch {
    return undefined; // damage: the session's reader reports it
  }
  return _request(value);
}

/**
 * {@linkcode lineRequest} of a line in a finder's buffer: the same answer,
 * at a fraction of the cost. A WebAssembly pass over the line finds its
 * wanted fields (`_wasm_fields.ts`); where it gives up, the line's skeleton
 * (its long strings left out) is walked (`_fields.ts`), else parsed; a line
 * whose skeleton cannot be made, or whose call names a long string where a
 * short one is expected (an id, a model), is parsed whole.
 *
 * @param finder The buffer the line is in.
 * @param start Where the line starts.
 * @param end Where it ends (its line break excluded).
 * @returns The call's figures.
 */
export function chunkLineRequest(
  finder: UsageFinder,
  start: number,
  end: number,
): RequestUsage | undefined {
  const count = finder.fields(start, end);
  const recorded = count >= 0
    ? recordedFields(finder.memory, finder.records, count)
    : undefined;
  if (recorded !== undefined) return _request(recorded);
  const whole = () => lineRequest(finder.bytes.subarray(start, end), true);
  if (end - start < _SKELETON_FROM) return whole();
  const n = finder.skeleton(start, end);
  if (n < 0) return whole();
  const fields = entryFields(finder.out, 0, n);
  if (fields !== undefined) return _request(fields);
  let value: unknown;
  try {
    value = JSON.parse(_decoder.decode(finder.out.subarray(0, n)));
  } catch {
    return whole();
  }
  return _cutShort(value) ? whole() : _request(value);
}

function _request(value: unknown): RequestUsage | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return undefined;
  }
  return requestUsage(value as SessionEntry);
}

const _NAMES = ["type", "id", "timestamp"] as const;
const _CALL = ["role", "model", "provider", "api", "stopReason"] as const;

/** Whether a skeleton left out a string a call is made of. */
function _cutShort(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const e = value as Record<string, unknown>;
  const m = typeof e.message === "object" && e.message !== null
    ? e.message as Record<string, unknown>
    : {};
  return _NAMES.some((k) => e[k] === SKELETON_PLACEHOLDER) ||
    _CALL.some((k) => e[k] === SKELETON_PLACEHOLDER) ||
    _CALL.some((k) => m[k] === SKELETON_PLACEHOLDER);
}

/** A file's place in the order copies are kept in: its creation time (from its name), then its path. */
export interface FileRank {
  /** The creation time its name gives (`<ts>_<id>.jsonl`), else Infinity. */
  created: number;
  /** The file. */
  path: string;
}

/**
 * The creation time a session file's name records: omp and this library
 * name a file `<header timestamp>_<id>.jsonl`
 * (`2026-01-02T03-04-05-678Z_<id>.jsonl`), so a fork's name sorts after
 * its parent's. Read digit by digit: a pass ranks every file before it
 * reads one, and the `Date.parse` of a rebuilt ISO text took ~0.5 µs a
 * file. The same fields are accepted as `Date.parse` accepts them (a day
 * past the month's end runs over into the next; 24:00:00.000 is the next
 * day's start).
 *
 * @param path The file.
 * @returns Milliseconds since the epoch, or Infinity for another name.
 */
export function createdOf(path: string): number {
  const at = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1;
  const num = (from: number, digits: number): number => {
    let n = 0;
    for (let i = at + from; i < at + from + digits; i++) {
      const d = path.charCodeAt(i) - 48;
      if (!(d >= 0 && d <= 9)) return -1;
      n = n * 10 + d;
    }
    return n;
  };
  const is = (from: number, c: string) => path[at + from] === c;
  const year = num(0, 4), month = num(5, 2), day = num(8, 2);
  const h = num(11, 2), min = num(14, 2), s = num(17, 2);
  if (
    year < 0 || month < 1 || month > 12 || day < 1 || day > 31 ||
    h < 0 || h > 24 || min < 0 || min > 59 || s < 0 || s > 59 ||
    !is(4, "-") || !is(7, "-") || !is(10, "T") || !is(13, "-") ||
    !is(16, "-")
  ) return Infinity;
  // `-<1 to 9 digits>` (milliseconds: the first three), then `Z_`.
  let ms = 0;
  let end = 19;
  if (is(19, "-")) {
    while (end < 28 && num(end + 1, 1) >= 0) {
      if (end < 22) ms = ms * 10 + num(end + 1, 1);
      end++;
    }
    if (end === 19) return Infinity;
    for (let k = Math.min(end, 22); k < 22; k++) ms *= 10;
    end++;
  }
  if (!is(end, "Z") || !is(end + 1, "_") || !path.endsWith(".jsonl")) {
    return Infinity;
  }
  if (path.length - (at + end + 2) < 6) return Infinity; // `_` then `.jsonl`
  if (h === 24 && (min !== 0 || s !== 0 || ms !== 0)) return Infinity;
  if (year >= 100) return Date.UTC(year, month - 1, day, h, min, s, ms);
  // Date.UTC reads years 0 to 99 as 1900 to 1999 (and 1900 has no 29
  // February): the year is set first.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.setUTCHours(h, min, s, ms);
}

/**
 * The order copies of an entry are kept in: the earliest created file
 * holds it (a fork is created after its parent), then the first path in
 * code point order (the byte order SQLite sorts UTF-8 text in).
 *
 * @param a A file.
 * @param b Another.
 * @returns Negative when `a` comes first.
 */
export function compareRank(a: FileRank, b: FileRank): number {
  if (a.created !== b.created) return a.created < b.created ? -1 : 1;
  const n = Math.min(a.path.length, b.path.length);
  for (let i = 0; i < n; i++) {
    const x = a.path.charCodeAt(i);
    const y = b.path.charCodeAt(i);
    if (x !== y) return _codePointOrder(x) - _codePointOrder(y);
  }
  return a.path.length - b.path.length;
}

/** A UTF-16 unit remapped so that surrogates sort above U+E000–U+FFFF. */
function _codePointOrder(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}
