/**
 * The typed `append*` helpers of a session: each builds one entry's payload
 * (its type and fields, without the envelope) and appends it.
 *
 * @module
 */

import type {
  BranchSummaryEntry,
  CompactionEntry,
  CredentialPinEntry,
  CustomEntry,
  CustomMessageEntry,
  LabelEntry,
  MessageEntry,
  ModeChangeEntry,
  ModelChangeEntry,
  ModelUsageEntry,
  ResetBoundaryEntry,
  ServiceTierChangeEntry,
  SessionEntry,
  SessionInitEntry,
  ThinkingLevelChangeEntry,
  TtsrInjectionEntry,
} from "../format/entries.ts";
import type { AgentMessage, ContentBlock } from "../format/messages.ts";

/** A new entry: its type and payload, without the envelope. */
export type EntryPayload = { type: string } & Record<string, unknown>;

/** Options for an append. */
export interface AppendOptions {
  /** The parent of the (first) new entry. Default: the leaf. */
  parentId?: string | null;
}

/**
 * The typed `append*` helpers, over one primitive: {@linkcode appendBatch}.
 * {@linkcode Session} is the implementation users hold; another (a test
 * double, a recorder) gets every helper by implementing `appendBatch`.
 *
 * @example Every typed append, each on a session of its own
 * ```ts
 * import { Session } from "@xdev/session";
 * import { deepEqual, equal, ok } from "node:assert/strict";
 *
 * // A new session stays in memory until ensureOnDisk(): nothing is written.
 * { // appending an entry of an unknown type
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const entry = await session.append({ type: "xdev_probe", note: "kept as is" });
 *   equal(entry.type, "xdev_probe");
 *   deepEqual(session.getEntry(entry.id), entry);
 * }
 * { // appending a user message
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   await session.appendMessage({ role: "user", content: "Why does CI fail?" });
 *   deepEqual(session.buildContext().messages.map((m) => m.role), ["user"]);
 * }
 * { // setting the default and the smol model
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   await session.appendModelChange("openai/gpt-5.1-codex");
 *   await session.appendModelChange("anthropic/claude-haiku-4-5", "smol");
 *   deepEqual(session.buildContext().models, {
 *     default: "openai/gpt-5.1-codex",
 *     smol: "anthropic/claude-haiku-4-5",
 *   });
 * }
 * { // thinking harder, chosen automatically
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   await session.appendThinkingLevelChange("high", "auto");
 *   const ctx = session.buildContext();
 *   equal(ctx.thinkingLevel, "high");
 *   equal(ctx.configuredThinkingLevel, "auto");
 * }
 * { // switching to the priority tier
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const entry = await session.appendServiceTierChange("priority");
 *   equal(entry.serviceTier, "priority");
 *   equal(session.leafId, entry.id);
 * }
 * { // appending a compaction
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   await session.appendMessage({ role: "user", content: "An old question" });
 *   const kept = await session.appendMessage({ role: "user", content: "A recent one" });
 *   await session.appendCompaction({ summary: "Asked about CI.", firstKeptEntryId: kept.id, tokensBefore: 1200 });
 *   const roles = session.buildContext().messages.map((m) => m.role);
 *   deepEqual(roles, ["compactionSummary", "user"]);
 * }
 * { // abandoning a branch with a summary
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const start = await session.appendMessage({ role: "user", content: "Try plan A" });
 *   await session.appendMessage({ role: "user", content: "Plan A failed" });
 *   const summary = await session.appendBranchSummary(start.id, "Plan A failed: no lock.");
 *   equal(session.leafId, summary.id);
 *   deepEqual(session.buildContext().messages.map((m) => m.role), ["user", "branchSummary"]);
 * }
 * { // clearing the context
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   await session.appendMessage({ role: "user", content: "Before /clear" });
 *   await session.appendResetBoundary();
 *   await session.appendMessage({ role: "user", content: "After /clear" });
 *   equal(session.buildContext().messages.length, 1);
 * }
 * { // keeping harness state out of the context
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const entry = await session.appendCustom("todo-state", { open: 2 });
 *   deepEqual(entry.data, { open: 2 });
 *   equal(session.buildContext().messages.length, 0);
 * }
 * { // a hook's note the UI hides
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   await session.appendCustomMessage("hook-note", "Tests are slow today", { display: false });
 *   const [note] = session.buildContext().messages;
 *   ok(note?.role === "custom" && note.customType === "hook-note" && note.display === false);
 * }
 * { // labelling an entry
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const entry = await session.appendMessage({ role: "user", content: "Start here" });
 *   await session.appendLabel(entry.id, "start");
 *   deepEqual(session.buildContext().labels, { [entry.id]: "start" });
 * }
 * { // a subagent's first entry
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const init = await session.appendSessionInit({
 *     systemPrompt: "You review diffs.",
 *     task: "Review src/",
 *     tools: ["read", "grep"],
 *   });
 *   deepEqual(init.tools, ["read", "grep"]);
 *   equal(init.parentId, null);
 * }
 * { // recording a side call that named the session
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const entry = await session.appendModelUsage({
 *     purpose: "title", api: "openai-responses", provider: "openai", model: "gpt-5-mini",
 *     usage: { input: 120, output: 8 }, stopReason: "stop",
 *   });
 *   equal(entry.purpose, "title");
 *   equal(session.buildContext().messages.length, 0);
 * }
 * { // entering plan mode
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const entry = await session.appendModeChange("plan");
 *   equal(entry.mode, "plan");
 *   equal(session.leafId, entry.id);
 * }
 * { // recording injected rules
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const entry = await session.appendTtsrInjection(["no-console-log"]);
 *   deepEqual(entry.injectedRules, ["no-console-log"]);
 * }
 * { // pinning a credential
 *   await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
 *   const entry = await session.appendCredentialPin("anthropic", "sha256:9f2c");
 *   deepEqual([entry.provider, entry.hash], ["anthropic", "sha256:9f2c"]);
 * }
 * ```
 *
 * @example A recorder that keeps payloads instead of writing them
 * ```ts
 * import { EntryAppender, type EntryPayload, type SessionEntry } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * class Recorder extends EntryAppender {
 *   payloads: EntryPayload[] = [];
 *   appendBatch(payloads: readonly EntryPayload[]): Promise<SessionEntry[]> {
 *     this.payloads.push(...payloads);
 *     return Promise.resolve(payloads.map((p, i) => ({
 *       ...p, id: `r${i}`, parentId: null, timestamp: "2026-01-01T00:00:00.000Z",
 *     } as SessionEntry)));
 *   }
 * }
 * const r = new Recorder();
 * await r.appendModelChange("openai/gpt-5.1-codex", "smol");
 * equal(r.payloads[0]!.role, "smol");
 * ```
 */
export abstract class EntryAppender {
  /**
   * Append entries in one write; each payload gets an id, a parent and a
   * timestamp.
   */
  abstract appendBatch(
    payloads: readonly EntryPayload[],
    options?: AppendOptions,
  ): Promise<SessionEntry[]>;

  /** Append one entry of any type (unknown types too). */
  async append(
    payload: EntryPayload,
    options: AppendOptions = {},
  ): Promise<SessionEntry> {
    return (await this.appendBatch([payload], options))[0]!;
  }

  /** Append a conversation message. */
  appendMessage(message: AgentMessage): Promise<MessageEntry> {
    return this.#one({ type: "message", message });
  }

  /**
   * Change the model of a role.
   *
   * @param model `provider/modelId`.
   * @param role Absent: `default`.
   */
  appendModelChange(
    model: string,
    role?: string,
  ): Promise<ModelChangeEntry> {
    return this.#one({
      type: "model_change",
      model,
      ...(role === undefined ? {} : { role }),
      resolvedModelIsFallback: false,
    });
  }

  /**
   * Change the thinking level.
   *
   * @param configured The selector (`auto` or a level).
   */
  appendThinkingLevelChange(
    thinkingLevel: string | null,
    configured: string | null = thinkingLevel,
  ): Promise<ThinkingLevelChangeEntry> {
    return this.#one({
      type: "thinking_level_change",
      thinkingLevel,
      configured,
    });
  }

  /** Change the service tier. */
  appendServiceTierChange(
    serviceTier: unknown,
  ): Promise<ServiceTierChangeEntry> {
    return this.#one({ type: "service_tier_change", serviceTier });
  }

  /**
   * Replace the history before `firstKeptEntryId` by a summary.
   *
   * @param compaction The summary, the first kept entry (null: none) and the tokens before.
   */
  appendCompaction(
    compaction: {
      summary: string;
      firstKeptEntryId: string | null;
      tokensBefore: number;
    } & Record<string, unknown>,
  ): Promise<CompactionEntry> {
    return this.#one({ type: "compaction", ...compaction });
  }

  /**
   * Branch back to `fromId` with a summary of the abandoned branch: the entry
   * is a child of `fromId` and becomes the leaf.
   *
   * @param fromId The branch point, or null for the root.
   */
  appendBranchSummary(
    fromId: string | null,
    summary: string,
    details?: unknown,
  ): Promise<BranchSummaryEntry> {
    return this.#one({
      type: "branch_summary",
      fromId: fromId ?? "root",
      summary,
      ...(details === undefined ? {} : { details }),
    }, { parentId: fromId });
  }

  /** `/clear`: nothing before it reaches the model. */
  appendResetBoundary(): Promise<ResetBoundaryEntry> {
    return this.#one({ type: "reset_boundary" });
  }

  /** Harness state that never reaches the model. */
  appendCustom(customType: string, data?: unknown): Promise<CustomEntry> {
    return this.#one({
      type: "custom",
      customType,
      ...(data === undefined ? {} : { data }),
    });
  }

  /**
   * A message from a harness or hook (role `custom` in the context).
   *
   * @param options `display` (default: true) says whether the UI shows it.
   */
  appendCustomMessage(
    customType: string,
    content: string | ContentBlock[],
    options: { display?: boolean; details?: unknown } = {},
  ): Promise<CustomMessageEntry> {
    return this.#one({
      type: "custom_message",
      customType,
      content,
      display: options.display ?? true,
      ...(options.details === undefined ? {} : { details: options.details }),
    });
  }

  /** Set or (without `label`) clear an entry's label. */
  appendLabel(targetId: string, label?: string): Promise<LabelEntry> {
    return this.#one({
      type: "label",
      targetId,
      ...(label === undefined ? {} : { label }),
    });
  }

  /** A subagent's contract. */
  appendSessionInit(
    init:
      & { systemPrompt: string; task: string; tools: string[] }
      & Record<string, unknown>,
  ): Promise<SessionInitEntry> {
    return this.#one({ type: "session_init", ...init });
  }

  /** A side call's model usage. */
  appendModelUsage(
    usage:
      & {
        purpose: string;
        api: string;
        provider: string;
        model: string;
        usage: unknown;
        stopReason: string;
      }
      & Record<string, unknown>,
  ): Promise<ModelUsageEntry> {
    return this.#one({ type: "model_usage", ...usage });
  }

  /**
   * Change the agent's mode.
   *
   * @param mode `plan`, `none` …
   */
  appendModeChange(
    mode: string,
    data?: unknown,
  ): Promise<ModeChangeEntry> {
    return this.#one({
      type: "mode_change",
      mode,
      ...(data === undefined ? {} : { data }),
    });
  }

  /** Rules injected into the context. */
  appendTtsrInjection(injectedRules: string[]): Promise<TtsrInjectionEntry> {
    return this.#one({ type: "ttsr_injection", injectedRules });
  }

  /** Pin a credential for a provider. */
  appendCredentialPin(
    provider: string,
    hash: string,
  ): Promise<CredentialPinEntry> {
    return this.#one({ type: "credential_pin", provider, hash });
  }

  /** {@linkcode append}, typed as the entry the payload makes. */
  #one<T extends SessionEntry>(
    payload: EntryPayload,
    options?: AppendOptions,
  ): Promise<T> {
    return this.append(payload, options) as Promise<T>;
  }
}
