/**
 * What a session picker shows of a session besides its head: the first
 * user message, how many messages, when it was last active. One fold over
 * the entries in file order, which both the list that reads the files and
 * the index's `summary` facet run, so the two agree.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";

/**
 * The longest `firstMessage`, in characters (UTF-16 units, never cutting a
 * surrogate pair): a picker shows one line of it, and an index row keeps
 * it, so a pasted 1 MB prompt costs neither a megabyte.
 */
export const FIRST_MESSAGE_CHARS = 200;

/** What {@linkcode SummaryTally} folds a session's entries into. */
export interface SessionSummary {
  /**
   * The first user message's text (its text blocks joined, whitespace runs
   * as one space, cut to {@linkcode FIRST_MESSAGE_CHARS}); undefined when
   * no user message has text.
   */
  firstMessage?: string;
  /** `message` entries in the file, every branch and role (pi's `messageCount`). */
  messageCount: number;
  /** The last entry's timestamp in file order; undefined without entries. */
  lastActivity?: string;
}

/**
 * The fold: offer every entry, in file order, then read `summary`.
 *
 * @example Folding a few entries
 * ```ts
 * import type { SessionEntry } from "@xdev/session";
 * import { SummaryTally } from "./summary.ts";
 * import { deepEqual } from "node:assert/strict";
 * const t = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
 * const entries: SessionEntry[] = [
 *   { type: "model_change", id: "a1", parentId: null, timestamp: t(1), model: "x/y" },
 *   { type: "message", id: "b2", parentId: "a1", timestamp: t(2),
 *     message: { role: "user", content: [{ type: "text", text: "Fix\n the  bug" }] } },
 *   { type: "message", id: "c3", parentId: "b2", timestamp: t(3),
 *     message: { role: "user", content: "later" } },
 * ];
 * const tally = new SummaryTally();
 * for (const e of entries) tally.take(e);
 * deepEqual(tally.summary, { firstMessage: "Fix the bug", messageCount: 2, lastActivity: t(3) });
 * ```
 */
export class SummaryTally {
  #first: string | undefined;
  #count = 0;
  #last: string | undefined;

  /** Offer the next entry. */
  take(entry: SessionEntry): void {
    if (typeof entry.timestamp === "string" && entry.timestamp !== "") {
      this.#last = entry.timestamp;
    }
    if (entry.type !== "message") return;
    this.#count++;
    if (this.#first === undefined) this.#first = firstUserText(entry);
  }

  /** What the entries offered so far give. */
  get summary(): SessionSummary {
    const out: SessionSummary = { messageCount: this.#count };
    if (this.#first !== undefined) out.firstMessage = this.#first;
    if (this.#last !== undefined) out.lastActivity = this.#last;
    return out;
  }
}

/**
 * A user message entry's text, as `firstMessage` holds it; undefined for
 * another entry or a user message without text.
 *
 * @param entry An entry.
 * @returns The text, cleaned and cut.
 */
export function firstUserText(entry: SessionEntry): string | undefined {
  if (entry.type !== "message") return undefined;
  const m = entry.message as { role?: unknown; content?: unknown };
  if (m?.role !== "user") return undefined;
  const parts: string[] = [];
  if (typeof m.content === "string") parts.push(m.content);
  else if (Array.isArray(m.content)) {
    for (const b of m.content as { type?: unknown; text?: unknown }[]) {
      if (b?.type === "text" && typeof b.text === "string") parts.push(b.text);
    }
  }
  // Bounded work: a huge prompt is cut before it is cleaned.
  const raw = parts.join(" ").slice(0, FIRST_MESSAGE_CHARS * 4);
  const text = raw.replace(/\s+/g, " ").trim();
  if (text === "") return undefined;
  if (text.length <= FIRST_MESSAGE_CHARS) return text;
  let cut = text.slice(0, FIRST_MESSAGE_CHARS - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}
