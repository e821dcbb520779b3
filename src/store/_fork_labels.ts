/**
 * The labels of a fork at an entry: what follows the path so that its
 * entries keep the labels they have in the source.
 *
 * @module
 */

import { collectLabels } from "../context/labels.ts";
import type { SessionEntry } from "../format/entries.ts";
import { newEntryId } from "../format/_entry_id.ts";

/**
 * What follows a fork's path so the labels of its entries are the
 * source's: a `label` entry for each that the path's own label entries
 * leave otherwise, chained from the path's end, then a branch marker back
 * to it (so the leaf stays the entry forked at). None when they agree.
 *
 * @param path The path forked, root first.
 * @param all Every entry of the source, in file order.
 * @param timestamp The new entries' time.
 * @returns The entries to write after the path.
 */
export function labelsAfterPath(
  path: readonly SessionEntry[],
  all: readonly SessionEntry[],
  timestamp: string,
): SessionEntry[] {
  const want = collectLabels(all);
  const have = collectLabels(path);
  const taken = new Set(all.map((e) => e.id));
  const at = path.at(-1)!.id;
  const out: SessionEntry[] = [];
  let parentId = at;
  for (const e of path) {
    if (want[e.id] === have[e.id]) continue;
    const id = newEntryId(taken);
    taken.add(id);
    const entry: SessionEntry = want[e.id] === undefined
      ? { type: "label", id, parentId, timestamp, targetId: e.id }
      : {
        type: "label",
        id,
        parentId,
        timestamp,
        targetId: e.id,
        label: want[e.id],
      };
    out.push(entry);
    parentId = id;
  }
  if (out.length === 0) return out;
  const id = newEntryId(taken);
  out.push({
    type: "custom",
    id,
    parentId: at,
    timestamp,
    customType: "branch",
    data: { to: at },
  });
  return out;
}
