/**
 * The model calls an entry records, as omp's usage statistics count them
 * (omp-stats `parser.ts`): an assistant `message` and a `model_usage` entry
 * (a side call, such as a title), each with a non-empty string id, a
 * string model, provider and api, and a usage object.
 *
 * A token count counts when it is a non-negative safe integer; anything
 * else (a string, a negative, a fraction, `1e999`) counts 0 and marks the
 * call malformed (omp counts strings and infinities 0 too, but sums
 * negatives and fractions). A finite `totalTokens` is authoritative, else
 * the buckets are summed.
 *
 * @module
 */

import type { SessionEntry } from "./entries.ts";

/** One model call's figures. */
export interface RequestUsage {
  /** The entry's id. */
  entryId: string;
  /** The model. */
  model: string;
  /** The provider. */
  provider: string;
  /** The api. */
  api: string;
  /** When the call ended, in ms since the epoch (0 when the entry says nothing usable). */
  timestamp: number;
  /**
   * Why the call ended, as omp records it: the message's `stopReason`, else
   * `error` when it carries an `errorMessage`, else `aborted`; a side call
   * without one is `stop`.
   */
  stopReason: string;
  /** Input tokens. */
  input: number;
  /** Output tokens. */
  output: number;
  /** Input tokens read from the provider's cache. */
  cacheRead: number;
  /** Input tokens written to the provider's cache. */
  cacheWrite: number;
  /** All tokens of the call. */
  totalTokens: number;
  /**
   * The recorded cost in dollars: `usage.cost.total`, or the sum of its
   * parts when it has no total; undefined when the entry records none (or
   * a malformed one).
   */
  cost: number | undefined;
  /** Whether the entry is a side call (`model_usage`) rather than an assistant turn. */
  sideCall: boolean;
  /** Whether a token count or the cost was malformed (and counted 0). */
  malformed: boolean;
  /**
   * Whether the call records no cost, or a zero cost for tokens used: omp
   * prices such a call from its model catalog, this library counts 0.
   */
  unpriced: boolean;
}

/**
 * The model call an entry records, or undefined when it records none.
 *
 * @param entry An entry (as parsed, a version 1 file's entries have no id
 * and record none, as omp counts them; the usage pass gives them the ids
 * the loader's migration mints).
 * @returns Its figures.
 */
export function requestUsage(entry: SessionEntry): RequestUsage | undefined {
  if (typeof entry.id !== "string" || entry.id.length === 0) return undefined;
  const e = entry as unknown as Record<string, unknown>;
  let source: Record<string, unknown>;
  let sideCall = false;
  if (entry.type === "message") {
    const message = e.message;
    if (!_isRecord(message) || message.role !== "assistant") return undefined;
    source = message;
  } else if (entry.type === "model_usage") {
    source = e;
    sideCall = true;
  } else {
    return undefined;
  }
  const { model, provider, api, usage } = source;
  if (
    typeof model !== "string" || typeof provider !== "string" ||
    typeof api !== "string" || typeof usage !== "object" || usage === null
  ) return undefined;
  const bad = { malformed: Array.isArray(usage) };
  const u = usage as Record<string, unknown>;
  const input = _count(u.input, bad);
  const output = _count(u.output, bad);
  const cacheRead = _count(u.cacheRead, bad);
  const cacheWrite = _count(u.cacheWrite, bad);
  const recorded = _cost(u.cost, bad);
  const tokens = input + output + cacheRead + cacheWrite;
  return {
    entryId: entry.id,
    model,
    provider,
    api,
    timestamp: _timestamp(sideCall ? undefined : source.timestamp, entry),
    stopReason: _stopReason(source, sideCall),
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: _total(u, tokens),
    cost: recorded.cost,
    sideCall,
    malformed: bad.malformed,
    unpriced: !recorded.malformed &&
      (recorded.cost === undefined || (recorded.cost === 0 && tokens > 0)),
  };
}

function _isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A token count: absent counts 0; anything but a safe non-negative integer counts 0 and is malformed. */
function _count(v: unknown, bad: { malformed: boolean }): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  bad.malformed = true;
  return 0;
}

/** A cost in dollars: a finite non-negative number; anything else is malformed. */
function _dollars(v: unknown, bad: { malformed: boolean }): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  bad.malformed = true;
  return 0;
}

/** omp's rule: a finite total is authoritative; else the buckets plus orchestration tokens. */
function _total(usage: Record<string, unknown>, buckets: number): number {
  if (
    typeof usage.totalTokens === "number" && Number.isFinite(usage.totalTokens)
  ) {
    return usage.totalTokens;
  }
  const o = _isRecord(usage.orchestration) ? usage.orchestration : {};
  const ignore = { malformed: false };
  return buckets + _count(o.input, ignore) + _count(o.output, ignore) +
    _count(o.cacheRead, ignore);
}

/**
 * The recorded cost: `total`, or (as omp normalises a cost without one) the
 * sum of `input`, `output`, `cacheRead` and `cacheWrite`.
 */
function _cost(
  v: unknown,
  bad: { malformed: boolean },
): { cost: number | undefined; malformed: boolean } {
  if (v === undefined || v === null) {
    return { cost: undefined, malformed: false };
  }
  const own = { malformed: !_isRecord(v) };
  let cost: number | undefined;
  if (_isRecord(v)) {
    cost = v.total === undefined || v.total === null
      ? _dollars(v.input, own) + _dollars(v.output, own) +
        _dollars(v.cacheRead, own) + _dollars(v.cacheWrite, own)
      : _dollars(v.total, own);
  }
  if (own.malformed) {
    bad.malformed = true;
    return { cost: undefined, malformed: true };
  }
  return { cost, malformed: false };
}

/** omp's rule: the recorded reason; a turn without one failed (`error` with an error message, else `aborted`); a side call without one is `stop`. */
function _stopReason(
  source: Record<string, unknown>,
  sideCall: boolean,
): string {
  const reason = source.stopReason;
  if (reason !== undefined && reason !== null) {
    return typeof reason === "string" ? reason : String(reason);
  }
  if (sideCall) return "stop";
  return source.errorMessage ? "error" : "aborted";
}

/** The message's own ms timestamp when positive, else the entry's ISO time, else 0. */
function _timestamp(own: unknown, entry: SessionEntry): number {
  if (typeof own === "number" && Number.isFinite(own) && own > 0) return own;
  const parsed = typeof entry.timestamp === "string"
    ? Date.parse(entry.timestamp)
    : NaN;
  return Number.isFinite(parsed) ? parsed : 0;
}
