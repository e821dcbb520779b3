/**
 * Entry types: the lines after the header, one JSON object each.
 *
 * Every type omp 18.3.4 writes is typed here. Any other type is kept as an
 * {@linkcode OpaqueEntry}: it sits in the tree like any entry and is written
 * back byte for byte.
 *
 * @module
 */

import type { AgentMessage, ContentBlock, Usage } from "./messages.ts";

/** The fields every entry carries, written first on every line we encode. */
export interface EntryEnvelope {
  /** The discriminator. */
  type: string;
  /** 8 lowercase hex characters for ids we mint; any string when read. */
  id: string;
  /** The parent entry's id, or null for a root. */
  parentId: string | null;
  /** ISO-8601 UTC with milliseconds. */
  timestamp: string;
}

/** A conversation message. */
export interface MessageEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "message";
  /** The message. */
  message: AgentMessage;
}

/** The active model for a role changed. */
export interface ModelChangeEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "model_change";
  /** `provider/modelId`. */
  model: string;
  /** Absent means `default`; also `smol`, `slow`, `fallback` … */
  role?: string;
  /** Whether `model` was resolved as a fallback (omp always writes it). */
  resolvedModelIsFallback?: boolean;
}

/** The thinking level changed. */
export interface ThinkingLevelChangeEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "thinking_level_change";
  /** The new level; null reads as `off`. */
  thinkingLevel: string | null;
  /** The configured selector (`auto` or a level), or null. */
  configured?: string | null;
}

/** The provider service tier changed. */
export interface ServiceTierChangeEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "service_tier_change";
  /** The new tier (an object), or null. */
  serviceTier: unknown;
}

/** History before `firstKeptEntryId` was replaced by a summary. */
export interface CompactionEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "compaction";
  /**
   * The summary that stands for the history before the kept window: a
   * string (omp), or a message object (xdev's Go store, DESIGN §3.11),
   * whose text `summaryText` reads.
   */
  summary: string | AgentMessage;
  /** A short form of the summary. */
  shortSummary?: string;
  /** null: the summary alone stands for everything before the compaction. */
  firstKeptEntryId: string | null;
  /** The context's tokens before the compaction. */
  tokensBefore: number;
  /** The context's tokens after it. */
  tokensAfter?: number;
  /** How it was made: `remote`, `snapcompact`, `handoff`, `soft`, `shake`. */
  method?: string;
  /** Extra data the compactor attached. */
  details?: unknown;
  /** Fields this library does not model; kept as read. */
  [key: string]: unknown;
}

/** A summary of an abandoned branch, attached at the branch point. */
export interface BranchSummaryEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "branch_summary";
  /**
   * The branch point, or `"root"`; absent where xdev's Go store wrote the
   * entry (its `parentId` is the branch point).
   */
  fromId?: string;
  /**
   * The summary: a string (omp), or a message object (xdev's Go store),
   * whose text `summaryText` reads; one without text reaches no context.
   */
  summary: string | AgentMessage;
  /** Extra data the summarizer attached. */
  details?: unknown;
  /** Whether an extension wrote the summary. */
  fromExtension?: boolean;
}

/** `/clear`: nothing before it reaches the model. */
export interface ResetBoundaryEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "reset_boundary";
}

/** Harness state that never reaches the model. */
export interface CustomEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "custom";
  /** Who owns the entry; `branch` for the branch marker. */
  customType: string;
  /** The owner's state (`{ to }` for the branch marker). */
  data?: unknown;
}

/** A message injected by a harness or hook (role `custom` in the context). */
export interface CustomMessageEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "custom_message";
  /** Who injected the message. */
  customType: string;
  /** The message: text, or text and image blocks. */
  content: string | ContentBlock[];
  /** Whether the UI shows it. */
  display: boolean;
  /** Extra data the harness attached. */
  details?: unknown;
  /** The source the message is attributed to. */
  attribution?: string;
}

/** A label set on (or, without `label`, cleared from) an entry. */
export interface LabelEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "label";
  /** The labelled entry's id. */
  targetId: string;
  /** The label; absent clears it. */
  label?: string;
}

/** The session was renamed. */
export interface TitleChangeEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "title_change";
  /** The full cleaned title, never cut to fit the slot. */
  title: string;
  /** On disk: `auto`, `user` or (ours) `subagent`. */
  source: string;
  /** The title before the rename, if any. */
  previousTitle?: string;
  /** What prompted the rename. */
  trigger?: string;
}

/** The contract a subagent session starts with. */
export interface SessionInitEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "session_init";
  /** The subagent's system prompt. */
  systemPrompt: string;
  /** The task it was given. */
  task: string;
  /** The tools it may use. */
  tools: string[];
  /** The rest of the contract (`agent`, `modelRole`, `outputSchema` …). */
  [key: string]: unknown;
}

/** A side call's model usage (title generation and the like). */
export interface ModelUsageEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "model_usage";
  /** What the call was for. */
  purpose: string;
  /** The provider API the call went through. */
  api: string;
  /** The provider. */
  provider: string;
  /** The model id at that provider. */
  model: string;
  /** Tokens and cost of the call. */
  usage: Usage;
  /** Why the call ended. */
  stopReason: string;
  /** The model role used, if any. */
  role?: string;
  /** What went wrong, when the call failed. */
  errorMessage?: string;
}

/** The agent's mode changed (`plan`, `none` …). */
export interface ModeChangeEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "mode_change";
  /** The new mode. */
  mode: string;
  /** Extra data for the mode. */
  data?: unknown;
}

/** Rules injected by time-to-skip-rules. */
export interface TtsrInjectionEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "ttsr_injection";
  /** The rules injected. */
  injectedRules: string[];
}

/** A credential pinned for a provider. */
export interface CredentialPinEntry extends EntryEnvelope {
  /** The discriminator. */
  type: "credential_pin";
  /** The provider the credential is pinned for. */
  provider: string;
  /** A hash naming the pinned credential. */
  hash: string;
}

/** An entry of a type this library does not know; kept byte for byte. */
export interface OpaqueEntry extends EntryEnvelope {
  /** The payload, kept as read. */
  [key: string]: unknown;
}

/** Every typed entry. */
export type KnownEntry =
  | MessageEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | ServiceTierChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | ResetBoundaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | TitleChangeEntry
  | SessionInitEntry
  | ModelUsageEntry
  | ModeChangeEntry
  | TtsrInjectionEntry
  | CredentialPinEntry;

/** Any entry of a session file. */
export type SessionEntry = KnownEntry | OpaqueEntry;

/**
 * The discriminators of {@linkcode KnownEntry}, in omp's order.
 *
 * @example Telling known entries from opaque ones
 * ```ts
 * import { KNOWN_ENTRY_TYPES } from "./entries.ts";
 * import { equal } from "node:assert/strict";
 *
 * const known = new Set<string>(KNOWN_ENTRY_TYPES);
 * equal(known.has("compaction"), true);
 * equal(known.has("xdev_probe"), false);
 * ```
 */
export const KNOWN_ENTRY_TYPES: readonly KnownEntry["type"][] = [
  "message",
  "model_change",
  "thinking_level_change",
  "service_tier_change",
  "compaction",
  "branch_summary",
  "reset_boundary",
  "custom",
  "custom_message",
  "label",
  "title_change",
  "session_init",
  "model_usage",
  "mode_change",
  "ttsr_injection",
  "credential_pin",
];

/**
 * Narrow an entry to one of the typed kinds.
 *
 * @example Reading a compaction
 * ```ts
 * import { isEntryOfType, type SessionEntry } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 * const e: SessionEntry = {
 *   type: "compaction", id: "0000000a", parentId: null,
 *   timestamp: "2026-01-01T00:00:00.000Z", summary: "s",
 *   firstKeptEntryId: null, tokensBefore: 10,
 * };
 * equal(isEntryOfType(e, "compaction"), true);
 * if (isEntryOfType(e, "compaction")) equal(e.summary, "s");
 * ```
 */
export function isEntryOfType<T extends KnownEntry["type"]>(
  entry: SessionEntry,
  type: T,
): entry is Extract<KnownEntry, { type: T }> {
  return entry.type === type;
}

/**
 * Encode an entry as one line (without `"\n"`).
 *
 * Keys keep their order: entries read from disk encode to the bytes omp
 * wrote, and entries built by this library put the envelope first.
 *
 * @example Encoding a reset
 * ```ts
 * import { encodeEntry } from "./entries.ts";
 * import { equal } from "node:assert/strict";
 * const line = encodeEntry({
 *   type: "reset_boundary", id: "0000000a", parentId: null,
 *   timestamp: "2026-01-01T00:00:00.000Z",
 * });
 * equal(
 *   line,
 *   '{"type":"reset_boundary","id":"0000000a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}',
 * );
 * ```
 */
export function encodeEntry(entry: SessionEntry): string {
  return JSON.stringify(entry);
}

/**
 * Check that a parsed JSON value has an entry's envelope.
 *
 * Only the envelope is checked: an entry whose payload is malformed (a
 * `message` without a role, say) still sits in the tree as a chain node and
 * contributes nothing to the context, so its children stay reachable.
 * `parentId` may be missing (legacy lines before migration): read it as null.
 *
 * @example Checking parsed lines
 * ```ts
 * import { asEntry } from "./entries.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 * const t = "2026-01-01T00:00:00.000Z";
 * const value = { type: "x", id: "0000000a", parentId: null, timestamp: t };
 * deepEqual(asEntry(value), { entry: value });
 * deepEqual(asEntry({ type: "x" }), { reason: "the entry has no id" });
 * equal("reason" in asEntry([]), true);
 * ```
 */
export function asEntry(
  value: unknown,
): { entry: SessionEntry } | { reason: string } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { reason: "the line is not a JSON object" };
  }
  const v = value as Record<string, unknown>;
  if (typeof v.type !== "string") return { reason: "the entry has no type" };
  if (typeof v.id !== "string" || v.id.length === 0) {
    return { reason: "the entry has no id" };
  }
  const parent = v.parentId;
  if (parent !== null && parent !== undefined && typeof parent !== "string") {
    return { reason: "the entry's parentId is not a string" };
  }
  return { entry: v as unknown as SessionEntry };
}
