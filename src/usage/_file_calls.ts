/**
 * The model calls one session file records, read as omp's statistics read
 * them: each line's bytes as they are, parsed with `JSON.parse` when they
 * may hold a call (their first bytes do not say otherwise, and they hold
 * `"usage"`), and asked {@linkcode requestUsage}.
 *
 * A usage pass reads no entries, so it does not go through the loader's
 * `decodeEntry`: omp-stats parses every line by itself, so a line counts
 * only when it is whole JSON (a glued line, whose first value the loader
 * keeps, counts nothing), no version 1 or 2 record is migrated (a version
 * 1 file's id-less entries count nothing) and an entry the loader would
 * refuse for another reason (a parent id that is no string) still counts.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { SessionSyntaxError } from "../format/errors.ts";
import { type RequestUsage, requestUsage } from "../format/usage.ts";
import type { FileHandle } from "../_fs.ts";
import { readFull } from "../read/_open.ts";
import { IssueLog } from "../read/decode.ts";
import { type Head, HeadReader } from "../read/head.ts";
import { EnvelopeAt, readEnvelope } from "../read/envelope.ts";
import {
  type JsonPrefixLimits,
  KeyTable,
  readJsonPrefix,
} from "../read/json_prefix.ts";
import { type Line, READ_BYTES, readLines } from "../read/lines.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/session_file.ts";
import { HEAD_BYTES } from "../store/_session_files.ts";

/** The bytes of a call's key. */
const _KEY = new TextEncoder().encode('"usage"');
const _QUOTE = 0x22;

/**
 * Whether `bytes` hold `"usage"`. A line without it records no call (an
 * assistant turn and a side call both carry a `usage` key), and inside a
 * JSON string a quote is always escaped (`\"`), so the seven bytes appear
 * only as a key (or a bare string value): text that mentions usage is
 * passed over. Searched from the end, where omp and this library write a
 * call's usage (after the turn's content).
 *
 * @param bytes A line's bytes.
 * @returns True when they hold the key.
 */
export function holdsUsageKey(bytes: Uint8Array): boolean {
  const last = _KEY.length - 1;
  for (
    let q = bytes.lastIndexOf(_QUOTE);
    q >= last;
    q = bytes.lastIndexOf(_QUOTE, q - 1)
  ) {
    let k = 0;
    while (k < _KEY.length && bytes[q - last + k] === _KEY[k]) k++;
    if (k === _KEY.length) return true;
  }
  return false;
}

/**
 * Bytes of a line's start read for a message's role: past an envelope of
 * long ids and the time, after which both writers put the role. A line
 * whose role lies further on is searched.
 */
const _ROLE_BYTES = 256;

/** What a line's first bytes are read for: its role, and its type where no envelope gave it. */
const _ROLE: JsonPrefixLimits = {
  stringBytes: 64,
  depth: 2,
  keys: new KeyTable(["message", "role"]),
};
const _TYPE_AND_ROLE: JsonPrefixLimits = {
  ..._ROLE,
  keys: new KeyTable(["type", "message", "role"]),
};

const _envelope = new EnvelopeAt();
const _MESSAGE = new TextEncoder().encode("message");
const _MODEL_USAGE = new TextEncoder().encode("model_usage");

/**
 * Whether a line's first bytes leave room for a call: an entry of another
 * type (neither `message` nor `model_usage`) or a message of another role
 * (not `assistant`) records none. Most of a session's bytes are tool
 * results and user turns: their lines are passed over without a search.
 * The envelope says the type without a read of the line (most lines);
 * where the first bytes do not say (a key escaped, or past them), the
 * line may hold one. A key given twice is read by its first (`JSON.parse`
 * keeps the last), as the window walk reads an envelope: no writer
 * repeats a key.
 */
function _mayHoldCall(bytes: Uint8Array): boolean {
  const at = _envelope;
  const enveloped = readEnvelope(bytes, 0, bytes.length, at);
  if (enveloped && at.typeIs(_MODEL_USAGE)) return true;
  if (enveloped && !at.typeIs(_MESSAGE)) return false;
  const end = Math.min(bytes.length, _ROLE_BYTES);
  const v = readJsonPrefix(bytes, 0, end, enveloped ? _ROLE : _TYPE_AND_ROLE);
  if (typeof v !== "object" || v === null) return true;
  const { type, message } = v as { type?: unknown; message?: unknown };
  if (!enveloped) {
    if (typeof type !== "string" || type === "model_usage") return true;
    if (type !== "message") return false;
  }
  if (typeof message !== "object" || message === null) return true;
  const role = (message as { role?: unknown }).role;
  return typeof role !== "string" || role === "assistant";
}

const _decoder = new TextDecoder();

/**
 * The model call a line records, or undefined (no call, or not JSON). The
 * index's usage facet reads its lines through it too, so both sources of
 * a report read a line the same way.
 *
 * @param bytes The line, without its line break.
 * @returns The call's figures.
 */
export function lineCall(bytes: Uint8Array): RequestUsage | undefined {
  if (!_mayHoldCall(bytes) || !holdsUsageKey(bytes)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(_decoder.decode(bytes));
  } catch (err) {
    if (err instanceof SyntaxError) return undefined; // damage: the loader reports it
    throw err;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return undefined;
  }
  return requestUsage(value as SessionEntry);
}

/** Where {@linkcode fileCalls} gives what it reads. */
export interface CallSink {
  /** The file's head, once read (before its calls). */
  head(head: Head): void;
  /** A call, in the file's order. */
  call(u: RequestUsage): void;
  /** The bytes read so far, about once a read. */
  bytes?(done: number): void;
}

/**
 * The calls of a session file: its head, then the call of each line after
 * it. The head must lie within the file's first {@linkcode HEAD_BYTES}, as
 * the list and the index read heads, so that every source agrees on which
 * files are sessions. A line longer than the loader's limit is passed
 * over, as the loader passes it over; a last line without its `"\n"`
 * counts when it is whole JSON (omp counts it).
 *
 * @param file The open file (not closed).
 * @param path Its path, for the head's errors.
 * @param size Its size: the bytes read.
 * @param sink Where the head and the calls go, as they are read.
 * @returns Why the file is no session, if it is not.
 * @throws {Error} When a read fails (the calls before it were given).
 */
export async function fileCalls(
  file: FileHandle,
  path: string,
  size: number,
  sink: CallSink,
): Promise<string | undefined> {
  const reader = new HeadReader(path, new IssueLog());
  let head: Head | undefined;
  let lines = 0;
  let reported = 0;
  for await (
    const line of readLines(file, { end: size, maxLineBytes: _KEPT_BYTES })
  ) {
    if (head === undefined) {
      const why = _headLine(reader, line, size);
      if (why !== undefined) return why;
      head = reader.head;
      if (head !== undefined) sink.head(head);
      lines++;
      continue;
    }
    const bytes = line.bytes ?? await _longLine(file, line);
    const u = bytes === undefined ? undefined : lineCall(bytes);
    if (u !== undefined) sink.call(u);
    const done = line.offset + line.size;
    if (done - reported >= READ_BYTES) sink.bytes?.(reported = done);
  }
  if (head !== undefined) return undefined;
  try {
    reader.finish(lines, size); // throws: no header was read
    return undefined;
  } catch (err) {
    if (err instanceof SessionSyntaxError) return err.reason;
    throw err;
  }
}

/**
 * Lines longer than this are not kept by the line source, only their
 * head: a long line that may hold a call is read again by itself, and
 * the rest (an image a user pasted, a large tool result) pass by without
 * a copy, so a pass over a file of long lines holds no more than a read
 * and one line (the line source copies a line cut by the end of a read,
 * into a buffer of its own, as long as it is kept whole).
 */
const _KEPT_BYTES = 64 << 10;

/**
 * The bytes of a line too long to be kept, read by themselves when its
 * head says it may hold a call and the loader would read it (it is within
 * the loader's limit); else undefined.
 */
async function _longLine(
  file: FileHandle,
  line: Line,
): Promise<Uint8Array | undefined> {
  if (!line.oversized || line.length > DEFAULT_MAX_LINE_BYTES) return undefined;
  if (!_mayHoldCall(line.head)) return undefined;
  const bytes = new Uint8Array(line.length);
  const n = await readFull(file, bytes, line.offset);
  return n === bytes.length ? bytes : undefined;
}

/**
 * Feed a line of the head to `reader`: why the file is no session, if the
 * line shows it.
 */
function _headLine(
  reader: HeadReader,
  line: Line,
  size: number,
): string | undefined {
  // A line ending past the first bytes (of a file longer than them) is
  // not within them: no complete header there.
  if (line.offset + line.size > HEAD_BYTES && size > HEAD_BYTES) {
    return `no complete header within the first ${HEAD_BYTES} bytes`;
  }
  try {
    reader.take(line);
    return undefined;
  } catch (err) {
    if (err instanceof SessionSyntaxError) return err.reason;
    throw err;
  }
}
