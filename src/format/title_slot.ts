/**
 * The title slot: line 1 of a session file, a fixed-width JSON record that
 * holds the display title so it can be rewritten in place.
 *
 * @module
 */

/**
 * Width of line 1 in bytes, including its `"\n"`. omp rewrites these bytes in
 * place at offset 0, so any other width corrupts the file on omp's first
 * rename.
 *
 * @example Every slot is the same width
 * ```ts
 * import { TITLE_SLOT_BYTES } from "@xdev/session";
 * import { marshalTitleSlot } from "./title_slot.ts";
 * import { equal } from "node:assert/strict";
 *
 * const updatedAt = "2026-10-01T09:00:00.000Z";
 * equal(marshalTitleSlot({ title: "", updatedAt }).length, TITLE_SLOT_BYTES);
 * equal(marshalTitleSlot({ title: "Fix the flaky test", updatedAt }).length, TITLE_SLOT_BYTES);
 * ```
 */
export const TITLE_SLOT_BYTES = 256;

/**
 * Who set the title. On disk `"manual"` is written as `"user"` (omp refuses
 * anything but `auto` or `user`); `"subagent"` is written as is and marks a
 * child session, which resume paths skip.
 */
export type TitleSource = "auto" | "manual" | "subagent";

/** The title record of line 1, as the API speaks it. */
export interface TitleSlot {
  /** Display title; `""` for a session that has none yet. */
  title: string;
  /** Who set the title; absent when nobody has. */
  source?: TitleSource;
  /** When the title was set, ISO-8601 UTC (a new session uses its header timestamp). */
  updatedAt: string;
}

/** Result of reading line 1. */
export type TitleSlotParse =
  | {
    /** The line is a well-formed title record. */
    ok: true;
    /** The record, with its source mapped to the API's names. */
    slot: TitleSlot;
    /** Number of spaces in `pad`. */
    padBytes: number;
    /** UTF-8 byte length of the line as given, plus 1 for its `"\n"`. */
    width: number;
  }
  | {
    /** The line is a title record, but a malformed one. */
    ok: false;
    /** Why it is malformed; never includes the title text. */
    reason: string;
  };

const _encoder = new TextEncoder();

/** On-disk spelling of each source. */
const _SOURCE_TO_DISK: Readonly<Record<TitleSource, string>> = {
  auto: "auto",
  manual: "user",
  subagent: "subagent",
};

/** API name of each source accepted on read. */
const _SOURCE_FROM_DISK: ReadonlyMap<unknown, TitleSource> = new Map([
  ["auto", "auto"],
  ["user", "manual"],
  ["manual", "manual"],
  ["subagent", "subagent"],
]);

/**
 * Clean a title the way omp does before storing it: C0 and C1 control
 * characters (U+0000–U+001F, U+007F–U+009F) become spaces, runs of spaces
 * collapse to one space, and whitespace at both ends is trimmed. Other
 * whitespace inside the title (e.g. U+00A0, U+3000) is kept as is, as omp
 * keeps it.
 *
 * @param title The raw title.
 * @returns The cleaned title, possibly `""`.
 *
 * @example Cleaning a pasted title
 * ```ts
 * import { cleanTitle } from "./title_slot.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(cleanTitle("  edge\tcase\n\nwith  tabs "), "edge case with tabs");
 * assert.equal(cleanTitle("\t\r\n"), "");
 * ```
 */
export function cleanTitle(title: string): string {
  // deno-lint-ignore no-control-regex
  return title.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
    .replace(/ +/g, " ")
    .trim();
}

/**
 * Line 1 as exactly {@link TITLE_SLOT_BYTES} UTF-8 bytes ending in `"\n"`.
 *
 * Keys in order: `type` (`"title"`), `v` (`1`), `title`, `source` (omitted
 * when unset; `"manual"` written as `"user"`), `updatedAt`, `pad` (ASCII
 * spaces, possibly `""`). The title is cleaned with {@link cleanTitle}, then
 * cut to the longest prefix of whole code points whose line with `pad: ""`
 * fits, as omp's `truncateTitleForSlot` does: a surrogate pair is never
 * split, though a grapheme cluster (a ZWJ emoji sequence, a letter and its
 * combining marks) may be. Serialised with plain `JSON.stringify`, so
 * non-ASCII characters are raw UTF-8 and `"`, `\` cost two bytes each.
 *
 * @param slot The title, its source and when it was set.
 * @returns The line, {@link TITLE_SLOT_BYTES} bytes long.
 * @throws {TypeError} If `title` or `updatedAt` is not a string, or `source`
 * is set to something other than `auto`, `manual` or `subagent`.
 * @throws {RangeError} If even an empty title does not fit (an absurdly long
 * `updatedAt`).
 *
 * @example Writing the slot of a renamed session
 * ```ts
 * import { TITLE_SLOT_BYTES } from "@xdev/session";
 * import { marshalTitleSlot } from "./title_slot.ts";
 * import assert from "node:assert/strict";
 *
 * const bytes = marshalTitleSlot({
 *   title: "Fix the flaky test",
 *   source: "manual",
 *   updatedAt: "2026-09-28T10:05:06.082Z",
 * });
 * assert.equal(bytes.length, TITLE_SLOT_BYTES);
 * const line = new TextDecoder().decode(bytes);
 * assert.ok(line.startsWith(
 *   '{"type":"title","v":1,"title":"Fix the flaky test","source":"user",',
 * ));
 * assert.ok(line.endsWith('"}\n'));
 * ```
 */
export function marshalTitleSlot(slot: TitleSlot): Uint8Array {
  const { title, source, updatedAt } = slot;
  if (typeof title !== "string") {
    throw new TypeError("Cannot write the title slot: title is not a string");
  }
  if (typeof updatedAt !== "string") {
    throw new TypeError(
      "Cannot write the title slot: updatedAt is not a string",
    );
  }
  if (source !== undefined && !Object.hasOwn(_SOURCE_TO_DISK, source)) {
    throw new TypeError(
      "Cannot write the title slot: source is not auto, manual or subagent",
    );
  }
  const diskSource = source === undefined ? undefined : _SOURCE_TO_DISK[source];
  const fitted = _fitTitle(cleanTitle(title), diskSource, updatedAt);
  const unpadded = _slotLine(fitted, diskSource, updatedAt, "");
  const padBytes = TITLE_SLOT_BYTES - _encoder.encode(unpadded).length;
  if (padBytes < 0) {
    throw new RangeError(
      `Cannot write the title slot: the line without a title is ${
        TITLE_SLOT_BYTES - padBytes
      } bytes, over the ${TITLE_SLOT_BYTES}-byte slot`,
    );
  }
  const bytes = _encoder.encode(
    _slotLine(fitted, diskSource, updatedAt, " ".repeat(padBytes)),
  );
  if (bytes.length !== TITLE_SLOT_BYTES) {
    // Unreachable: each pad space is one byte. Guarding it keeps a bug here
    // from ever reaching a file, where it would corrupt the header.
    throw new RangeError(
      `Cannot write the title slot: the line is ${bytes.length} bytes, not ${TITLE_SLOT_BYTES}`,
    );
  }
  return bytes;
}

/**
 * Parse line 1 of a session file (without its `"\n"`; a trailing `"\r"` is
 * tolerated).
 *
 * Source mapping on read: `"user"` and `"manual"` become `"manual"`, `"auto"`
 * and `"subagent"` stay, an absent source stays absent. The width is not
 * checked here: compare `width` with {@link TITLE_SLOT_BYTES} before
 * rewriting the slot in place.
 *
 * @param line Line 1 of the file, without its `"\n"`.
 * @returns `undefined` when the line is not a title record at all (not JSON,
 * or JSON whose `type` is not `"title"`, such as the header of a slot-less
 * file); `{ ok: false, reason }` when it is a malformed title record (`v` not
 * 1, `title`, `updatedAt` or `pad` not strings, `pad` not all spaces, an
 * unknown `source`); otherwise `{ ok: true, slot, padBytes, width }`. Never
 * throws.
 *
 * @example Reading the slot omp wrote
 * ```ts
 * import { parseTitleSlot } from "./title_slot.ts";
 * import assert from "node:assert/strict";
 *
 * const parsed = parseTitleSlot(
 *   '{"type":"title","v":1,"title":"Fix it","source":"user",' +
 *     '"updatedAt":"2026-09-28T10:05:06.082Z","pad":"  "}',
 * );
 * assert.ok(parsed?.ok);
 * assert.equal(parsed.slot.source, "manual");
 * assert.equal(parsed.padBytes, 2);
 *
 * assert.equal(parseTitleSlot('{"type":"session","version":3}'), undefined);
 * ```
 */
export function parseTitleSlot(line: string): TitleSlotParse | undefined {
  const json = line.endsWith("\r") ? line.slice(0, -1) : line;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // Not JSON: a slot-less file or a torn line. Not a title record, so the
    // caller treats the line as an ordinary record; nothing is hidden.
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return undefined;
  }
  const record = value as Record<string, unknown>;
  if (record.type !== "title") return undefined;
  const reason = _malformedReason(record);
  if (reason !== undefined) return { ok: false, reason };
  const slot: TitleSlot = {
    title: record.title as string,
    updatedAt: record.updatedAt as string,
  };
  const source = _SOURCE_FROM_DISK.get(record.source);
  if (source !== undefined) slot.source = source;
  return {
    ok: true,
    slot,
    padBytes: (record.pad as string).length,
    width: _encoder.encode(line).length + 1,
  };
}

/** Why a `type: "title"` record is malformed, or undefined if it is not. */
function _malformedReason(record: Record<string, unknown>): string | undefined {
  if (record.v !== 1) return 'the title slot\'s "v" is not 1';
  for (const key of ["title", "updatedAt", "pad"]) {
    if (typeof record[key] !== "string") {
      return `the title slot's "${key}" is not a string`;
    }
  }
  if (!/^ *$/.test(record.pad as string)) {
    return 'the title slot\'s "pad" is not all spaces';
  }
  if (record.source !== undefined && !_SOURCE_FROM_DISK.has(record.source)) {
    return 'the title slot\'s "source" is not auto, user, manual or subagent';
  }
  return undefined;
}

/** The slot line, keys in omp's order, with its `"\n"`. */
function _slotLine(
  title: string,
  source: string | undefined,
  updatedAt: string,
  pad: string,
): string {
  const record = source === undefined
    ? { type: "title", v: 1, title, updatedAt, pad }
    : { type: "title", v: 1, title, source, updatedAt, pad };
  return `${JSON.stringify(record)}\n`;
}

/**
 * The longest prefix of whole code points of `title` whose line with
 * `pad: ""` fits the slot (binary search, as omp's `truncateTitleForSlot`).
 * Line length grows by at least one byte per code point, so no prefix of more
 * than {@link TITLE_SLOT_BYTES} code points can fit: only those are split out,
 * which bounds the work for a huge title without changing the answer.
 */
function _fitTitle(
  title: string,
  source: string | undefined,
  updatedAt: string,
): string {
  const fits = (candidate: string): boolean =>
    _encoder.encode(_slotLine(candidate, source, updatedAt, "")).length <=
      TITLE_SLOT_BYTES;
  if (fits(title)) return title;
  const codePoints: string[] = [];
  for (const codePoint of title) {
    if (codePoints.length > TITLE_SLOT_BYTES) break;
    codePoints.push(codePoint);
  }
  let low = 0;
  let high = codePoints.length;
  let best = "";
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const candidate = codePoints.slice(0, mid).join("");
    if (fits(candidate)) {
      best = candidate;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return best;
}
