/**
 * The one way a usage pass reads a line, from the files or in the index:
 * the line's bytes as they are, parsed with `JSON.parse` when they may
 * hold a call (their first bytes do not say otherwise, and they hold
 * `"usage"`), and asked {@linkcode requestUsage}, as omp's statistics read
 * them.
 *
 * A usage pass reads no entries, so it does not go through the loader's
 * `decodeEntry`: as omp-stats parses every line by itself, no version 2
 * record is migrated (its migration touches no call) and an entry the
 * loader would refuse for another reason (a parent id that is no string)
 * still counts. A line that is not whole JSON goes to the loader's decoder
 * (`decodeLine`): a glued line (two objects, what omp leaves after a line
 * that lost its newline) counts its first object's call, which the loader
 * keeps and the session's context shows, where omp-stats, whose parse
 * fails, counts nothing; the second object is no entry to any reader, and
 * counts nothing.
 *
 * A version 1 file (pi's first format) is the exception: its entries have
 * no ids, and omp-stats counts none of them (a call without an id is not
 * stored). Its calls are real (times, costs), so they are counted here
 * with the ids the loader gives them ({@linkcode MigratedCalls}): every
 * line decoded and migrated as `Session.open` does, so a call's key is the
 * one a fork of the file (migrated to version 3 by the same migration) or
 * the file migrated in place at its first append repeats, and such a copy
 * counts once.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { headerVersion, type SessionHeader } from "../format/header.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { type RequestUsage, requestUsage } from "../format/usage.ts";
import {
  decodeEntry,
  decodeLine,
  IssueLog,
  wholeLine,
} from "../read/_decode.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import type { Line } from "../read/lines.ts";
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
  const usage = enveloped && at.typeIs(_MODEL_USAGE);
  const isMessage = enveloped && at.typeIs(_MESSAGE);
  at.release();
  if (usage) return true;
  if (enveloped && !isMessage) return false;
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

/**
 * Whether a file's calls are read through the loader's migration
 * ({@linkcode MigratedCalls}) rather than line by line ({@linkcode lineCall}):
 * a version 1 file, whose entries carry no ids until the migration mints
 * them. A version 2 file's entries have their ids, and are read as omp
 * reads them.
 *
 * @example
 * ```ts
 * import { mintsIds } from "./_line_call.ts";
 * import { equal } from "node:assert/strict";
 *
 * const header = { type: "session" as const, id: "s", timestamp: "", cwd: "/" };
 * equal(mintsIds({ ...header, version: 1 }), true);
 * equal(mintsIds({ ...header, version: 2 }), false);
 * ```
 *
 * @param header The file's header.
 * @returns True for a version 1 file.
 */
export function mintsIds(header: SessionHeader): boolean {
  return headerVersion(header) < 2;
}

/**
 * The calls of a version 1 file: each line decoded and migrated as the
 * loader does (`decodeEntry`, `recordMigrator`: the one migration), so
 * each call has the id `Session.open`, a fork and the in-place migration
 * give its entry. The ids are minted in file order from every record, so
 * every line after the head must be given, in order, a call or not (a
 * line too long to keep is given without its bytes, as the loader meets
 * it). Damage is skipped quietly (the loader reports it).
 *
 * @example Ids minted in file order
 * ```ts
 * import { MigratedCalls } from "./_line_call.ts";
 * import { LineSplitter } from "../read/lines.ts";
 * import { equal } from "node:assert/strict";
 *
 * const call = JSON.stringify({
 *   type: "message",
 *   timestamp: "2025-11-20T23:33:54.572Z",
 *   message: {
 *     role: "assistant", content: [], api: "anthropic-messages",
 *     provider: "anthropic", model: "claude-sonnet-4-5",
 *     usage: { input: 3, output: 191, cost: { total: 0.01 } },
 *     stopReason: "stop",
 *   },
 * });
 * const user = JSON.stringify({ type: "message", message: { role: "user", content: "hi" } });
 * const calls = new MigratedCalls(1);
 * const got = new LineSplitter().push(new TextEncoder().encode(`${user}\n${call}\n`))
 *   .map((line) => calls.call(line));
 * equal(got[0], undefined);
 * equal(got[1]?.entryId, "00000002");
 * equal(got[1]?.cost, 0.01);
 * ```
 */
export class MigratedCalls {
  readonly #migrate: (value: Record<string, unknown>) => void;
  readonly #log = new IssueLog();

  /**
   * A reader of one file's lines.
   *
   * @param version The file's header version (1 or 2).
   */
  constructor(version: number) {
    const migrate = recordMigrator(version) ?? (() => false);
    let record = 1; // the header is record 0
    this.#migrate = (value) => migrate({ index: record++, value });
  }

  /**
   * The call the next line records, or undefined.
   *
   * @param line The next line after the head (its bytes, where kept).
   * @returns The call, with its minted id.
   */
  call(line: Line): RequestUsage | undefined {
    const entry = decodeEntry(line, this.#log, this.#migrate);
    this.#log.issues.length = 0; // quiet, and holding nothing
    return entry === undefined ? undefined : requestUsage(entry);
  }
}
