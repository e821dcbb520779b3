/**
 * The indexed half of a search: bring the session index up to date (or
 * take it as it is), take the hits among the files its `search` facet
 * holds whole, and name the files in scope it does not hold whole, which
 * are scanned. Scope and completeness are settled in SQL, so a search of
 * thousands of sessions touches only the rows that may match; the index
 * keeps no text, so each of those lines is read back from its file and
 * decided there, through the same `lineText` as the scan. A line that no
 * longer reads as it did when it was indexed (the file was changed behind
 * a search that did not refresh the index) gives nothing.
 *
 * @module
 */

import { type FileHandle, isNotFound } from "../_fs.ts";
import type { PathSteps } from "../context/_path_steps.ts";
import { quote } from "../format/errors.ts";
import { SESSION_VERSION } from "../format/header.ts";
import { openRegular, readFull } from "../read/_open.ts";
import { CR, LF } from "../read/lines.ts";
import {
  candidateRows,
  indexedPath,
  type LocatedLine,
  oversizedRows,
  sessionLabel,
  skippedRows,
  uncoveredFiles,
} from "./_search_query.ts";
import { narrowing } from "./_narrowing.ts";
import type { IndexStore } from "./_index_store.ts";
import { refreshAll } from "./_refresh.ts";
import { type HitFilter, HitList } from "../search/_hits.ts";
import type { SearchQuery } from "../search/_query.ts";
import type { IndexedHits, SearchScope } from "../search/search.ts";
import {
  type LineText,
  SEARCH_HEAD_BYTES,
  storedLineText,
} from "../search/_text.ts";

/** What {@linkcode searchIndex} needs. */
export interface IndexSearchOptions {
  /** The most hits. */
  limit: number;
  /** Role and date of entries. */
  filter: HitFilter;
  /** Folder and date of files. */
  scope: SearchScope;
  /** Refresh first (default true). */
  refresh?: boolean | undefined;
  /** Progress of the refresh. */
  onProgress?: ((done: number, total: number) => void) | undefined;
}

/**
 * Search through the index; undefined when it fails (then everything is
 * scanned, with one warning: a damaged index is made anew, for the next
 * refresh to fill), or when the refresh could not save what it read (a
 * lock held past the wait, already warned of: the rows would be older
 * than the files).
 *
 * @param index The open index.
 * @param query The query.
 * @param o Limit, filters, scope, refresh.
 * @returns The hits, and the files left to scan.
 */
export async function searchIndex(
  index: IndexStore,
  query: SearchQuery,
  o: IndexSearchOptions,
): Promise<IndexedHits | undefined> {
  try {
    if (o.refresh !== false) {
      const onProgress = o.onProgress;
      const before = index.writeClock().unsaved;
      await refreshAll(index, onProgress === undefined ? {} : { onProgress });
      if (index.writeClock().unsaved !== before) return undefined;
    }
    return await index.read(async (db) => {
      const hits = new HitList(query, o.limit, o.filter);
      const lines = new _LinesAt();
      try {
        const match = narrowing(db, query);
        for (const row of candidateRows(db, match, o.filter, o.scope)) {
          const found = await lines.text(row);
          if (found !== undefined) hits.take(row.path, row.offset, found);
          if (hits.full) break;
        }
        for (const row of skippedRows(db, match, o.scope)) {
          const found = await lines.text(row);
          if (found !== undefined) hits.take(row.path, row.offset, found);
        }
        const paths = new Map<string, PathSteps | undefined>();
        for (const hit of hits.hits) {
          if (!paths.has(hit.path)) {
            paths.set(hit.path, indexedPath(db, hit.path));
          }
          const steps = paths.get(hit.path);
          hit.onActivePath = (steps?.indexOf(hit.entryId) ?? -1) >= 0;
          const label = sessionLabel(db, hit.path);
          if (label !== undefined) {
            hit.session = label.title === null
              ? { id: label.id }
              : { id: label.id, title: label.title };
          }
        }
        hits.oversized.push(...oversizedRows(db, o.scope));
        const marked = index.freshMark()?.uncovered ?? undefined;
        return { hits, toScan: uncoveredFiles(db, o.scope, marked) };
      } finally {
        await lines[Symbol.asyncDispose]();
      }
    });
  } catch (err) {
    await index.recover(err, "scanning the files");
    return undefined;
  }
}

/** Files kept open at once while reading lines back. */
const _OPEN_FILES = 64;

/** Reads located lines back, keeping a few files open. */
class _LinesAt implements AsyncDisposable {
  readonly #files = new Map<string, FileHandle | null>();

  /**
   * What a located line gives the search, read from its file now.
   *
   * @param line Where it is, and what it gave.
   * @returns Its text, or undefined when it no longer reads as it did.
   * @throws {Error} When its file cannot be read (gone is not an error).
   */
  async text(line: LocatedLine): Promise<LineText | undefined> {
    const file = await this.#open(line.path);
    if (file === null) return undefined;
    const legacy = line.version < SESSION_VERSION;
    const head = !legacy && line.expected.skip === "too-long";
    // The byte before the line too: both ends must be ends of lines.
    const want = (head ? Math.min(line.size, SEARCH_HEAD_BYTES) : line.size) +
      1;
    const bytes = new Uint8Array(want);
    if (await readFull(file, bytes, line.offset - 1) < want) return undefined;
    if (bytes[0] !== LF) return undefined;
    let length: number;
    if (head) {
      const tail = new Uint8Array(2);
      const at = line.offset + line.size - 2;
      if (await readFull(file, tail, at) < 2 || tail[1] !== LF) {
        return undefined;
      }
      length = line.size - (tail[0] === CR ? 2 : 1);
    } else {
      if (bytes[want - 1] !== LF) return undefined;
      length = line.size - (line.size > 1 && bytes[want - 2] === CR ? 2 : 1);
    }
    const body = bytes.subarray(1, 1 + Math.min(length, want - 1));
    return _asRecorded(
      storedLineText(body, line.version, length),
      line,
      legacy,
    );
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const file of this.#files.values()) await file?.close();
    this.#files.clear();
  }

  /** The open file, or null when it is gone. */
  async #open(path: string): Promise<FileHandle | null> {
    const known = this.#files.get(path);
    if (known !== undefined) return known;
    let file: FileHandle | null = null;
    try {
      file = await openRegular(path, `Cannot search ${quote(path)}`);
    } catch (err) {
      // Gone since it was indexed: none of its lines is a hit.
      if (!isNotFound(err)) throw err;
    }
    if (this.#files.size >= _OPEN_FILES) {
      const [oldest, first] = this.#files.entries().next().value!;
      await first?.close();
      this.#files.delete(oldest);
    }
    this.#files.set(path, file);
    return file;
  }
}

/** `found` when it is what the index recorded, else undefined. */
function _asRecorded(
  found: LineText | undefined,
  line: LocatedLine,
  legacy: boolean,
): LineText | undefined {
  const want = line.expected;
  if (found === undefined) return undefined;
  if (want.skip !== undefined || found.skip !== undefined) {
    return found.skip === want.skip ? found : undefined;
  }
  if (found.role !== want.role || found.timestamp !== want.timestamp) {
    return undefined;
  }
  // A version 1 line read on its own has a stand-in id: keep the recorded one.
  if (legacy) return { ...found, entryId: want.entryId };
  return found.entryId === want.entryId ? found : undefined;
}
