/**
 * The list of a data dir's sessions through its index: a stat of each
 * file, and its first 4 KiB only where it changed since its row (with
 * summaries, the lines appended since the `summary` facet read it).
 *
 * @module
 */

import { type FileInfo, fs } from "../_fs.ts";
import {
  type FoundFile,
  mapLimit,
  readSessionHead,
  sessionFiles,
} from "../store/_session_files.ts";
import {
  type SessionInfo,
  sessionInfo,
  sortNewestFirst,
} from "../store/session_info.ts";
import type { IndexStore } from "./_index_store.ts";
import { summarizeListed } from "./_index_summaries.ts";
import type { HeadRow } from "./_rows.ts";
import { headRow, infoOfRow, sameStat } from "./_row_values.ts";

/** Options of a list through the index (those of `listSessions`). */
export interface IndexListOptions {
  /** Only this working directory's folder. */
  cwd?: string | undefined;
  /** Include subagent sessions. */
  includeSubagents?: boolean | undefined;
  /** Called for each file skipped, with path and reason. */
  onSkip?: ((path: string, reason: string) => void) | undefined;
  /**
   * Each entry's summary, as `listSessions` gives it: the `summary`
   * facet's, which the list brings up to date for the files that changed.
   */
  summary?: boolean | undefined;
}

/** Heads read at once (as the list without the index reads them), and stats asked at once. */
const _HEAD_READS = 16;
const _STATS = 32;

/**
 * The sessions, newest first, as `listSessions` gives them: each file is
 * stat'ed, and only a file that changed since its row (or that may have
 * changed unseen: an unsettled row) is read (its first 4 KiB); its new row
 * is kept.
 *
 * @param store The index.
 * @param options One cwd; subagents; skipped files.
 * @returns The sessions.
 */
export async function listFromIndex(
  store: IndexStore,
  options: IndexListOptions = {},
): Promise<SessionInfo[]> {
  const readAt = Date.now();
  const files = await sessionFiles(store.dataDir, options);
  const rows = store.rows.heads();
  const unsettled = store.rows.unsettled();
  const out: SessionInfo[] = [];
  const changed: FoundFile[] = [];
  const held = new Map<string, FileInfo>(); // files their rows hold, as they are
  const wanted = (row: HeadRow) =>
    row.titleSource !== "subagent" || options.includeSubagents === true;
  await mapLimit(files, _STATS, async (file) => {
    let info: FileInfo;
    try {
      info = await fs().stat(file.path);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      options.onSkip?.(file.path, `cannot read the first bytes: ${why}`);
      return;
    }
    const row = rows.get(file.path);
    if (
      row === undefined || !sameStat(row, info) || unsettled.has(file.path)
    ) changed.push(file);
    else if (wanted(row)) {
      out.push(infoOfRow(row, info));
      held.set(file.path, info);
    }
  });
  // Files new or changed since their row: their heads, read as the list
  // without the index reads them, then kept.
  const read = await mapLimit(changed, _HEAD_READS, async (file) => {
    const head = await readSessionHead(file.path, { isFile: true }); // so its folder listed it
    if ("skip" in head) {
      options.onSkip?.(file.path, head.skip);
      return undefined;
    }
    const row = headRow(
      file.path,
      head.info,
      head.head,
      head.headBytes,
      file.depth,
    );
    if (wanted(row)) out.push(sessionInfo(file.path, head.info, head.head));
    return row;
  });
  // Kept only where there is no row, or it holds a head alone. A row a
  // refresh read (a state, the facets' progress; or, for a version 1
  // file, no state but the facets' progress) keeps its old stat until a
  // refresh reads what changed: with the new stat, a refresh would take
  // the row for the file, and never read what another writer appended.
  const fresh = read.filter((r): r is HeadRow =>
    r !== undefined &&
    (store.rows.offsetOf(r.path) === undefined || store.rows.isShallow(r.path))
  );
  if (fresh.length > 0) {
    store.keep(() => {
      for (const row of fresh) store.rows.putHead(row, readAt);
    });
  }
  if (options.summary === true) {
    const places = new Map(files.map((f) => [f.path, f]));
    await summarizeListed(store, out, places, held, options.onSkip);
  }
  return sortNewestFirst(out);
}
