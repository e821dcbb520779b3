/**
 * How current the index is, as a refresh asks it: where the index stands
 * (the write clock: SQLite's `PRAGMA data_version` and this connection's
 * writes not saved), the mark a complete refresh leaves only when neither
 * moved (`_fresh.ts` says what it holds), and the paths some facet has not
 * read to their row's end. {@linkcode IndexStore} answers through these.
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import { FACETS } from "./_facet_list.ts";
import { type FreshMark, markOf, markText } from "./_fresh.ts";
import { prepared } from "./_prepared.ts";
import { FRESH_MARK_KEY } from "./_schema.ts";
import type { IndexWrites } from "./_writes.ts";

/** What {@linkcode IndexStore.writeClock} gives. */
export interface WriteClock {
  /** `PRAGMA data_version`: changes when another connection commits. */
  dataVersion: number;
  /** This connection's transactions not saved so far. */
  unsaved: number;
}

/** Where the index stands ({@linkcode IndexStore.writeClock}). */
export function writeClockOf(db: IndexDb, writes: IndexWrites): WriteClock {
  return { dataVersion: _dataVersion(db), unsaved: writes.unsaved };
}

/** The mark the last complete refresh left ({@linkcode IndexStore.freshMark}). */
export function readFreshMark(db: IndexDb): FreshMark | undefined {
  const row = prepared(db, "SELECT value FROM meta WHERE key = ?")
    .get(FRESH_MARK_KEY) as { value: string } | undefined;
  return markOf(row?.value);
}

/**
 * Leave the mark of a complete refresh unless the index moved since
 * `clock` ({@linkcode IndexStore.leaveFreshMark}).
 *
 * @returns Whether the mark was left.
 */
export function leaveFreshMark(
  db: IndexDb,
  writes: IndexWrites,
  mark: FreshMark,
  clock: WriteClock,
): boolean {
  if (writes.unsaved !== clock.unsaved) return false;
  let left = false;
  writes.transaction(() => {
    // Inside the write lock: no other commit can come between.
    if (_dataVersion(db) !== clock.dataVersion) return;
    prepared(
      db,
      "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
    ).run(FRESH_MARK_KEY, markText(mark));
    left = true;
  });
  return left;
}

/** SQLite's count of other connections' commits, as this connection sees it. */
function _dataVersion(db: IndexDb): number {
  const row = prepared(db, "PRAGMA data_version").get() as {
    data_version: number;
  };
  return row.data_version;
}

/** Paths some facet is behind on ({@linkcode IndexStore.behind}): all, or only `path`. */
export function behindPaths(db: IndexDb, path?: string): Set<string> {
  // One pass over the rows: each counts the facets that read it to its
  // offset with their current version (a range of the facets' key).
  const current = FACETS.map(() => "(f.facet = ? AND f.version = ?)")
    .join(" OR ");
  const rows = prepared(
    db,
    `SELECT s.path AS path FROM sessions s
     WHERE ${path === undefined ? "" : "s.path = ? AND"} s.offset IS NOT NULL
       AND (SELECT count(*) FROM facets f
            WHERE f.path = s.path AND f.offset = s.offset
              AND (${current})) != ?`,
  ).all(
    ...(path === undefined ? [] : [path]),
    ...FACETS.flatMap((facet) => [facet.name, facet.version]),
    FACETS.length,
  ) as { path: string }[];
  return new Set(rows.map((r) => r.path));
}

/** Where each facet stopped reading `path`, and the hash of the bytes before. */
export function facetEnds(
  db: IndexDb,
  path: string,
): { offset: number; tailHash: string }[] {
  return prepared(
    db,
    "SELECT DISTINCT offset, tailHash FROM facets WHERE path = ?",
  ).all(path) as { offset: number; tailHash: string }[];
}
