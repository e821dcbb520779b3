/**
 * Bringing an index up to date with the files: each file's row (its head
 * always; its state resumed from the row's, reading only what was
 * appended) and its facets, in short transactions; rows of files that are
 * gone are forgotten.
 *
 * @module
 */

import { resolve } from "node:path";
import { type FileInfo, fs } from "../_fs.ts";
import {
  type FoundFile,
  mapLimit,
  sessionFiles,
} from "../store/_session_files.ts";
import { FilesPrint, type FreshMark } from "./_fresh.ts";
import { keepMark, listedUncovered, uncoveredAfter } from "./_keep_mark.ts";
import type { IndexStore } from "./_index_store.ts";
import type { WriteClock } from "./_freshness.ts";
import { refreshFile, type RefreshOutcome } from "./_refresh_file.ts";
import type { StatRow } from "./_rows.ts";
import { sameStat } from "./_row_values.ts";
import { uncoveredFiles } from "./_search_query.ts";

/** Options for a refresh. */
export interface RefreshOptions {
  /** Called after each file, with how many of how many are done. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Forget every row first: rebuild the index from the files (a file a
   * quick check finds damaged is made anew, see `SessionIndex.refresh`).
   */
  rebuild?: boolean;
}

/** What a refresh did. */
export interface RefreshResult {
  /** Sessions in the index afterwards. */
  sessions: number;
  /** Files read (new, grown or changed). */
  refreshed: number;
  /** Rows of files that are gone. */
  removed: number;
  /** Files that are not sessions (their head does not read). */
  skipped: number;
  /** Milliseconds the refresh took. */
  ms: number;
  /**
   * Whether nothing had changed since the last complete refresh: the
   * files' names and metadata were those it saw, and no write to the
   * index came after it, so no row was read. Files modified within 2 s
   * of when a refresh read them were checked (their heads, and the bytes
   * before their rows' offsets), and held the bytes read.
   */
  fresh: boolean;
}

/** Files read at once by a refresh, and stats asked at once. */
const _CONCURRENCY = 4;
const _STATS = 32;

/**
 * Bring the index up to date with every file of its data dir: a stat of
 * each; when they are what the last complete refresh saw (its mark, see
 * `_fresh.ts`), nothing more; else each stat compared with its row, and
 * the files that changed read.
 *
 * @param store The index.
 * @param options Progress; rebuild from scratch.
 * @returns What it did.
 */
export async function refreshAll(
  store: IndexStore,
  options: RefreshOptions = {},
): Promise<RefreshResult> {
  const started = performance.now();
  const readAt = Date.now(); // before any stat: see isUnsettled
  if (options.rebuild === true) store.forgetAll();
  const clock = store.writeClock(); // before any row is read
  const files = await sessionFiles(store.dataDir, { includeSubagents: true });
  // First every file's stat: most are unchanged and need nothing else.
  const infos = await mapLimit(
    files,
    _STATS,
    (file) => fs().stat(file.path).catch(() => undefined), // gone since its folder was read: skipped
  );
  const print = new FilesPrint();
  for (const [i, file] of files.entries()) print.add(file.path, infos[i]);
  const seen = _seen(store, print, options.rebuild === true);
  if (seen.rows === undefined) {
    // Every file is as the last complete refresh saw it: no row to read
    // but those that may have changed unseen.
    const result = await _settle(store, seen.mark, {
      files,
      infos,
      unsettled: seen.unsettled,
      readAt,
      clock,
    });
    options.onProgress?.(files.length, files.length);
    return { ...result, ms: Math.round(performance.now() - started) };
  }
  const result = await _refreshChanged(store, seen, {
    files,
    infos,
    print,
    readAt,
    clock,
    ...(options.onProgress === undefined
      ? {}
      : { onProgress: options.onProgress }),
  });
  result.ms = Math.round(performance.now() - started);
  return result;
}

/** The rows a refresh compares the files' stats with. */
interface _Rows {
  mark: FreshMark | undefined;
  /** The rows that may have changed unseen. */
  unsettled: Set<string>;
  /** Every row's stat. */
  rows: Map<string, StatRow>;
  /** Rows with a head only (a list made them: read whole). */
  shallow: Set<string>;
  /** Rows some facet has not read to their end. */
  behind: Set<string>;
}

/**
 * The mark and the rows from one state of the index (a row another process
 * writes between them could otherwise go unseen); no rows when the files
 * are what the mark saw.
 */
function _seen(
  store: IndexStore,
  print: FilesPrint,
  rebuild: boolean,
):
  | _Rows
  | { mark: FreshMark; unsettled: Set<string>; rows: undefined } {
  return store.snapshot(() => {
    const mark = store.freshMark();
    const unsettled = store.rows.unsettled();
    if (
      mark !== undefined && print.complete && mark.print === print.value &&
      !rebuild
    ) return { mark, unsettled, rows: undefined };
    // A standing mark (the files changed since, the index did not) says
    // there are no shallow rows nor rows behind: the last complete refresh
    // left none, and nothing was written after it.
    const standing = mark !== undefined;
    return {
      mark,
      unsettled,
      rows: store.rows.stats(),
      shallow: standing ? new Set<string>() : store.rows.shallow(),
      behind: standing ? new Set<string>() : store.behind(),
    };
  });
}

/** What a refresh that compares the files with their rows needs. */
interface _RefreshWork {
  /** Every file, in the order of `infos`. */
  files: readonly FoundFile[];
  /** Their stats (undefined: gone since their folder was read). */
  infos: readonly (FileInfo | undefined)[];
  /** The files' fingerprint, for the mark this refresh leaves. */
  print: FilesPrint;
  /** When the refresh began. */
  readAt: number;
  /** The index as it stood before any row was read. */
  clock: WriteClock;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Each file's stat compared with its row, the files that changed read, the
 * rows of files that are gone forgotten; then the mark of a complete
 * refresh left.
 */
async function _refreshChanged(
  store: IndexStore,
  seen: _Rows,
  work: _RefreshWork,
): Promise<RefreshResult> {
  const { files, infos, readAt } = work;
  const { rows, shallow, behind, unsettled } = seen;
  const result = {
    sessions: 0,
    refreshed: 0,
    removed: 0,
    skipped: 0,
    ms: 0,
    fresh: false,
  };
  let done = 0;
  const count = (outcome: RefreshOutcome): void => {
    if (outcome === "read") result.refreshed++;
    if (outcome === "skipped") result.skipped++;
    else result.sessions++;
    work.onProgress?.(++done, files.length);
  };
  const changed: [FoundFile, FileInfo, StatRow | undefined][] = [];
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    const info = infos[i];
    if (info === undefined) {
      count("skipped");
      continue;
    }
    const known = shallow.has(file.path) ? undefined : rows.get(file.path);
    if (
      known !== undefined && sameStat(known, info) &&
      !behind.has(file.path) && !unsettled.has(file.path)
    ) {
      count("unchanged");
    } else changed.push([file, info, known]);
  }
  const touched: string[] = []; // files whose rows this refresh wrote
  // Small files' writes are saved a group at a time (see IndexStore.batched).
  await store.batched(() =>
    mapLimit(changed, _CONCURRENCY, async ([file, info, known]) => {
      const outcome = await refreshFile(store, file, info, known, {
        behind: behind.has(file.path),
        unsettled: unsettled.has(file.path),
        readAt,
      });
      if (outcome !== "unchanged") touched.push(file.path);
      count(outcome);
    })
  );
  const found = new Set(files.map((f) => f.path));
  for (const path of rows.keys()) {
    if (found.has(path)) continue;
    store.write(() => store.forget(path));
    touched.push(path);
    result.removed++;
  }
  if (work.print.complete) _leaveMark(store, seen.mark, work, result, touched);
  return result;
}

/**
 * The mark of a complete refresh, once every file's stat was read. A
 * standing mark's list of files the search index does not cover holds for
 * every file this refresh did not write.
 */
function _leaveMark(
  store: IndexStore,
  standing: FreshMark | undefined,
  work: _RefreshWork,
  result: RefreshResult,
  touched: readonly string[],
): void {
  const uncovered = standing?.uncovered
    ? uncoveredAfter(store, standing.uncovered, touched)
    : listedUncovered(store.read((db) => uncoveredFiles(db, {})));
  store.leaveFreshMark({
    print: work.print.value,
    sessions: result.sessions,
    skipped: result.skipped,
    uncovered,
  }, work.clock);
}

/**
 * Bring one file's row up to date (reading only what was appended since
 * it was indexed).
 *
 * @param store The index.
 * @param path The file, in the index's data dir.
 * @returns Whether the row was read anew.
 */
export async function refreshOne(
  store: IndexStore,
  path: string,
): Promise<boolean> {
  path = resolve(path);
  const readAt = Date.now();
  let info: FileInfo;
  try {
    info = await fs().stat(path);
  } catch {
    return false;
  }
  const clock = store.writeClock();
  const before = store.snapshot(() => ({
    mark: store.freshMark(),
    // A row with a head only (a list made it) is read as a new file.
    known: store.rows.isShallow(path) ? undefined : store.rows.statOf(path),
    unsettled: store.rows.isUnsettledRow(path),
  }));
  const { mark, known } = before;
  const outcome = await refreshFile(
    store,
    { path, depth: store.depthOf(path) },
    info,
    known,
    {
      behind: known === undefined || store.behind(path).has(path),
      unsettled: before.unsettled,
      readAt,
    },
  );
  if (outcome === "skipped") return false;
  // A row settled or read anew took the mark away: it holds again with
  // the file's new stat.
  if (mark !== undefined && store.freshMark() === undefined) {
    keepMark(store, path, mark, known, clock);
  }
  return outcome === "read";
}

/** What a refresh that found every file as its mark says needs. */
interface _SettleWork {
  /** Every file, in the order of `infos`. */
  files: readonly FoundFile[];
  /** Their stats (all there: the mark's fingerprint was complete). */
  infos: readonly (FileInfo | undefined)[];
  /** The rows that may have changed unseen. */
  unsettled: ReadonlySet<string>;
  /** When the refresh began. */
  readAt: number;
  /** The index as it stood before any row was read. */
  clock: WriteClock;
}

/**
 * A refresh that finds every file as the last complete refresh saw it:
 * only the files of unsettled rows are looked at, read again where their
 * bytes changed under the same stat, and settled once old enough; then
 * the mark is left again (their writes took it away).
 */
async function _settle(
  store: IndexStore,
  mark: FreshMark,
  work: _SettleWork,
): Promise<Omit<RefreshResult, "ms">> {
  const result = {
    sessions: mark.sessions,
    refreshed: 0,
    removed: 0,
    skipped: mark.skipped,
    fresh: true,
  };
  if (work.unsettled.size === 0) return result;
  const touched: string[] = [];
  for (let i = 0; i < work.files.length; i++) {
    const file = work.files[i]!;
    const info = work.infos[i];
    if (!work.unsettled.has(file.path) || info === undefined) continue;
    const outcome = await refreshFile(
      store,
      file,
      info,
      store.rows.statOf(file.path),
      { behind: false, unsettled: true, readAt: work.readAt },
    );
    if (outcome === "unchanged") continue;
    touched.push(file.path);
    result.fresh = false;
    if (outcome === "read") result.refreshed++;
    else {
      result.sessions--;
      result.skipped++;
    }
  }
  if (store.freshMark() === undefined) {
    store.leaveFreshMark({
      print: mark.print,
      sessions: result.sessions,
      skipped: result.skipped,
      uncovered: mark.uncovered === null
        ? null
        : uncoveredAfter(store, mark.uncovered, touched),
    }, work.clock);
  }
  return result;
}
