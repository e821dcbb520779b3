/**
 * The one way a usage pass reads a line, from the files or in the index:
 * the line's bytes as they are, parsed with `JSON.parse` when they may
 * hold a call (their first bytes do not say otherwise, and they hold
 * `"usage"`), and asked {@linkcode requestUsage}, as omp's statistics read
 * them.
 *
 * A usage pass reads no entries, so it does not go through the loader's
 * `decodeEntry`: as omp-stats parses every line by itself, no version 1
 * or 2 record is migrated (a version 1 file's id-less entries count
 * nothing) and an entry the loader would refuse for another reason (a
 * parent id that is no string) still counts. A line that is not whole
 * JSON goes to the loader's decoder (`decodeLine`): a glued line (two
 * objects, what omp leaves after a line that lost its newline) counts its
 * first object's call, which the loader keeps and the session's context
 * shows, where omp-stats, whose parse fails, counts nothing; the second
 * object is no entry to any reader, and counts nothing.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { type RequestUsage, requestUsage } from "../format/usage.ts";
import { decodeLine, IssueLog, wholeLine } from "../read/_decode.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import {
  type JsonPrefixLimits,
  KeyTable,
  readJsonPrefix,
} from "../read/_json_prefix.ts";

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
 *
 * @param bytes A line's bytes, or its first bytes (a line's `head`).
 * @returns False when the line cannot hold a call.
 */
export function mayHoldCall(bytes: Uint8Array): boolean {
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
  if (!mayHoldCall(bytes) || !holdsUsageKey(bytes)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(_decoder.decode(bytes));
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // Damage, the loader's to report: read as it reads it (a glued line
    // gives its first object; other damage, nothing).
    value = decodeLine(wholeLine(bytes), new IssueLog());
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return undefined;
  }
  return requestUsage(value as SessionEntry);
}
