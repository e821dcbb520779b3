/**
 * One line of a session file as the search reads it: an entry with text,
 * a line it had to skip (damaged, or too long to parse), or nothing to
 * search. The index's facet and the scan both read lines through here.
 *
 * @module
 */

import { asEntry, type SessionEntry } from "../format/entries.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { decodeEntryLine, decodeLine, IssueLog } from "../read/_decode.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import { damagedText, entryText, type SearchRole } from "./_text.ts";

/**
 * The longest line parsed: 8 MiB. A longer line (an inline image of
 * several megabytes) is searched only as a skipped line: its first bytes.
 * It bounds what one line costs a scan (its bytes, their text and the
 * parsed entry, a few times its size).
 */
export const SEARCH_LINE_BYTES = 8 << 20;

/** Why a line was skipped. */
export type SkipReason = "damaged" | "too-long";

/** What a line gives the search. */
export type LineText =
  | {
    skip?: undefined;
    entryId: string;
    role: SearchRole;
    timestamp: string;
    text: string;
  }
  | { skip: SkipReason; text: string };

/** The entry types that hold text. */
const _TEXT_TYPES = new Set(["message", "custom_message"]);

const _envelope = new EnvelopeAt();

/**
 * Whether a line's envelope (when it starts with one) rules text out.
 *
 * @param bytes The line's first bytes (or all of them).
 * @returns True when its type holds no text.
 */
export function textlessType(bytes: Uint8Array): boolean {
  return readEnvelope(bytes, 0, bytes.length, _envelope) &&
    !_TEXT_TYPES.has(_envelope.type());
}

/**
 * What a whole line of a version 3 file gives the search.
 *
 * @param bytes The line, without its `"\n"` (or its first bytes, for a
 * line longer than {@linkcode SEARCH_LINE_BYTES}).
 * @param size The line's length (its bytes' when not given).
 * @returns Its text, or undefined.
 */
export function lineText(
  bytes: Uint8Array,
  size = bytes.length,
): LineText | undefined {
  if (size === 0 || bytes[0] === 0) return undefined; // blank, or NUL fill
  if (textlessType(bytes)) return undefined;
  if (size > SEARCH_LINE_BYTES) {
    return { skip: "too-long", text: damagedText(bytes) };
  }
  return entryLineText(bytes, parseEntryLine(bytes));
}

/**
 * Parse a whole line as the reader does (a glued second value dropped).
 *
 * @param bytes The line.
 * @returns The entry, or undefined for damage.
 */
export function parseEntryLine(bytes: Uint8Array): SessionEntry | undefined {
  const value = decodeLine(_wholeLine(bytes), new IssueLog());
  const checked = asEntry(value);
  return "entry" in checked ? checked.entry : undefined;
}

/**
 * What a line gives once parsed (a legacy file's entry comes migrated).
 *
 * @param bytes The line.
 * @param entry Its entry, or undefined when it did not parse.
 * @returns Its text, or undefined.
 */
export function entryLineText(
  bytes: Uint8Array,
  entry: SessionEntry | undefined,
): LineText | undefined {
  if (entry === undefined) {
    if (bytes.length === 0 || bytes[0] === 0) return undefined;
    return { skip: "damaged", text: damagedText(bytes) };
  }
  const found = entryText(entry);
  if (found === undefined) return undefined;
  return {
    entryId: entry.id,
    role: found.role,
    timestamp: typeof entry.timestamp === "string" ? entry.timestamp : "",
    text: found.text,
  };
}

/**
 * What a whole line of a version 1 or 2 file gives the search, read on its
 * own: decoded and migrated as the index's facet and the legacy scan do,
 * but out of its file's order, so a version 1 entry's id (minted from the
 * line's place) is not its own: the caller keeps the id it recorded.
 *
 * @param bytes The line, without its end of line.
 * @param version The file's version.
 * @returns Its text (with a stand-in id for version 1), or undefined.
 */
export function legacyLineText(
  bytes: Uint8Array,
  version: number,
): LineText | undefined {
  if (bytes.length === 0 || textlessType(bytes)) return undefined;
  const value = decodeEntryLine(_wholeLine(bytes), new IssueLog());
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    recordMigrator(version)?.({
      index: 1,
      value: value as Record<string, unknown>,
    });
  }
  const checked = asEntry(value);
  return entryLineText(bytes, "entry" in checked ? checked.entry : undefined);
}

/** A line read on its own: whole, its place unknown. */
function _wholeLine(bytes: Uint8Array) {
  return {
    bytes,
    offset: 0,
    index: -1,
    size: bytes.length + 1,
    terminated: true,
  };
}
