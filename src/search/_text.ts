/**
 * What of a line the search reads: the text people and the model wrote
 * and tools returned, and nothing else (no thinking, no tool-call
 * arguments, no images or blob references, no summaries, which repeat
 * entries the file still holds). A line is decoded by `decodeEntry`, as
 * the loader decodes it; one that holds no entry (damaged, or too long to
 * parse) is searched by its first bytes and reported. The scan, the
 * index's facet and the index's hits all read lines through
 * {@linkcode lineText}, so they search the same text.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { looksLikeBlobRef } from "../format/blob_ref.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { decodeEntry, IssueLog } from "../read/_decode.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import type { Line } from "../read/lines.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";

/**
 * The text searched per entry: its first 64 Ki UTF-16 code units (a huge
 * tool output would otherwise dominate the index; a match further in is
 * not found, by the index or by the scan).
 */
export const SEARCH_TEXT_CHARS = 64 * 1024;

/** Bytes of a line's start searched when it holds no entry: what {@linkcode SEARCH_TEXT_CHARS} takes at most. */
export const SEARCH_HEAD_BYTES = SEARCH_TEXT_CHARS * 3;

/**
 * The longest line of a version 3 file parsed: 8 MiB. A longer line (an
 * inline image of several megabytes) is searched only as a skipped line,
 * by its first bytes. It bounds what one line costs a scan (its bytes,
 * their text and the parsed entry, a few times its size).
 */
export const SEARCH_LINE_BYTES = 8 << 20;

/** Who wrote an entry's text. */
export type SearchRole = "user" | "assistant" | "tool" | "custom";

/** The roles, for checking an option. */
export const SEARCH_ROLES: readonly SearchRole[] = [
  "user",
  "assistant",
  "tool",
  "custom",
];

/** Why a line was skipped: not an entry (`damaged`), or too long to parse. */
export type SkipReason = "damaged" | "too-long";

/** What a line gives the search: an entry's text, or a skipped line's. */
export type LineText =
  | {
    skip?: undefined;
    entryId: string;
    role: SearchRole;
    timestamp: string;
    text: string;
  }
  | { skip: SkipReason; text: string };

/** A line decoded: its entry (the envelope kept of a damaged one) and whether it is damaged. */
export interface DecodedLine {
  entry: SessionEntry | undefined;
  damaged: boolean;
}

/** The entry types that hold text. */
const _TEXT_TYPES = new Set(["message", "custom_message"]);
const _envelope = new EnvelopeAt();
/** The damage of one line decoded at a time: read, then cleared. */
const _log = new IssueLog();
const _lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Whether a line's envelope (when it starts with one) rules text out.
 *
 * @param head The line's first bytes.
 * @returns True when its type holds no text.
 */
function _textless(head: Uint8Array): boolean {
  const textless = readEnvelope(head, 0, head.length, _envelope) &&
    !_TEXT_TYPES.has(_envelope.type());
  _envelope.release();
  return textless;
}

/**
 * Decode a line as the loader does. A line that is not JSON but keeps an
 * intact envelope gives that envelope (so the tree goes on past it), and
 * is damaged all the same: its text cannot be read.
 *
 * @param line The line, its bytes kept.
 * @param migrate The migration of a version 1 or 2 file's records, if any.
 * @returns The entry, and whether the line is damaged.
 */
export function decodeSearchLine(
  line: Line,
  migrate?: (record: Record<string, unknown>) => void,
): DecodedLine {
  _log.issues.length = 0;
  const entry = decodeEntry(line, _log, migrate);
  const kept = _log.issues.some((i) => i.kind === "damaged-entry");
  return { entry, damaged: entry === undefined || kept };
}

/**
 * What a line gives the search: nothing for a blank, NUL-filled or
 * textless line, or a torn last one (it cannot be told from a write under
 * way); the first bytes of a line too long to parse or damaged; else its
 * entry's text.
 *
 * @param line The line.
 * @param decoded The line decoded, when the caller has it.
 * @returns Its text, or undefined.
 */
export function lineText(
  line: Line,
  decoded?: DecodedLine,
): LineText | undefined {
  if (line.length === 0 || line.nul || _textless(line.head)) return undefined;
  if (line.oversized) return { skip: "too-long", text: _headText(line.head) };
  const { entry, damaged } = decoded ?? decodeSearchLine(line);
  if (damaged) {
    if (!line.terminated) return undefined;
    return { skip: "damaged", text: _headText(line.bytes!) };
  }
  const found = entryText(entry!);
  if (found === undefined) return undefined;
  return {
    entryId: entry!.id,
    role: found.role,
    timestamp: typeof entry!.timestamp === "string" ? entry!.timestamp : "",
    text: found.text,
  };
}

/**
 * What a line read on its own gives the search (a line the index is fed,
 * or reads back): a version 1 or 2 line is migrated alone, so its id is a
 * stand-in, for the caller to replace with the one its place gave it.
 *
 * @param bytes The line's content, or its first bytes.
 * @param version Its file's version.
 * @param length Its content's length, when `bytes` holds only its start.
 * @returns Its text, or undefined.
 */
export function storedLineText(
  bytes: Uint8Array,
  version: number,
  length: number = bytes.length,
): LineText | undefined {
  const migrate = recordMigrator(version);
  // A version 1 or 2 line is parsed up to the loader's limit, as it reads it.
  const max = migrate === undefined
    ? SEARCH_LINE_BYTES
    : DEFAULT_MAX_LINE_BYTES;
  const nul = length > 0 && bytes[0] === 0;
  const oversized = !nul && length > max;
  const line: Line = {
    offset: 0,
    size: length + 1,
    length,
    index: -1,
    terminated: true,
    head: bytes.subarray(0, SEARCH_HEAD_BYTES),
    bytes: oversized || nul ? undefined : bytes,
    oversized,
    nul,
  };
  const decoded = migrate === undefined
    ? undefined
    : decodeSearchLine(line, (value) => migrate({ index: 1, value }));
  return lineText(line, decoded);
}

/** An entry's searchable text. */
interface _EntryText {
  role: SearchRole;
  text: string;
}

/**
 * The searchable text of an entry: a user message's text, an assistant
 * message's text blocks, a tool result's text (`tool`, and so are omp's
 * `bashExecution` and `pythonExecution`: the command, then its output), a
 * `custom_message`'s text (`custom`). Undefined for anything else, or no
 * text.
 */
function entryText(entry: SessionEntry): _EntryText | undefined {
  let role: SearchRole;
  let parts: string[];
  if (entry.type === "custom_message") {
    role = "custom";
    parts = _contentText(entry.content);
  } else if (entry.type === "message") {
    const m = entry.message as unknown as Record<string, unknown> | null;
    if (m === null || typeof m !== "object") return undefined;
    switch (m.role) {
      case "user":
      case "assistant":
        role = m.role;
        parts = _contentText(m.content);
        break;
      case "toolResult":
        role = "tool";
        parts = _contentText(m.content);
        break;
      case "bashExecution":
        role = "tool";
        parts = _strings(m.command, m.output);
        break;
      case "pythonExecution":
        role = "tool";
        parts = _strings(m.code, m.output);
        break;
      default:
        return undefined;
    }
  } else return undefined;
  const text = _cut(parts.join("\n"));
  return text === "" ? undefined : { role, text };
}

/** `text` cut to {@linkcode SEARCH_TEXT_CHARS}, never inside a surrogate pair. */
function _cut(text: string): string {
  if (text.length <= SEARCH_TEXT_CHARS) return text;
  let end = SEARCH_TEXT_CHARS;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end);
}

/** The text of a line that holds no entry: its first bytes, decoded leniently and cut. */
function _headText(bytes: Uint8Array): string {
  return _cut(_lenient.decode(bytes.subarray(0, SEARCH_HEAD_BYTES)));
}

/** The text blocks of message content (a string is one). */
function _contentText(content: unknown): string[] {
  if (typeof content === "string") return _strings(content);
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "text") out.push(..._strings(b.text));
  }
  return out;
}

/** The strings among `values` that are not blob references. */
function _strings(...values: unknown[]): string[] {
  return values.filter((v): v is string =>
    typeof v === "string" && v !== "" && !looksLikeBlobRef(v)
  );
}
