/**
 * The path a fork at an entry keeps (`forkSession(src, dst, { at })`, pi's
 * `createBranchedSession`): the entries from the root to `at`, found in a
 * first pass over the source's records (their envelopes kept, not their
 * content, but for labels, which are small), by the one walk the context
 * uses (`pathTo`).
 *
 * @module
 */

import { pathTo } from "../context/tree.ts";
import type { SessionEntry } from "../format/entries.ts";
import { quote } from "../format/errors.ts";
import { IssueLog } from "../read/_decode.ts";
import { sessionRecords } from "../read/_records.ts";
import { readLines } from "../read/lines.ts";
import type { ForkSource } from "./_fork_body.ts";

/** The lines a fork at an entry keeps. */
export interface ForkPath {
  /** The ids on the path (migrated ids for a version 1 or 2 source). */
  ids: Set<string>;
  /** Where each of their lines is in the source, in file order. */
  ranges: { offset: number; size: number }[];
  /** The path's entries, root first: envelopes, and labels whole. */
  path: SessionEntry[];
  /** Every entry of the source, in file order: envelopes, and labels whole. */
  all: SessionEntry[];
  /** What the pass read around (the whole file: head and entries). */
  issues: IssueLog;
}

/**
 * Find the path from the root to `at` in the source as it stood when the
 * fork began (up to `from.size`).
 *
 * @param from The source.
 * @param at The entry the fork ends at (a minted id for an older source,
 * as `Session.open` mints them).
 * @returns The path's ids and line ranges.
 * @throws {RangeError} `Cannot fork "<src>" at "<at>": no entry has that id`.
 */
export async function forkPath(
  from: ForkSource,
  at: string,
): Promise<ForkPath> {
  const issues = new IssueLog();
  const byId = new Map<string, SessionEntry>();
  const all: SessionEntry[] = [];
  const where = new Map<string, { offset: number; size: number }>();
  const lines = readLines(from.file, { end: from.size });
  for await (const r of sessionRecords(lines, from.name, issues)) {
    if (r.kind !== "entry") continue;
    const { type, id, parentId, timestamp } = r.value;
    const kept = type === "label"
      ? r.value
      : { type, id, parentId, timestamp } as SessionEntry;
    byId.set(id, kept);
    all.push(kept);
    where.set(id, { offset: r.offset, size: r.size });
  }
  if (!byId.has(at)) {
    throw new RangeError(
      `Cannot fork ${quote(from.name)} at ${quote(at)}: no entry has that id`,
    );
  }
  const path = pathTo(at, byId).entries;
  const ranges = path.map((e) => where.get(e.id)!)
    .sort((a, b) => a.offset - b.offset);
  return { ids: new Set(path.map((e) => e.id)), ranges, path, all, issues };
}
