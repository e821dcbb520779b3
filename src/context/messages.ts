/**
 * The messages of a rebuilt context: what each emitted entry contributes.
 *
 * @module
 */

import { parseBlobRef } from "../format/blob_ref.ts";
import { type BlobSlotVisit, mapLoadedSlots } from "../format/_blob_slots.ts";
import type { CompactionEntry, SessionEntry } from "../format/entries.ts";
import {
  type AgentMessage,
  type AssistantMessage,
  type ContentBlock,
  summaryMessage,
  summaryText,
} from "../format/messages.ts";

/** The summary that stands for history before a compaction. */
export interface CompactionSummaryMessage {
  /** The discriminator. */
  role: "compactionSummary";
  /** The compaction's summary: its text, what the model is given. */
  summary: string;
  /**
   * The summary as written, when xdev's Go store wrote it as a message
   * object (DESIGN §3.11); `summary` is its text. `context --json` prints
   * it, as omp keeps it.
   */
  summaryMessage?: AgentMessage;
  /** The compaction's short summary, when it has one. */
  shortSummary?: string;
  /** The context's tokens before the compaction; 0 when it gave none. */
  tokensBefore: number;
  /** The compaction entry's timestamp (ISO-8601). */
  timestamp: string;
}

/** The summary of an abandoned branch. */
export interface BranchSummaryMessage {
  /** The discriminator. */
  role: "branchSummary";
  /** The summary's text, never empty: what the model is given. */
  summary: string;
  /** The summary as written, when it is a message object (see {@linkcode CompactionSummaryMessage}). */
  summaryMessage?: AgentMessage;
  /** The branch point, or `"root"`; absent when the entry names none (xdev's). */
  fromId?: string;
  /** The branch_summary entry's timestamp (ISO-8601). */
  timestamp: string;
}

/** A harness message (from a `custom_message` entry). */
export interface CustomContextMessage {
  /** The discriminator. */
  role: "custom";
  /** Who injected the message; `custom` when the entry named no one. */
  customType: string;
  /** The message, with blob references resolved where the blobs exist. */
  content: string | ContentBlock[];
  /** Whether the UI shows it; false when the entry did not say. */
  display: boolean;
  /** Extra data the harness attached. */
  details?: unknown;
  /** The custom_message entry's timestamp (ISO-8601). */
  timestamp: string;
}

/** One message of the rebuilt context. */
export type ContextMessage =
  | AgentMessage
  | CompactionSummaryMessage
  | BranchSummaryMessage
  | CustomContextMessage;

/** How blob references in content are resolved while messages are made. */
export interface ResolveBlobs {
  /**
   * Base64 data for a blob digest, or undefined when the blob is missing (the
   * reference is then left in place).
   */
  resolveBlob?: ((hex: string) => string | undefined) | undefined;
  /**
   * The text of a blob, or undefined to leave the reference: for a
   * tool-result text block that is exactly a reference, and for an
   * `image_url` data URL (stored as its UTF-8).
   */
  resolveText?: ((hex: string) => string | undefined) | undefined;
}

/** custom_message types omp keeps out of the model context. */
const _HIDDEN_CUSTOM_TYPES = new Set(["prewalk-plan", "vibe-mode-context"]);

/** The message an emitted entry contributes, if any. */
export function toMessage(
  e: SessionEntry,
  options: ResolveBlobs,
): ContextMessage | undefined {
  switch (e.type) {
    case "compaction": {
      const c = e as CompactionEntry;
      const m: CompactionSummaryMessage = {
        role: "compactionSummary",
        summary: summaryText(c.summary),
        tokensBefore: typeof c.tokensBefore === "number" ? c.tokensBefore : 0,
        timestamp: e.timestamp,
      };
      const written = summaryMessage(c.summary);
      if (written !== undefined) m.summaryMessage = written;
      if (typeof c.shortSummary === "string") m.shortSummary = c.shortSummary;
      return m;
    }
    case "branch_summary": {
      const summary = summaryText(e.summary);
      if (summary.length === 0) return;
      const m: BranchSummaryMessage = {
        role: "branchSummary",
        summary,
        timestamp: e.timestamp,
      };
      const written = summaryMessage(e.summary);
      if (written !== undefined) m.summaryMessage = written;
      if (typeof e.fromId === "string") m.fromId = e.fromId;
      return m;
    }
    case "custom_message": {
      if (
        typeof e.customType === "string" &&
        _HIDDEN_CUSTOM_TYPES.has(e.customType)
      ) return;
      const content = e.content;
      if (typeof content !== "string" && !Array.isArray(content)) return;
      const m: CustomContextMessage = {
        role: "custom",
        customType: typeof e.customType === "string" && e.customType.length > 0
          ? e.customType
          : "custom",
        content: _resolve(content, "content", options),
        display: typeof e.display === "boolean" ? e.display : false,
        timestamp: e.timestamp,
      };
      if (e.details !== undefined) {
        m.details = _resolve(e.details, "details", options);
      }
      return m;
    }
    case "message": {
      const m = e.message as AgentMessage | undefined;
      if (m === null || typeof m !== "object" || typeof m.role !== "string") {
        return;
      }
      if (m.role === "assistant") {
        const a = m as AssistantMessage;
        if (!Array.isArray(a.content)) return;
        if (a.retryRecovery === true || _isEmptyErrorTurn(a)) return;
      }
      const resolved = _resolve(m, "message", options);
      return m.role === "toolResult"
        ? _resolveTexts(resolved, options)
        : resolved;
    }
    default:
      return;
  }
}

/**
 * Replace blob references by their data wherever omp resolves them (image
 * blocks under `content`, `images[]` entries, image generation results,
 * `image_url` data URLs; at any depth), copying on write. Each reference
 * passes the one gate, `parseBlobRef`.
 */
function _resolve<T>(value: T, key: string, options: ResolveBlobs): T {
  const { resolveBlob, resolveText } = options;
  if (resolveBlob === undefined && resolveText === undefined) return value;
  const visit: BlobSlotVisit = (slot) => {
    const hex = parseBlobRef(slot.value);
    if (hex === undefined) return undefined;
    return slot.kind === "url" ? resolveText?.(hex) : resolveBlob?.(hex);
  };
  return mapLoadedSlots(value, visit, key) as T;
}

/** A tool result's text blocks that are exactly a reference, resolved (ours only). */
function _resolveTexts<T extends AgentMessage>(
  m: T,
  options: ResolveBlobs,
): T {
  const { resolveText } = options;
  if (resolveText === undefined || !Array.isArray(m.content)) return m;
  const content = m.content as ContentBlock[];
  let out: ContentBlock[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (block?.type !== "text" || typeof block.text !== "string") continue;
    const hex = parseBlobRef(block.text);
    const text = hex === undefined ? undefined : resolveText(hex);
    if (text !== undefined) (out ??= content.slice())[i] = { ...block, text };
  }
  return out === undefined ? m : { ...m, content: out };
}

/** An error turn with nothing in it (omp skips those). */
function _isEmptyErrorTurn(m: AssistantMessage): boolean {
  if (m.stopReason !== "error") return false;
  return !m.content.some((b) => {
    switch (b.type) {
      case "text":
        return typeof b.text === "string" && b.text.trim().length > 0;
      case "thinking":
        return (typeof b.thinking === "string" &&
          b.thinking.trim().length > 0) ||
          (typeof b.thinkingSignature === "string" &&
            b.thinkingSignature.trim().length > 0);
      case "redactedThinking":
        return typeof b.data === "string" && b.data.trim().length > 0;
      case "fallback":
        return false;
      default:
        return true;
    }
  });
}

/**
 * The hygiene rules: tool calls without a result are removed (the turn also
 * loses redacted thinking and thinking signatures; an emptied turn is
 * dropped), then assistant turns that were aborted or failed are dropped with
 * their tool results.
 */
export function cleanMessages(
  input: readonly (ContextMessage | undefined)[],
): ContextMessage[] {
  const messages = input.filter((m): m is ContextMessage => m !== undefined);
  const results = new Set<string>();
  for (const m of messages) {
    if (m.role === "toolResult") results.add(String(m.toolCallId));
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const content = (m as AssistantMessage).content;
    const dangling = (b: ContentBlock): boolean =>
      b.type === "toolCall" && !results.has(String(b.id));
    if (!content.some(dangling)) continue;
    const kept = content
      .filter((b) => !dangling(b) && b.type !== "redactedThinking")
      .map((b) => {
        if (b.type !== "thinking" || !b.thinkingSignature) return b;
        const { thinkingSignature: _, ...rest } = b;
        return rest as ContentBlock;
      });
    if (kept.length === 0) messages.splice(i, 1);
    else messages[i] = { ...m, content: kept } as AssistantMessage;
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const a = m as AssistantMessage;
    if (a.stopReason !== "aborted" && a.stopReason !== "error") continue;
    const next = messages[i + 1];
    if (
      next?.role === "custom" &&
      (next as CustomContextMessage).customType === "interrupted-thinking"
    ) continue;
    const calls = new Set<string>();
    for (const b of a.content) {
      if (b.type === "toolCall") calls.add(String(b.id));
    }
    messages.splice(i, 1);
    for (let j = messages.length - 1; j >= i && calls.size > 0; j--) {
      const r = messages[j]!;
      if (r.role === "toolResult" && calls.has(String(r.toolCallId))) {
        messages.splice(j, 1);
      }
    }
  }
  return messages;
}
