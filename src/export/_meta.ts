/**
 * What an export's header and footer say: the title, the models, the first
 * and last message times, the counts, the damage read around; gathered as
 * messages go by ({@linkcode MetaCollector}) and laid out once for both
 * formats ({@linkcode metaRows}, {@linkcode damageText}).
 *
 * @module
 */

import { formatCount, formatMoney } from "../format/numbers.ts";
import type { ContextMessage } from "../context/messages.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { LoadIssue, LoadIssueKind } from "../format/issues.ts";
import { type RequestUsage, requestUsage } from "../format/usage.ts";
import { ExactSum } from "../usage/_tally.ts";

/** The header of an export. */
export interface ExportMeta {
  /** The session's title, if it has one. */
  title: string | undefined;
  /** The session's id (from its header). */
  sessionId: string | undefined;
  /** The working directory the session belongs to. */
  cwd: string | undefined;
  /** The models seen, `provider/model`, in order of first appearance. */
  models: string[];
  /** The first message's time (ISO-8601), if any message has one. */
  first: string | undefined;
  /** The last message's time (ISO-8601). */
  last: string | undefined;
  /** Messages exported. */
  messages: number;
  /** Entries read (the window for the active branch, the file for a tree). */
  entries: number;
  /** What was exported, in words: `the active branch`, `the whole tree`. */
  scope: string;
  /** The model calls recorded in what was exported, as `usage` counts them. */
  usage: UsageTotals;
  /** The labels of entries exported, in order. */
  labels: { id: string; label: string }[];
  /** The sidebar's outline. */
  outline: OutlineItem[];
}

/** Model calls summed (by `requestUsage`, the rule `usage` and `stats` count by). */
export interface UsageTotals {
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** Dollars recorded; undefined when no call recorded a cost. */
  cost: number | undefined;
  /**
   * Entries of the path that were not read (before a windowed open's
   * window): their calls are not counted.
   */
  unread: number;
}

/** One line of the sidebar's outline: a turn, a branch, a label. */
export interface OutlineItem {
  /** The entry it links to (`#entry-<id>`). */
  anchor: string;
  /** What it says (a user message's first line, cut). */
  text: string;
  /** How deep in the tree's branches (0: the active path's level). */
  depth: number;
  /** Whether the entry is on the active path. */
  active: boolean;
  /** Its entry's label, if any. */
  tag?: string | undefined;
}

/** An outline line's text is cut to this many characters. */
const _OUTLINE_CHARS = 72;

/**
 * An outline line's text: the first non-blank line of `text`, cut.
 *
 * @param text A user message's text.
 * @returns At most {@linkcode _OUTLINE_CHARS} characters.
 */
export function outlineText(text: string): string {
  let from = 0;
  while (from < text.length) {
    let end = text.indexOf("\n", from);
    if (end < 0) end = text.length;
    const line = text.slice(from, Math.min(end, from + 4 * _OUTLINE_CHARS))
      .trim();
    if (line !== "") {
      return line.length > _OUTLINE_CHARS
        ? `${line.slice(0, _OUTLINE_CHARS - 1)}…`
        : line;
    }
    from = end + 1;
  }
  return "(no text)";
}

/**
 * One call's figures, in words: `12,345 in · 678 out · 9,000 cached · $0.0123`.
 *
 * @param u The call.
 * @returns The text.
 */
export function usageText(
  u: Pick<RequestUsage, "input" | "output" | "cacheRead" | "cost">,
): string {
  const parts = [
    `${formatCount(u.input)} in`,
    `${formatCount(u.output)} out`,
  ];
  if (u.cacheRead > 0) parts.push(`${formatCount(u.cacheRead)} cached`);
  if (u.cost !== undefined) parts.push(formatMoney(u.cost));
  return parts.join(" · ");
}

/**
 * The header's rows, `[key, value]`, in the order both formats show them.
 *
 * @param meta The header.
 * @param show How the format writes a literal (a model, a path), a time
 * (ISO-8601) and a text.
 * @returns The rows, their values escaped by `show`.
 */
export function metaRows(
  meta: ExportMeta,
  show: Record<"literal" | "time" | "text", (text: string) => string> & {
    link(anchor: string, text: string): string;
  },
): [string, string][] {
  const rows: [string, string][] = [];
  const { models, first, last, messages, entries, usage } = meta;
  if (models.length > 0) {
    const key = models.length === 1 ? "Model" : "Models";
    rows.push([key, models.map(show.literal).join(", ")]);
  }
  if (usage.calls > 0) {
    const calls = `${formatCount(usage.calls)} model ${
      usage.calls === 1 ? "call" : "calls"
    }`;
    rows.push([
      "Tokens",
      `${formatCount(usage.totalTokens)}: ${formatCount(usage.input)} in, ${
        formatCount(usage.output)
      } out, ${formatCount(usage.cacheRead)} cache read, ${
        formatCount(usage.cacheWrite)
      } cache write (${calls}${
        usage.unread === 0
          ? ""
          : `; ${formatCount(usage.unread)} earlier entries not read`
      })`,
    ]);
    rows.push([
      "Cost",
      usage.cost === undefined ? "not recorded" : formatMoney(usage.cost),
    ]);
  }
  if (meta.labels.length > 0) {
    rows.push([
      "Labels",
      meta.labels.map((l) => show.link(l.id, l.label)).join(", "),
    ]);
  }
  if (first !== undefined && last !== undefined) {
    rows.push(["First message", show.time(first)]);
    rows.push(["Last message", show.time(last)]);
  }
  const scope = show.text(meta.scope);
  const counts = `${messages} messages, ${entries} entries read`;
  rows.push(["Exported", `${scope}: ${counts}`]);
  if (meta.cwd !== undefined) rows.push(["Directory", show.literal(meta.cwd)]);
  if (meta.sessionId !== undefined) {
    rows.push(["Session", show.literal(meta.sessionId)]);
  }
  return rows;
}

/** The footer of an export's last page: the damage read around. */
export interface ExportFooter {
  /** Damage the loader read around, by kind (never the lines' content). */
  issues: { kind: LoadIssueKind; count: number }[];
  /** Images not shown (a missing or damaged blob, an unknown type). */
  missingImages: number;
}

/** More distinct models than this are not listed (a hostile file has many). */
const _MAX_MODELS = 20;

/**
 * What the header and footer say, gathered as messages and damage go by:
 * the models (in order of first appearance), the first and last message
 * times, the damage by kind (counted, never kept line by line).
 */
export class MetaCollector {
  readonly #models = new Set<string>();
  readonly #issues = new Map<LoadIssueKind, number>();
  readonly #cost = new ExactSum();
  readonly #usage: UsageTotals = {
    calls: 0,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: undefined,
    unread: 0,
  };
  #costs = 0;
  #first = Infinity;
  #last = -Infinity;

  /** Count the model call an entry records, if any (by `requestUsage`). */
  call(entry: SessionEntry): void {
    const u = requestUsage(entry);
    if (u === undefined) return;
    const t = this.#usage;
    t.calls++;
    t.input += u.input;
    t.output += u.output;
    t.cacheRead += u.cacheRead;
    t.cacheWrite += u.cacheWrite;
    t.totalTokens += u.totalTokens;
    if (u.cost !== undefined) {
      this.#cost.add(u.cost);
      this.#costs++;
    }
  }

  /** Note an entry of the path not read: its call, if any, is not counted. */
  unread(): void {
    this.#usage.unread++;
  }

  /** The model calls counted. */
  get usage(): UsageTotals {
    const cost = this.#costs === 0 ? undefined : this.#cost.value();
    return { ...this.#usage, cost };
  }

  /** Note a model, `provider/model` (ignored when not a non-empty string). */
  model(model: unknown): void {
    if (typeof model !== "string" || model === "") return;
    if (this.#models.size < _MAX_MODELS) this.#models.add(model);
  }

  /** Note a message: its time, and its model when it is an assistant's. */
  message(m: ContextMessage): void {
    const time = messageTime(m);
    if (time !== undefined) {
      const t = Date.parse(time);
      this.#first = Math.min(this.#first, t);
      this.#last = Math.max(this.#last, t);
    }
    this.model(assistantModel(m));
  }

  /** Count one piece of damage the loader reported. */
  issue(issue: LoadIssue): void {
    this.#issues.set(issue.kind, (this.#issues.get(issue.kind) ?? 0) + 1);
  }

  /** The models (in order of first appearance), the first and last message times. */
  get seen(): Pick<ExportMeta, "models" | "first" | "last"> {
    const models = [...this.#models];
    if (this.#first === Infinity) {
      return { models, first: undefined, last: undefined };
    }
    const iso = (t: number) => new Date(t).toISOString();
    return { models, first: iso(this.#first), last: iso(this.#last) };
  }

  /** The damage by kind, in order of first appearance. */
  get issues(): { kind: LoadIssueKind; count: number }[] {
    return [...this.#issues].map(([kind, count]) => ({ kind, count }));
  }
}

/**
 * The model an assistant's message names, `provider/model`.
 *
 * @example
 * ```ts
 * import { assistantModel } from "./_meta.ts";
 * import { equal } from "node:assert/strict";
 * equal(assistantModel({ role: "assistant", provider: "p", model: "m" }), "p/m");
 * equal(assistantModel({ role: "user" }), undefined);
 * ```
 *
 * @param m A message, as stored (anything).
 * @returns The model, or undefined when it is no assistant's or names none.
 */
export function assistantModel(m: unknown): string | undefined {
  if (m === null || typeof m !== "object") return undefined;
  const { role, provider, model } = m as Record<string, unknown>;
  return role === "assistant" && typeof provider === "string" &&
      typeof model === "string"
    ? `${provider}/${model}`
    : undefined;
}

/**
 * A message's (or an entry's) time as ISO-8601: agent messages carry epoch
 * milliseconds, summaries, custom messages and entries an ISO timestamp.
 *
 * @param m Anything with a `timestamp`.
 * @returns The time, or undefined when it has no valid one.
 */
export function messageTime(m: object): string | undefined {
  const t = (m as { timestamp?: unknown }).timestamp;
  const ms = typeof t === "number"
    ? t
    : typeof t === "string"
    ? Date.parse(t)
    : NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return undefined;
  return new Date(ms).toISOString();
}

/**
 * An ISO-8601 time for people: `2026-09-28 10:00:32 UTC`.
 *
 * @param iso A time from {@linkcode messageTime}.
 * @returns The text.
 */
export function displayTime(iso: string): string {
  return `${iso.slice(0, 19).replace("T", " ")} UTC`;
}

/**
 * The footer's sentence on damage, or undefined when there was none.
 *
 * @param footer The counts (none on a page before the last).
 * @returns `Damage read around while loading: 2 torn-line. 1 image not shown.`
 */
export function damageText(
  footer: ExportFooter | undefined,
): string | undefined {
  if (footer === undefined) return undefined;
  const parts: string[] = [];
  if (footer.issues.length > 0) {
    const list = footer.issues.map((i) => `${i.count} ${i.kind}`).join(", ");
    parts.push(`Damage read around while loading: ${list}.`);
  }
  const n = footer.missingImages;
  if (n > 0) parts.push(`${n} ${n === 1 ? "image" : "images"} not shown.`);
  return parts.length === 0 ? undefined : parts.join(" ");
}
