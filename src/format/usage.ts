/**
 * The model calls an entry records, as omp's usage statistics count them:
 * an assistant `message` and a `model_usage` entry (a side call, such as
 * a title), each with an id, a model, a provider, an api and a usage
 * object. Token counts that are not finite numbers count 0; a present
 * finite `totalTokens` is authoritative, else the buckets are summed.
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
  /** The recorded cost in dollars, or undefined when the entry records none. */
  cost: number | undefined;
  /** Whether the entry is a side call (`model_usage`) rather than an assistant turn. */
  sideCall: boolean;
}

/**
 * The model call an entry records, or undefined when it records none.
 *
 * @param entry An entry.
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
    typeof api !== "string" || !_isRecord(usage)
  ) return undefined;
  const input = _count(usage.input);
  const output = _count(usage.output);
  const cacheRead = _count(usage.cacheRead);
  const cacheWrite = _count(usage.cacheWrite);
  return {
    entryId: entry.id,
    model,
    provider,
    api,
    timestamp: _timestamp(sideCall ? undefined : source.timestamp, entry),
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: _total(usage, input + output + cacheRead + cacheWrite),
    cost: _cost(usage.cost),
    sideCall,
  };
}

function _isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function _count(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** omp's rule: a finite total is authoritative; else the buckets plus orchestration tokens. */
function _total(usage: Record<string, unknown>, buckets: number): number {
  if (
    typeof usage.totalTokens === "number" && Number.isFinite(usage.totalTokens)
  ) {
    return usage.totalTokens;
  }
  const o = _isRecord(usage.orchestration) ? usage.orchestration : {};
  return buckets + _count(o.input) + _count(o.output) + _count(o.cacheRead);
}

function _cost(v: unknown): number | undefined {
  if (!_isRecord(v)) return undefined;
  return typeof v.total === "number" && Number.isFinite(v.total)
    ? v.total
    : undefined;
}

/** The message's own ms timestamp when positive, else the entry's ISO time, else 0. */
function _timestamp(own: unknown, entry: SessionEntry): number {
  if (typeof own === "number" && Number.isFinite(own) && own > 0) return own;
  const parsed = typeof entry.timestamp === "string"
    ? Date.parse(entry.timestamp)
    : NaN;
  return Number.isFinite(parsed) ? parsed : 0;
}
