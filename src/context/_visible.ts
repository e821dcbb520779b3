/**
 * Which entries of the active path reach the model: the reset and compaction
 * rule (DESIGN §3.7).
 *
 * @module
 */

import type { CompactionEntry, SessionEntry } from "../format/entries.ts";
import type { ActivePath } from "./tree.ts";

/** Which rule settles a compaction whose kept window reaches back past a reset. */
export type ResetRule = "xdev" | "omp";

/** The entries whose messages reach the model, in order. */
export function visibleEntries(
  path: ActivePath,
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
