/**
 * What an export's header and footer say: the title, the models, the first
 * and last message times, the counts, the damage read around; gathered as
 * messages go by ({@linkcode MetaCollector}) and laid out once for both
 * formats ({@linkcode metaRows}, {@linkcode damageText}).
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
  /** What was exported, in words: `the active branch`, `the whole tree`. */
  scope: string;
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
  show: Record<"literal" | "time" | "text", (text: string) => string>,
): [string, string][] {
  const rows: [string, string][] = [];
  const { models, first, last, messages, entries } = meta;
  if (models.length > 0) {
    const key = models.length === 1 ? "Model" : "Models";
    rows.push([key, models.map(show.literal).join(", ")]);
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
  #first = Infinity;
  #last = -Infinity;

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
    const { provider, model } = m as { provider?: unknown; model?: unknown };
    if (
      m.role === "assistant" && typeof provider === "string" &&
      typeof model === "string"
    ) this.model(`${provider}/${model}`);
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
