/**
 * The sidebar's outline, and which entry each message of the context comes
 * from (for its anchor and its usage): the active branch's outline is its
 * turns; the tree's is every user message, nested by branch, the active
 * path marked.
 *
 * @module
 */

import type { SessionContext } from "../context/context.ts";
import { type ContextMessage, toMessage } from "../context/messages.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { Session } from "../session/session.ts";
import type { Shown } from "./_document.ts";
import { type OutlineItem, outlineText } from "./_meta.ts";

/**
 * Each context message with the entry it comes from, looked up among the
 * active path's entries in memory (a compaction puts its summary before
 * the entries it keeps, so the orders differ): an entry's message is the
 * context's own object, or (a summary, a custom message, a message the
 * context cleaned) one of the same role and time. An entry outside the
 * window (windowed open) is not in memory: its message has none.
 *
 * @param session The session (its entries in memory).
 * @param ctx Its context.
 * @returns The messages, in order, each with its entry when found.
 */
export function messageEntries(
  session: Session,
  ctx: SessionContext,
): Shown[] {
  const byObject = new Map<object, SessionEntry>();
  const byKey = new Map<string, SessionEntry>();
  for (const step of ctx.activePath) {
    const e = session.getEntry(step.id);
    if (e === undefined) continue;
    if (
      e.type === "message" && e.message !== null &&
      typeof e.message === "object"
    ) {
      byObject.set(e.message as object, e);
    }
    const m = toMessage(e, {});
    if (m !== undefined) byKey.set(_key(m), e);
  }
  return ctx.messages.map((m) => {
    const entry = byObject.get(m) ?? byKey.get(_key(m));
    return entry === undefined ? { m } : { m, entry };
  });
}

function _key(m: ContextMessage): string {
  return `${m.role}\u0000${String((m as { timestamp?: unknown }).timestamp)}`;
}

/**
 * The outline of the active branch: one line per user message and summary.
 *
 * @param shown The messages shown, with their entries.
 * @param labels Labels in effect.
 * @returns The outline.
 */
export function activeOutline(
  shown: readonly Shown[],
  labels: Readonly<Record<string, string>>,
): OutlineItem[] {
  const items: OutlineItem[] = [];
  for (const { m, entry } of shown) {
    if (entry === undefined) continue;
    const text = outlineLine(m);
    if (text === undefined) continue;
    const item: OutlineItem = {
      anchor: entry.id,
      text,
      depth: 0,
      active: true,
    };
    if (Object.hasOwn(labels, entry.id)) item.tag = labels[entry.id];
    items.push(item);
  }
  return items;
}

/**
 * What an outline says of a message, or undefined when it has no line: a
 * user message's first line, or what a summary is.
 *
 * @param m A message.
 * @returns The line.
 */
export function outlineLine(m: ContextMessage): string | undefined {
  if (m.role === "compactionSummary") return "Summary of earlier history";
  if (m.role === "branchSummary") return "Summary of an abandoned branch";
  if (m.role !== "user") return undefined;
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") return outlineText(content);
  for (const b of Array.isArray(content) ? content : []) {
    if (b?.type === "text" && typeof b.text === "string") {
      return outlineText(b.text);
    }
  }
  return "(an image)";
}
