/**
 * A reopen through the index: what a windowed open of a file can resume
 * from (its row's state, while the file still holds the bytes the row was
 * made from), and what an open keeps of a file it read whole, so the next
 * open reads only what was appended since.
 *
 * @module
 */

import { fs } from "../_fs.ts";
import type { LoadedSession } from "../read/_records.ts";
import type { ResumeFrom } from "../read/_resume.ts";
import { readSessionHead } from "../store/_session_files.ts";
import { tailHashAt } from "./_facets.ts";
import type { IndexStore } from "./_index_store.ts";
import type { SessionRow } from "./_rows.ts";
import { headRow, resumeOfRow, stateOf } from "./_row_values.ts";

/**
 * What a windowed open of a file can resume from: the row's state, when
 * the file is the same inode, at least as long, with the same bytes just
 * before the row's offset. The read checks that the file's entries still
 * start at the row's `bodyStart`.
 *
 * @param store The index.
 * @param path The file (absolute).
 * @returns What to resume from, or undefined to read the file.
 */
export async function resumeFor(
  store: IndexStore,
  path: string,
): Promise<ResumeFrom | undefined> {
  const row = store.rows.get(path);
  if (row === undefined || row.offset === null) return undefined;
  if (!await _tailUnchanged(path, row)) return undefined;
  try {
    return resumeOfRow(row);
  } catch {
    // A damaged row: read the file; the next refresh rewrites the row.
    return undefined;
  }
}

/**
 * Keep what a read learned of a whole file (its record), so the next open
 * reads only what is appended after it; where the index is read-only,
 * nothing (with a warning: see `IndexStore.keep`).
 *
 * @param store The index.
 * @param path The file (absolute).
 * @param loaded What the read gave.
 */
export async function remember(
  store: IndexStore,
  path: string,
  loaded: LoadedSession,
): Promise<void> {
  const known = store.rows.offsetOf(path);
  if (typeof known === "number" && known === loaded.recordEnd) return; // recorded as it is
  const readAt = Date.now();
  const read = await readSessionHead(path);
  if ("skip" in read) return;
  // The stat is taken after the read: bytes past the recorded end (an
  // append since, or an unfinished last line) would have the row claim
  // them with a state that does not hold them, and a refresh would not
  // read them. Such a file is left for the refresh.
  if (read.info.size !== loaded.recordEnd) return;
  const head = headRow(
    path,
    read.info,
    read.head,
    read.headBytes,
    store.depthOf(path),
  );
  const state = await stateOf(path, loaded);
  store.keep(() => {
    store.rows.putHead(head, readAt);
    if (state !== undefined) store.rows.putState(path, state);
  });
}

/** Whether the file is the row's inode, at least as long, with the same bytes before its offset. */
async function _tailUnchanged(
  path: string,
  row: SessionRow,
): Promise<boolean> {
  try {
    const info = await fs().stat(path);
    if (info.ino !== row.ino || info.dev !== row.dev) return false;
    if (row.offset === null || info.size < row.offset) return false;
    return await tailHashAt(path, row.offset) === row.tailHash;
  } catch {
    return false;
  }
}
