/**
 * One file's refresh: its row brought up to date with the file (the head
 * always; the state resumed from the row's, reading only what was
 * appended) and its facets fed, the row in their first transaction.
 *
 * @module
 */

import type { FileInfo } from "../_fs.ts";
import { readSessionFile } from "../read/_session_file.ts";
import { type FoundFile, readSessionHead } from "../store/_session_files.ts";
import { wholeLinesEnd } from "./_facet_lines.ts";
import type { IndexStore } from "./_index_store.ts";
import { resumeFor } from "./_reopen.ts";
import { isUnsettled, type StateRow, type StatRow } from "./_rows.ts";
import { headRow, holdsRow, sameStat, stateOf } from "./_row_values.ts";

/** What a refresh did with one file. */
export type RefreshOutcome = "read" | "unchanged" | "skipped";

/** What a refresh knows of a file's row besides its stat. */
export interface RowState {
  /** Some facet has not read it to its offset. */
  behind: boolean;
  /** It may have changed unseen (see `isUnsettled`). */
  unsettled: boolean;
  /** When the refresh began, before its stat (ms since the epoch). */
  readAt: number;
}

/**
 * Read one file into its row: head always, state from the row's (or from
 * scratch), then the facets up to the state's offset, the row in their
 * first transaction. A file whose stat is its row's is left as it is,
 * unless its row is unsettled and its bytes say it changed.
 */
export async function refreshFile(
  store: IndexStore,
  file: FoundFile,
  info: FileInfo,
  known: StatRow | undefined,
  row: RowState,
): Promise<RefreshOutcome> {
  const { path, depth } = file;
  if (
    known !== undefined && sameStat(known, info) &&
    (!row.unsettled ||
      await holdsRow(
        path,
        store.rows.checksOf(path),
        () => store.facetEnds(path),
      ))
  ) {
    if (row.unsettled && !isUnsettled(info.mtimeMs, row.readAt)) {
      store.write(() => store.rows.settle(path));
    }
    if (row.behind) await _catchUpFacets(store, file, info, known);
    return "unchanged";
  }
  const read = await readSessionHead(path, { isFile: info.kind === "file" });
  if ("skip" in read) {
    // No longer a session: its row goes, a head-only one (read as a new
    // file: `known` is undefined for it) as much as a full one.
    if (store.rows.offsetOf(path) !== undefined) {
      store.write(() => store.forget(path));
    }
    return "skipped";
  }
  const head = headRow(path, read.info, read.head, read.headBytes, depth);
  const state = await _readState(store, path, known !== undefined);
  const put = () => {
    store.rows.putHead(head, row.readAt);
    // A file that gives no state now (rewritten as a version 1 file, say)
    // loses the one its row kept of what it held before.
    if (state !== undefined) store.rows.putState(path, state);
    else store.rows.clearState(path);
  };
  // The row and the facets' first lines in one transaction; a file the
  // index keeps no state of (one read whole) is fed up to its last whole line.
  await store.feed(
    { path, depth, header: read.head.header },
    read.info,
    {
      bodyStart: head.bodyStart,
      end: state?.offset ??
        await wholeLinesEnd(path, read.info.size, head.bodyStart),
      endHash: state?.tailHash ?? undefined,
    },
    put,
  );
  return "read";
}

/**
 * A file's state, resumed from its row's when it has one (reading only
 * what was appended); undefined for a file unreadable past its head,
 * which is listed but not indexed deeper.
 */
async function _readState(
  store: IndexStore,
  path: string,
  hasRow: boolean,
): Promise<StateRow | undefined> {
  const resume = hasRow ? await resumeFor(store, path) : undefined;
  try {
    const loaded = await readSessionFile(path, {
      window: true,
      record: true,
      ...(resume === undefined ? {} : { resume }),
    });
    return await stateOf(path, loaded);
  } catch {
    return undefined;
  }
}

/** The facets of a file whose row is current but which they have not all read (a new facet, or an open that recorded the file). */
async function _catchUpFacets(
  store: IndexStore,
  file: FoundFile,
  info: FileInfo,
  known: StatRow,
): Promise<void> {
  const row = store.rows.get(file.path);
  if (row?.offset === null || row?.offset === undefined) return;
  const read = await readSessionHead(file.path, {
    isFile: info.kind === "file",
  });
  if ("skip" in read) return;
  await store.feed(
    { ...file, header: read.head.header },
    read.info,
    { bodyStart: known.bodyStart, end: row.offset },
  );
}
