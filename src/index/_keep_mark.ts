/**
 * Keeping the mark of a complete refresh (`_fresh.ts`) standing after
 * writes that keep it true: a file read anew by itself, the files of
 * unsettled rows checked; and the files to scan the mark lists, brought up
 * to date for the files written.
 *
 * @module
 */

import { FilesPrint, type FreshMark, MARK_UNCOVERED } from "./_fresh.ts";
import type { IndexStore } from "./_index_store.ts";
import type { WriteClock } from "./_freshness.ts";
import type { StatRow } from "./_rows.ts";
import { isUncovered, uncoveredFiles } from "./_search_query.ts";

/**
 * Leave standing the mark that stood before one file was read anew (a
 * session closed after its appends does this): its fingerprint with the
 * file's old stat taken out (its row's, which the mark vouched for) and the
 * new one put in, and the file's place in the list of files to scan
 * updated. The next refresh then finds the files as this mark says, and
 * reads no row. A file the mark did not count as a session (new, or one
 * that was not a session before) gives a fingerprint no listing will
 * match: the next refresh compares every row, as it would have.
 */
export function keepMark(
  store: IndexStore,
  path: string,
  mark: FreshMark,
  old: StatRow | undefined,
  clock: WriteClock,
): void {
  const print = FilesPrint.parse(mark.print);
  const now = store.rows.statOf(path);
  if (print === undefined || now === undefined) return;
  if (old !== undefined) print.removeStat(path, old);
  print.addStat(path, now);
  store.leaveFreshMark({
    print: print.value,
    sessions: mark.sessions + (old === undefined ? 1 : 0),
    skipped: mark.skipped,
    uncovered: mark.uncovered === null
      ? null
      : uncoveredAfter(store, mark.uncovered, [path]),
  }, clock);
}

/**
 * The files to scan a mark keeps, after the rows of `touched` were written
 * (or forgotten): each of those asked again, the others as they were.
 */
export function uncoveredAfter(
  store: IndexStore,
  before: readonly string[],
  touched: readonly string[],
): string[] | null {
  if (touched.length > _ASK_EACH_UP_TO) {
    return listedUncovered(store.read((db) => uncoveredFiles(db, {})));
  }
  const changed = new Set(touched);
  const after = before.filter((path) => !changed.has(path));
  store.read((db) => {
    for (const path of changed) if (isUncovered(db, path)) after.push(path);
  });
  return listedUncovered(after);
}

/**
 * Files written past which the files to scan are asked of every row at
 * once (one file's question ~10–14 µs, every row's ~8 ms for 10,000).
 */
const _ASK_EACH_UP_TO = 500;

/** The files to scan as a mark keeps them: null past {@linkcode MARK_UNCOVERED}. */
export function listedUncovered(paths: string[]): string[] | null {
  return paths.length <= MARK_UNCOVERED ? paths : null;
}
