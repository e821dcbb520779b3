/**
 * Entry types: the lines after the header, one JSON object each.
 *
 * Every type omp 18.3.4 writes is typed here. Any other type is kept as an
 * {@linkcode OpaqueEntry}: it sits in the tree like any entry and is written
 * back byte for byte.
 *
 * @module
 */

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

/** A text block. */
export interface TextBlock {
  type: "text";
  text: string;
  [key: string]: unknown;
}

/** A model's visible reasoning; signed when the provider attached a signature. */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  [key: string]: unknown;
}

/** A tool call made by the assistant. */
export interface ToolCallBlock {
  type: "toolCall";
  id: string;
  name: string;
  arguments: unknown;
  [key: string]: unknown;
}

/**
 * An image. `data` is base64, or a `blob:sha256:<hex>` reference to the blob
 * store when it was stored out of band.
 */
export interface ImageBlock {
  type: "image";
  data: string;
  mimeType: string;
  [key: string]: unknown;
}

/** A block type this library does not model; kept as read. */
export interface OtherBlock {
  type: string;
  [key: string]: unknown;
}

/** One block of a message's content. */
export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | ToolCallBlock
  | ImageBlock
  | OtherBlock;

/** Token counts and cost of one model call. */
export interface Usage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
  /** omp 18.3.4 crashes on a usage without cost: the writer always fills one. */
  cost?: {
    input: number;
    output: number;
    cacheRead?: number;
    cacheWrite?: number;
    total: number;
  };
  [key: string]: unknown;
}

/** A user turn. */
export interface UserMessage {
  role: "user";
  content: string | ContentBlock[];
  timestamp?: number;
  [key: string]: unknown;
}

/** Why an assistant turn ended. */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** An assistant turn. */
export interface AssistantMessage {
  role: "assistant";
  content: ContentBlock[];
  api?: string;
  provider?: string;
  model?: string;
  usage?: Usage;
  stopReason?: StopReason | string;
  errorMessage?: string;
  timestamp?: number;
  [key: string]: unknown;
}

/** The result of one tool call. */
export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: ContentBlock[];
  isError: boolean;
  details?: unknown;
  timestamp?: number;
  [key: string]: unknown;
}

/** A message of another role (developer, custom, bashExecution …). */
export interface OtherMessage {
  role: string;
  [key: string]: unknown;
}

/** What a `message` entry holds. */
export type AgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | OtherMessage;

/** A conversation message. */
export interface MessageEntry extends EntryEnvelope {
  type: "message";
  message: AgentMessage;
}

/** The active model for a role changed. */
export interface ModelChangeEntry extends EntryEnvelope {
  type: "model_change";
  /** `provider/modelId`. */
  model: string;
  /** Absent means `default`; also `smol`, `slow`, `fallback` … */
  role?: string;
  resolvedModelIsFallback?: boolean;
}

/** The thinking level changed. */
export interface ThinkingLevelChangeEntry extends EntryEnvelope {
  type: "thinking_level_change";
  thinkingLevel: string | null;
  configured?: string | null;
}

/** The provider service tier changed. */
export interface ServiceTierChangeEntry extends EntryEnvelope {
  type: "service_tier_change";
  serviceTier: unknown;
}

/** History before `firstKeptEntryId` was replaced by a summary. */
export interface CompactionEntry extends EntryEnvelope {
  type: "compaction";
  summary: string;
  shortSummary?: string;
  /** null: the summary alone stands for everything before the compaction. */
  firstKeptEntryId: string | null;
  tokensBefore: number;
  tokensAfter?: number;
  method?: string;
  details?: unknown;
  [key: string]: unknown;
}

/** A summary of an abandoned branch, attached at the branch point. */
export interface BranchSummaryEntry extends EntryEnvelope {
  type: "branch_summary";
  /** The branch point, or `"root"`. */
  fromId: string;
  summary: string;
  details?: unknown;
  fromExtension?: boolean;
}

/** `/clear`: nothing before it reaches the model. */
export interface ResetBoundaryEntry extends EntryEnvelope {
  type: "reset_boundary";
}

/** Harness state that never reaches the model. */
export interface CustomEntry extends EntryEnvelope {
  type: "custom";
  customType: string;
  data?: unknown;
}

/** A message injected by a harness or hook (role `custom` in the context). */
export interface CustomMessageEntry extends EntryEnvelope {
  type: "custom_message";
  customType: string;
  content: string | ContentBlock[];
  display: boolean;
  details?: unknown;
  attribution?: string;
}

/** A label set on (or, without `label`, cleared from) an entry. */
export interface LabelEntry extends EntryEnvelope {
  type: "label";
  targetId: string;
  label?: string;
}

/** The session was renamed. */
export interface TitleChangeEntry extends EntryEnvelope {
  type: "title_change";
  title: string;
  /** On disk: `auto`, `user` or (ours) `subagent`. */
  source: string;
  previousTitle?: string;
  trigger?: string;
}

/** The contract a subagent session starts with. */
export interface SessionInitEntry extends EntryEnvelope {
  type: "session_init";
  systemPrompt: string;
  task: string;
  tools: string[];
  [key: string]: unknown;
}

/** A side call's model usage (title generation and the like). */
export interface ModelUsageEntry extends EntryEnvelope {
  type: "model_usage";
  purpose: string;
  api: string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: string;
  role?: string;
  errorMessage?: string;
}

/** The agent's mode changed (`plan`, `none` …). */
export interface ModeChangeEntry extends EntryEnvelope {
  type: "mode_change";
  mode: string;
  data?: unknown;
}

/** Rules injected by time-to-skip-rules. */
export interface TtsrInjectionEntry extends EntryEnvelope {
  type: "ttsr_injection";
  injectedRules: string[];
}

/** A credential pinned for a provider. */
export interface CredentialPinEntry extends EntryEnvelope {
  type: "credential_pin";
  provider: string;
  hash: string;
}

/** An entry of a type this library does not know; kept byte for byte. */
export interface OpaqueEntry extends EntryEnvelope {
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

/** The discriminators of {@linkcode KnownEntry}, in omp's order. */
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

/** `customType` of the branch marker (DESIGN §3.6). */
export const BRANCH_MARKER_TYPE = "branch";

/** Length of the entry ids this library mints. */
export const ENTRY_ID_LENGTH = 8;

/**
 * Narrow an entry to one of the typed kinds.
 *
 * @example Reading a compaction
 * ```ts
 * import { isEntryOfType, type SessionEntry } from "@xdev/session";
 * const e: SessionEntry = {
 *   type: "compaction", id: "0000000a", parentId: null,
 *   timestamp: "2026-01-01T00:00:00.000Z", summary: "s",
 *   firstKeptEntryId: null, tokensBefore: 10,
 * };
 * if (isEntryOfType(e, "compaction")) console.assert(e.summary === "s");
 * ```
 *
 * @param entry Any entry.
 * @param type The discriminator to test.
 * @returns Whether `entry.type` is `type`.
 */
export function isEntryOfType<T extends KnownEntry["type"]>(
  entry: SessionEntry,
  type: T,
): entry is Extract<KnownEntry, { type: T }> {
  return entry.type === type;
}

/**
 * Whether an entry is the branch marker of DESIGN §3.6: a `custom` entry
 * with `customType: "branch"` whose `data.to` names the new leaf.
 *
 * @example
 * ```ts
 * import { branchMarkerTarget } from "@xdev/session";
 * const marker = {
 *   type: "custom", customType: "branch", data: { to: "0000000a" },
 *   id: "0000000b", parentId: "0000000a", timestamp: "2026-01-01T00:00:00.000Z",
 * };
 * console.assert(branchMarkerTarget(marker) === "0000000a");
 * ```
 *
 * @param entry Any entry.
 * @returns The target id, or undefined when `entry` is not a marker.
 */
export function branchMarkerTarget(entry: SessionEntry): string | undefined {
  if (entry.type !== "custom" || entry.customType !== BRANCH_MARKER_TYPE) {
    return undefined;
  }
  const data = entry.data;
  if (data === null || typeof data !== "object") return undefined;
  const to = (data as { to?: unknown }).to;
  return typeof to === "string" && to.length > 0 ? to : undefined;
}

/**
 * Mint an entry id: 8 lowercase hex characters not in `taken`.
 *
 * @example
 * ```ts
 * import { newEntryId } from "@xdev/session";
 * const id = newEntryId(new Set());
 * console.assert(/^[0-9a-f]{8}$/.test(id));
 * ```
 *
 * @param taken Ids already used in the session.
 * @returns A fresh id.
 * @throws {RangeError} When no free id is found in 1,000 draws (a session
 * holding billions of entries).
 */
export function newEntryId(taken: { has(id: string): boolean }): string {
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 1000; i++) {
    crypto.getRandomValues(bytes);
    let id = "";
    for (const b of bytes) id += b.toString(16).padStart(2, "0");
    if (!taken.has(id)) return id;
  }
  throw new RangeError("Cannot mint an entry id: 1000 draws collided");
}

/**
 * Encode an entry as one line (without `"\n"`).
 *
 * Keys keep their order: entries read from disk encode to the bytes omp
 * wrote, and entries built by this library put the envelope first.
 *
 * @example
 * ```ts
 * import { encodeEntry } from "@xdev/session";
 * const line = encodeEntry({
 *   type: "reset_boundary", id: "0000000a", parentId: null,
 *   timestamp: "2026-01-01T00:00:00.000Z",
 * });
 * console.assert(line.startsWith('{"type":"reset_boundary","id":"0000000a"'));
 * ```
 *
 * @param entry The entry.
 * @returns One line of JSON.
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
 * @param value A parsed line.
 * @returns The value typed as an entry, or a reason it is not one.
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
  if (
    v.parentId !== null && v.parentId !== undefined &&
    typeof v.parentId !== "string"
  ) {
    return { reason: "the entry's parentId is not a string" };
  }
  return { entry: v as unknown as SessionEntry };
}
