/**
 * The sidebar's outline, and the active branch's messages as they happened,
 * each with its entry (for its anchor and its usage): the active branch's
 * outline is its turns; the tree's is every user message, nested by branch, the active
 * path marked.
 *
 * @module
 */

import { visibleEntries } from "../context/context.ts";
import { type ContextMessage, toMessage } from "../context/messages.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { Session } from "../session/session.ts";
import { entryNote, type Shown } from "./_document.ts";
import { type OutlineItem, outlineText } from "./_meta.ts";

/** A line of our own between the messages of a branch (a model change). */
export interface PathNote {
  /** What it says. */
  note: string;
  /** The entry it stands for. */
  entry: SessionEntry;
}

/**
 * The branch ending at `leafId` as it happened, with each message's entry:
 * the entries in memory that reach the model (from a compaction's summary
 * and kept window on, as {@linkcode visibleEntries} has them), each made a
 * message by {@linkcode toMessage} and not cleaned. So, unlike
 * `buildContext().messages` (what the model is given, `cli context`),
 * aborted and failed turns are there with their tool calls and results,
 * and a model change is a note. An entry outside the window (windowed
 * open) is not in memory and not shown.
 *
 * @param session The session (its entries in memory).
 * @param leafId Where the branch ends; undefined: the session's leaf.
 * @returns The messages and notes, in order.
 */
export function branchAsItHappened(
  session: Session,
  leafId: string | undefined,
): (Shown | PathNote)[] {
  const entries = session.getBranch(leafId);
  const out: (Shown | PathNote)[] = [];
  for (const entry of visibleEntries({ entries }, "xdev")) {
    const m = toMessage(entry, {});
    if (m !== undefined) out.push({ m, entry });
    else if (entry.type === "model_change") {
      const note = entryNote(entry);
      if (note !== undefined) out.push({ note, entry });
    }
  }
  return out;
}

/**
 * The outline of the active branch: one line per user message and summary.
 *
 * @param shown The messages shown, with their entries.
 * @param labels Labels in effect.
 * @returns The outline.
 */
export function activeOutline(
  shown: readonly (Shown | PathNote)[],
  labels: Readonly<Record<string, string>>,
): OutlineItem[] {
  const items: OutlineItem[] = [];
  for (const s of shown) {
    const { entry } = s;
    if (entry === undefined || !("m" in s)) continue;
    const text = outlineLine(s.m);
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
