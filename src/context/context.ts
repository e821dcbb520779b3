/**
 * The context rebuild: what the model sees when a session resumes
 * (DESIGN §3.7).
 *
 * @module
 */

import type { CompactionEntry, SessionEntry } from "../format/entries.ts";
import { collectLabels } from "./labels.ts";
import { cleanMessages, type ContextMessage, toMessage } from "./messages.ts";
import type { PathSteps } from "./_path_steps.ts";
import { foldSettings, type Settings } from "./settings.ts";
import { estimateTokens } from "./tokens.ts";
import { type ActivePath, type PathEnd, pathTo } from "./tree.ts";

/** One entry of the active path: its id and type. */
export interface PathStep {
  /** The entry's id. */
  id: string;
  /** The entry's type. */
  type: string;
}

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
  activePath: PathStep[];
  /** Why the path stops early, when it does (a missing parent or a cycle). */
  pathEnd: PathEnd;
  /** An estimate of the context's tokens: the last assistant usage plus the text after it at ~4 characters a token. */
  tokens: number;
}

/** Options for {@linkcode buildSessionContext}. */
export interface BuildContextOptions {
  /**
   * Base64 data for a blob digest, or undefined when the blob is missing (the
   * reference is then left in place).
   */
  resolveBlob?: ((hex: string) => string | undefined) | undefined;
  /**
   * The text of a blob that a tool-result text block references (the whole
   * text being the reference), or undefined to leave the reference.
   */
  resolveText?: ((hex: string) => string | undefined) | undefined;
  /**
   * `xdev` (default, DESIGN §3.7): nothing before the latest reset on the path
   * is ever emitted. `omp`: a compaction after a reset may keep entries from
   * before it, as omp 18.3.4 does.
   */
  resetRule?: ResetRule;
}

/**
 * What a windowed read knows of the part of the file it did not keep: the
 * context of the window is built over it.
 */
export interface ContextBase {
  /** Settings folded along the path before the window. */
  settings: Settings;
  /** Labels in effect over the whole file. */
  labels: Record<string, string>;
  /** The path before the window (empty when a checkpoint ended the walk). */
  pathBefore: PathSteps;
  /** How the walk from the leaf ended. */
  pathEnd: PathEnd;
}

/**
 * Rebuild the context of the path ending at `leafId`.
 *
 * @example A two-message session
 * ```ts
 * import type { SessionEntry } from "@xdev/session";
 * import { buildSessionContext } from "./context.ts";
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
  return buildContextOver(entries, byId, leafId, options, undefined);
}

/**
 * {@linkcode buildSessionContext} over what a windowed read learned of the
 * part of the file it did not keep: its settings come before the path's own,
 * its labels replace a scan of `entries`, its path leads the active path.
 *
 * @param entries The loaded entries in file order.
 * @param byId The same entries by id.
 * @param leafId The leaf.
 * @param options Blob resolution and the reset rule.
 * @param base What is known of the rest of the file; undefined: nothing.
 * @returns The context.
 */
export function buildContextOver(
  entries: readonly SessionEntry[],
  byId: ReadonlyMap<string, SessionEntry>,
  leafId: string | null,
  options: BuildContextOptions,
  base: ContextBase | undefined,
): SessionContext {
  const path = pathTo(leafId, byId);
  const settings = foldSettings(path.entries, base?.settings);
  const visible = visibleEntries(path, options.resetRule ?? "xdev");
  const messages = cleanMessages(visible.map((e) => toMessage(e, options)));
  const models = settings.models;
  const context: Omit<SessionContext, "activePath"> = {
    messages,
    models,
    model: models.default ?? null,
    thinkingLevel: settings.thinkingLevel,
    configuredThinkingLevel: settings.configuredThinkingLevel,
    labels: base?.labels ?? collectLabels(entries),
    leafId,
    // A windowed path stops at the window's edge by design.
    pathEnd: base?.pathEnd ?? path.end,
    tokens: estimateTokens(messages),
  };
  const own = (): PathStep[] =>
    path.entries.map((e) => ({ id: e.id, type: e.type }));
  const before = base?.pathBefore;
  if (before === undefined || before.length === 0) {
    return { ...context, activePath: own() };
  }
  // The steps before the window become objects when first asked for: a
  // path of a million entries costs its objects only then.
  return Object.defineProperty(context, "activePath", {
    enumerable: true,
    configurable: true,
    get(this: SessionContext): PathStep[] {
      const activePath = [...before.toArray(), ...own()];
      Object.defineProperty(this, "activePath", {
        value: activePath,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return activePath;
    },
  }) as SessionContext;
}

/** Which rule settles a compaction whose kept window reaches back past a reset. */
export type ResetRule = "xdev" | "omp";

/**
 * The entries whose messages reach the model, in order: after the latest
 * reset, or from a compaction (its summary, then its kept window) on.
 */
export function visibleEntries(
  path: Pick<ActivePath, "entries">,
  rule: ResetRule,
): SessionEntry[] {
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
