/**
 * What an export's header and footer say: the title, the models, the first
 * and last message dates, the counts, and the damage read around.
 *
 * @module
 */

import type { ContextMessage } from "../context/messages.ts";
import type { LoadIssue, LoadIssueKind } from "../format/issues.ts";

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
  /** What was exported, in words: `the active branch`, `the whole tree …`. */
  scope: string;
}

/** How often one kind of damage was read around. */
export interface IssueCount {
  /** The kind. */
  kind: LoadIssueKind;
  /** How many times. */
  count: number;
}

/** The footer of an export's last page. */
export interface ExportFooter {
  /** Damage the loader read around, by kind (never the lines' content). */
  issues: IssueCount[];
  /** Images not shown (a missing or damaged blob, an unknown type). */
  missingImages: number;
}

/** More distinct models than this are not listed (a hostile file has many). */
const _MAX_MODELS = 20;

/** Collects the models and the first and last dates of what is exported. */
export class MetaCollector {
  readonly #models = new Set<string>();
  #first: number | undefined;
  #last: number | undefined;

  /**
   * Note a model, `provider/model` (ignored when not a non-empty string).
   *
   * @param model The model.
   */
  model(model: unknown): void {
    if (typeof model !== "string" || model === "") return;
    if (this.#models.size < _MAX_MODELS) this.#models.add(model);
  }

  /**
   * Note a message: its time, and its model when it is an assistant's.
   *
   * @param m The message.
   */
  message(m: ContextMessage): void {
    const time = messageTime(m);
    if (time !== undefined) {
      const t = Date.parse(time);
      if (this.#first === undefined || t < this.#first) this.#first = t;
      if (this.#last === undefined || t > this.#last) this.#last = t;
    }
    if (m.role === "assistant") {
      const { provider, model } = m as { provider?: unknown; model?: unknown };
      if (typeof provider === "string" && typeof model === "string") {
        this.model(`${provider}/${model}`);
      }
    }
  }

  /** The models, in order of first appearance. */
  get models(): string[] {
    return [...this.#models];
  }

  /** The earliest message time (ISO-8601). */
  get first(): string | undefined {
    return this.#first === undefined
      ? undefined
      : new Date(this.#first).toISOString();
  }

  /** The latest message time (ISO-8601). */
  get last(): string | undefined {
    return this.#last === undefined
      ? undefined
      : new Date(this.#last).toISOString();
  }
}

/**
 * A message's time as ISO-8601: agent messages carry epoch milliseconds,
 * summaries and custom messages their entry's ISO timestamp.
 *
 * @param m A message.
 * @returns The time, or undefined when it has no valid one.
 */
export function messageTime(m: ContextMessage): string | undefined {
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

/** Damage by kind, counted as it is reported (never kept line by line). */
export class IssueTally {
  readonly #counts = new Map<LoadIssueKind, number>();

  /**
   * Count one piece of damage.
   *
   * @param issue What the loader reported.
   */
  add(issue: LoadIssue): void {
    this.#counts.set(issue.kind, (this.#counts.get(issue.kind) ?? 0) + 1);
  }

  /** One count per kind, in order of first appearance. */
  get counts(): IssueCount[] {
    return [...this.#counts].map(([kind, count]) => ({ kind, count }));
  }
}

/**
 * The footer's sentence on damage, or undefined when there was none.
 *
 * @param footer The counts.
 * @returns `Read around: 2 torn-line, 1 not-json. 1 image not shown.`
 */
export function damageText(footer: ExportFooter): string | undefined {
  const parts: string[] = [];
  if (footer.issues.length > 0) {
    const list = footer.issues.map((i) => `${i.count} ${i.kind}`).join(", ");
    parts.push(`Damage read around while loading: ${list}.`);
  }
  const n = footer.missingImages;
  if (n > 0) parts.push(`${n} ${n === 1 ? "image" : "images"} not shown.`);
  return parts.length === 0 ? undefined : parts.join(" ");
}
