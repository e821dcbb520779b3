/**
 * The context rebuild: what the model sees when a session resumes
 * (DESIGN §3.7).
 *
 * @module
 */

import type {
  AgentMessage,
  AssistantMessage,
  CompactionEntry,
  ContentBlock,
  SessionEntry,
} from "../format/entries.ts";
import { parseBlobRef } from "../format/blob_ref.ts";
import { type ActivePath, type PathEnd, pathTo } from "./tree.ts";

/** The summary that stands for history before a compaction. */
export interface CompactionSummaryMessage {
  /** The discriminator. */
  role: "compactionSummary";
  /** The compaction's summary. */
  summary: string;
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
  /** The summary, never empty. */
  summary: string;
  /** The branch point, or `"root"`. */
  fromId: string;
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

/** What a resumed session hands the model. */
export interface SessionContext {
  /** The model-visible history, oldest first. */
  messages: ContextMessage[];
  /** `provider/modelId` per role (`default`, `smol` …). */
  models: Record<string, string>;
  /** `models.default`, or null. */
  model: string | null;
  /** From the latest `thinking_level_change` on the path; `off` without one. */
  thinkingLevel: string;
  /** The configured selector (`auto` or a level) of that change, or null. */
  configuredThinkingLevel: string | null;
  /** Labels in effect: entry id → label. */
  labels: Record<string, string>;
  /** The active leaf, or null for a session without entries. */
  leafId: string | null;
  /** The active path, root first. */
  activePath: { id: string; type: string }[];
  /** Why the path stops early, when it does (a missing parent or a cycle). */
  pathEnd: PathEnd;
  /** An estimate of the context's tokens: the last assistant usage plus the text after it at ~4 characters a token. */
  tokens: number;
}

/** Which rule settles a compaction whose kept window reaches back past a reset. */
export type ResetRule = "xdev" | "omp";

/** Options for {@linkcode buildSessionContext}. */
export interface BuildContextOptions {
  /**
   * Base64 data for a blob digest, or undefined when the blob is missing (the
   * reference is then left in place).
   */
  resolveBlob?: (hex: string) => string | undefined;
  /**
   * The text of a blob that a tool-result text block references (the whole
   * text being the reference), or undefined to leave the reference.
   */
  resolveText?: (hex: string) => string | undefined;
  /**
   * `xdev` (default, DESIGN §3.7): nothing before the latest reset on the path
   * is ever emitted. `omp`: a compaction after a reset may keep entries from
   * before it, as omp 18.3.4 does.
   */
  resetRule?: ResetRule;
  /**
   * What the windowed loader learned about the part of the file it did not
   * keep: its settings are applied before the path's own entries, its labels
   * replace a scan of `entries`, and its path prefix leads the active path.
   */
  window?: WindowPrefix;
}

/** What the windowed loader knows about the part of a file it did not keep. */
export interface WindowPrefix {
  /** Settings folded along the path before the window. */
  carried: CarriedSettings;
  /** Labels in effect over the whole file. */
  labels: Record<string, string>;
  /** The path before the window, root first (empty when a checkpoint ended the walk). */
  pathPrefix: { id: string; type: string }[];
  /** How the walk from the leaf ended. */
  pathEnd: PathEnd;
}

/** Settings found on a path prefix that was not kept in memory. */
export interface CarriedSettings {
  /** `provider/modelId` per role (`default`, `smol` …). */
  models: Record<string, string>;
  /** Whether a `model_change` set the default; assistant messages then no longer do. */
  explicitDefaultModel: boolean;
  /** The thinking level; `off` without a change. */
  thinkingLevel: string;
  /** The configured selector (`auto` or a level; else the level), or null. */
  configuredThinkingLevel: string | null;
}

/** custom_message types omp keeps out of the model context. */
const _HIDDEN_CUSTOM_TYPES = new Set(["prewalk-plan", "vibe-mode-context"]);

/** Characters per token in the estimate of {@linkcode SessionContext.tokens}. */
const _CHARS_PER_TOKEN = 4;

/**
 * Rebuild the context of the path ending at `leafId`.
 *
 * @example A two-message session
 * ```ts
 * import { buildSessionContext, type SessionEntry } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 * const t = "2026-01-01T00:00:00.000Z";
 * const entries: SessionEntry[] = [
 *   { type: "message", id: "0000000a", parentId: null, timestamp: t,
 *     message: { role: "user", content: "hi" } },
 *   { type: "message", id: "0000000b", parentId: "0000000a", timestamp: t,
 *     message: { role: "assistant", content: [{ type: "text", text: "hello" }],
 *       provider: "p", model: "m", stopReason: "stop" } },
 * ];
 * const byId = new Map(entries.map((e) => [e.id, e]));
 * const ctx = buildSessionContext(entries, byId, "0000000b");
 * equal(ctx.messages.length, 2);
 * equal(ctx.model, "p/m");
 * ```
 *
 * @param entries The loaded entries in file order (labels come from all of them).
 * @param byId The same entries by id.
 * @param leafId The leaf.
 * @param options Blob resolution and the reset rule.
 * @returns The context.
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  byId: ReadonlyMap<string, SessionEntry>,
  leafId: string | null,
  options: BuildContextOptions = {},
): SessionContext {
  const path = pathTo(leafId, byId);
  const window = options.window;
  const settings = _settings(path.entries, window?.carried);
  const emitted = _emit(path, options.resetRule ?? "xdev");
  const messages = _clean(emitted.map((e) => _toMessage(e, options)))
    .filter((m): m is ContextMessage => m !== undefined);
  const models = settings.models;
  return {
    messages,
    models,
    model: models.default ?? null,
    thinkingLevel: settings.thinkingLevel,
    configuredThinkingLevel: settings.configuredThinkingLevel,
    labels: window?.labels ?? collectLabels(entries),
    leafId,
    activePath: [
      ...(window?.pathPrefix ?? []),
      ...path.entries.map((e) => ({ id: e.id, type: e.type })),
    ],
    // A windowed path stops at the window's edge by design.
    pathEnd: window?.pathEnd ?? path.end,
    tokens: estimateTokens(messages),
  };
}

/**
 * Labels in effect, in file order: a `label` entry sets its target's label,
 * one without `label` clears it.
 *
 * @example Setting and clearing labels
 * ```ts
 * import { collectLabels, type SessionEntry } from "@xdev/session";
 * import { deepEqual } from "node:assert/strict";
 * const t = "2026-01-01T00:00:00.000Z";
 * const entries: SessionEntry[] = [
 *   { type: "label", id: "0000000b", parentId: "0000000a", timestamp: t,
 *     targetId: "0000000a", label: "start" },
 *   { type: "label", id: "0000000c", parentId: "0000000b", timestamp: t,
 *     targetId: "0000000b", label: "gone" },
 *   { type: "label", id: "0000000d", parentId: "0000000c", timestamp: t,
 *     targetId: "0000000b" },
 * ];
 * deepEqual(collectLabels(entries), { "0000000a": "start" });
 * ```
 *
 * @param entries Entries in file order.
 * @param base Labels in effect before `entries`.
 * @returns Entry id → label.
 */
export function collectLabels(
  entries: Iterable<SessionEntry>,
  base: Record<string, string> = {},
): Record<string, string> {
  const labels = new Map<string, string>(Object.entries(base));
  for (const e of entries) {
    if (e.type !== "label" || typeof e.targetId !== "string") continue;
    if (typeof e.label === "string" && e.label.length > 0) {
      labels.set(e.targetId, e.label);
    } else labels.delete(e.targetId);
  }
  return Object.fromEntries(labels);
}

/**
 * Fold the settings entries of a path: models per role, thinking level.
 *
 * @param path Entries root first.
 * @param carried Settings from before `path`.
 * @returns The settings after `path`.
 */
export function foldSettings(
  path: Iterable<SessionEntry>,
  carried?: CarriedSettings,
): CarriedSettings {
  return _settings(path, carried);
}

function _settings(
  path: Iterable<SessionEntry>,
  carried: CarriedSettings | undefined,
): CarriedSettings {
  const s: CarriedSettings = carried === undefined
    ? {
      models: {},
      explicitDefaultModel: false,
      thinkingLevel: "off",
      configuredThinkingLevel: null,
    }
    : { ...carried, models: { ...carried.models } };
  for (const e of path) {
    if (e.type === "thinking_level_change") {
      const level = typeof e.thinkingLevel === "string"
        ? e.thinkingLevel
        : null;
      const configured = typeof e.configured === "string" ? e.configured : null;
      s.thinkingLevel = level ?? "off";
      s.configuredThinkingLevel = configured ?? level;
    } else if (e.type === "model_change") {
      if (typeof e.model !== "string" || e.model.length === 0) continue;
      const role = typeof e.role === "string" ? e.role : "default";
      s.models[role] = e.model;
      if (role === "default") s.explicitDefaultModel = true;
    } else if (e.type === "message" && !s.explicitDefaultModel) {
      const m = e.message as AssistantMessage | undefined;
      if (m?.role === "assistant") {
        s.models.default = `${m.provider}/${m.model}`;
      }
    }
  }
  return s;
}

/** The entries whose messages reach the model, in order. */
function _emit(path: ActivePath, rule: ResetRule): SessionEntry[] {
  const p = path.entries;
  let resetIdx = -1;
  let compactionIdx = -1;
  for (let i = 0; i < p.length; i++) {
    const type = p[i]!.type;
    if (type === "reset_boundary") resetIdx = i;
    else if (type === "compaction") compactionIdx = i;
  }
  if (resetIdx > compactionIdx) return p.slice(resetIdx + 1);
  if (compactionIdx < 0) return p.slice();
  const compaction = p[compactionIdx] as CompactionEntry;
  const out: SessionEntry[] = [compaction];
  // The kept window: from firstKeptEntryId up to the compaction, when that id
  // is on the path before it (and, under our rule, after the latest reset).
  const floor = rule === "xdev" ? resetIdx : -1;
  const keptIdx = p.findIndex((e, i) =>
    i > floor && i < compactionIdx && e.id === compaction.firstKeptEntryId
  );
  if (keptIdx >= 0) out.push(...p.slice(keptIdx, compactionIdx));
  out.push(...p.slice(compactionIdx + 1));
  return out;
}

/** The message an emitted entry contributes, if any. */
function _toMessage(
  e: SessionEntry,
  options: BuildContextOptions,
): ContextMessage | undefined {
  switch (e.type) {
    case "compaction": {
      const c = e as CompactionEntry;
      const m: CompactionSummaryMessage = {
        role: "compactionSummary",
        summary: String(c.summary ?? ""),
        tokensBefore: typeof c.tokensBefore === "number" ? c.tokensBefore : 0,
        timestamp: e.timestamp,
      };
      if (typeof c.shortSummary === "string") m.shortSummary = c.shortSummary;
      return m;
    }
    case "branch_summary": {
      if (typeof e.summary !== "string" || e.summary.length === 0) return;
      return {
        role: "branchSummary",
        summary: e.summary,
        fromId: String(e.fromId),
        timestamp: e.timestamp,
      };
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
        content: _resolveContent(content, options),
        display: typeof e.display === "boolean" ? e.display : false,
        timestamp: e.timestamp,
      };
      if (e.details !== undefined) m.details = e.details;
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
      if (Array.isArray(m.content)) {
        const content = _resolveContent(m.content as ContentBlock[], options);
        if (content !== m.content) return { ...m, content } as AgentMessage;
      }
      return m;
    }
    default:
      return;
  }
}

/** Replace blob references in image blocks by their data, copying on write. */
function _resolveContent<T extends string | ContentBlock[]>(
  content: T,
  options: BuildContextOptions,
): T {
  if (typeof content === "string") return content;
  const { resolveBlob, resolveText } = options;
  if (resolveBlob === undefined && resolveText === undefined) return content;
  let out: ContentBlock[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (block?.type === "image" && typeof block.data === "string") {
      const hex = parseBlobRef(block.data);
      const data = hex === undefined ? undefined : resolveBlob?.(hex);
      if (data !== undefined) (out ??= content.slice())[i] = { ...block, data };
    } else if (block?.type === "text" && typeof block.text === "string") {
      const hex = parseBlobRef(block.text);
      const text = hex === undefined ? undefined : resolveText?.(hex);
      if (text !== undefined) (out ??= content.slice())[i] = { ...block, text };
    }
  }
  return (out ?? content) as T;
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
function _clean(
  input: (ContextMessage | undefined)[],
): (ContextMessage | undefined)[] {
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

/**
 * Estimate the tokens of a context: the last assistant usage plus the text
 * after it at ~4 characters a token (all text when no usage was reported).
 *
 * @example Usage plus the text after it
 * ```ts
 * import { estimateTokens } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 * const tokens = estimateTokens([
 *   { role: "assistant", content: [{ type: "text", text: "hello" }],
 *     usage: { input: 100, output: 20, totalTokens: 120 } },
 *   { role: "user", content: "12345678" },
 * ]);
 * equal(tokens, 122);
 * ```
 *
 * @param messages A rebuilt context.
 * @returns The estimate.
 */
export function estimateTokens(messages: readonly ContextMessage[]): number {
  let base = 0;
  let from = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const u = (m as AssistantMessage).usage;
    if (u === undefined || u === null || typeof u !== "object") continue;
    base = typeof u.totalTokens === "number" && u.totalTokens > 0
      ? u.totalTokens
      : (u.input ?? 0) + (u.output ?? 0) + (u.cacheRead ?? 0) +
        (u.cacheWrite ?? 0);
    from = i + 1;
    break;
  }
  let chars = 0;
  for (let i = from; i < messages.length; i++) {
    chars += _textLength(messages[i]!);
  }
  return base + Math.ceil(chars / _CHARS_PER_TOKEN);
}

function _textLength(m: ContextMessage): number {
  if ("summary" in m && typeof m.summary === "string") return m.summary.length;
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content as ContentBlock[]) {
    if (b.type === "text" && typeof b.text === "string") n += b.text.length;
    else if (b.type === "thinking" && typeof b.thinking === "string") {
      n += b.thinking.length;
    } else if (b.type === "toolCall") {
      n += JSON.stringify(b.arguments ?? null).length;
    }
  }
  return n;
}
