/**
 * The summaries of a list through the index (`SessionIndex.list({ summary:
 * true })`): the `summary` facet's, for each file whose row still holds
 * (its stat) and which the facet read to the row's end; the others fed to
 * the facet first, each from where it stopped (a file appended to costs
 * the appended lines, a new file its lines once), so the next list reads
 * none of them. Where the index cannot keep them (read-only, locked), a
 * file is read whole, as the list without the index reads it.
 *
 * @module
 */

import type { FileInfo } from "../_fs.ts";
import {
  type FoundFile,
  mapLimit,
  readSessionHead,
} from "../store/_session_files.ts";
import { type SessionInfo, withSummary } from "../store/session_info.ts";
import { summarizeFile } from "../store/list.ts";
import { wholeLinesEnd } from "./_facet_lines.ts";
import type { IndexStore } from "./_index_store.ts";
import { isReadOnly } from "./_sqlite_errors.ts";
import {
  storedSummaries,
  type StoredSummary,
  SUMMARY_FACET,
} from "./_summary_facet.ts";

/** Files fed at once (their heads and tails read, a few at a time). */
const _FEEDS = 16;

/** Where a feed left the facet: the end of the lines it read, and the file's identity. */
interface _Fed {
  end: number;
  info: FileInfo;
}

/**
 * Give each listed session its summary (`withSummary`), from the index
 * where it holds one for the file as it is.
 *
 * @param store The index.
 * @param listed The sessions listed.
 * @param files Each listed file's place (its depth), by path.
 * @param held The stat of each file whose row holds it (unchanged since).
 * @param onSkip Where a file whose entries cannot be read is reported.
 */
export async function summarizeListed(
  store: IndexStore,
  listed: readonly SessionInfo[],
  files: ReadonlyMap<string, FoundFile>,
  held: ReadonlyMap<string, FileInfo>,
  onSkip?: (path: string, reason: string) => void,
): Promise<void> {
  const stored = store.read((db) => storedSummaries(db));
  const missing: SessionInfo[] = [];
  for (const info of listed) {
    const s = stored.get(info.path);
    const stat = held.get(info.path);
    if (s !== undefined && stat !== undefined && _holds(s, stat)) {
      withSummary(info, s.summary);
    } else missing.push(info);
  }
  if (missing.length === 0) return;
  const fed = new Map<string, _Fed>();
  try {
    await store.batched(() =>
      mapLimit(missing, _FEEDS, async (info) => {
        const file = files.get(info.path);
        const done = file === undefined ? undefined : await _feed(store, file);
        if (done !== undefined) fed.set(info.path, done);
      })
    );
  } catch (err) {
    if (!isReadOnly(err)) throw err;
    fed.clear(); // nothing kept: each file is read below
  }
  const after = fed.size === 0
    ? new Map<string, StoredSummary>()
    : store.read((db) => storedSummaries(db));
  await mapLimit(missing, _FEEDS, async (info) => {
    const s = after.get(info.path);
    const f = fed.get(info.path);
    if (
      s !== undefined && f !== undefined && s.offset === f.end &&
      s.dev === f.info.dev && s.ino === f.info.ino
    ) {
      withSummary(info, s.summary);
      return;
    }
    try {
      withSummary(info, await summarizeFile(info.path));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      onSkip?.(info.path, `cannot read its entries: ${why}`);
    }
  });
}

/**
 * Whether a stored summary is the file's as it is (whose row holds `stat`):
 * read from this inode, to the end its row's state covers. A row that
 * keeps no state (a version 1 file's, or a head a list kept) says nothing
 * of where the facet stopped, which may be before an append the row's
 * head was read after: such a summary holds when it covers every byte
 * (a file with a last line without "\n" is fed again, from where it
 * stopped, at each list).
 */
function _holds(s: StoredSummary, stat: FileInfo): boolean {
  return s.dev === stat.dev && s.ino === stat.ino &&
    s.offset === (s.rowOffset ?? stat.size);
}

/** Feed the summary facet one file's lines up to its last whole one; undefined when it is no longer a session. */
async function _feed(
  store: IndexStore,
  file: FoundFile,
): Promise<_Fed | undefined> {
  const read = await readSessionHead(file.path, { isFile: true });
  if ("skip" in read) return undefined;
  const { bodyStart, header } = read.head;
  const end = await wholeLinesEnd(file.path, read.info.size, bodyStart);
  await store.feed(
    { path: file.path, depth: file.depth, header },
    read.info,
    { bodyStart, end },
    undefined,
    [SUMMARY_FACET],
  );
  return { end, info: read.info };
}
