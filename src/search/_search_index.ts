/**
 * The indexed half of a search: bring the session index up to date (or
 * take it as it is), take the hits among the files its `search` facet
 * holds whole, and name the files in scope it does not hold whole, which
 * are scanned. Scope and completeness are settled in SQL, so a search of
 * thousands of sessions touches only the rows that may match; each of
 * those lines is read from its file and decided there.
 *
 * @module
 */

import type { PathSteps } from "../context/_path_steps.ts";
import {
  candidateRows,
  indexedPath,
  type IndexScope,
  narrowing,
  sessionLabel,
  skippedRows,
  uncoveredFiles,
} from "../store/index/_search_query.ts";
import type { IndexStore } from "../store/index/_index_store.ts";
import { refreshAll } from "../store/index/_refresh.ts";
import { type HitFilter, HitList } from "./_hits.ts";
import { LinesAt } from "./_line_at.ts";
import type { SearchQuery } from "./_query.ts";
import type { SessionLabel } from "./_scan_files.ts";

/** What the index gave. */
export interface IndexSearch {
  /** Its hits (the newest `limit`) and the matching skipped lines. */
  hits: HitList;
  /** The id and title of each hit's session. */
  labels: Map<string, SessionLabel>;
  /** The files in scope it does not hold whole: to scan. */
  toScan: string[];
}

/** What {@linkcode searchIndex} needs. */
export interface IndexSearchOptions {
  /** The most hits. */
  limit: number;
  /** Role and date of entries. */
  filter: HitFilter;
  /** Folder and date of files. */
  scope: IndexScope;
  /** Refresh first (default), progress, warnings. */
  options: {
    refresh?: boolean | undefined;
    onProgress?: ((done: number, total: number) => void) | undefined;
    onWarning?: ((message: string) => void) | undefined;
  };
}

/**
 * Search through the index; undefined when it fails (then everything is
 * scanned, with a warning).
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
): Promise<IndexSearch | undefined> {
  const warn = o.options.onWarning ?? ((m: string) => console.warn(m));
  try {
    if (o.options.refresh !== false) {
      const onProgress = o.options.onProgress;
      await refreshAll(index, onProgress === undefined ? {} : { onProgress });
    }
    return await index.read(async (db) => {
      const hits = new HitList(query, o.limit, o.filter);
      using lines = new LinesAt();
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
      const labels = new Map<string, SessionLabel>();
      const paths = new Map<string, PathSteps | undefined>();
      for (const hit of hits.hits) {
        if (!paths.has(hit.path)) {
          paths.set(hit.path, indexedPath(db, hit.path));
          const label = sessionLabel(db, hit.path);
          if (label !== undefined) {
            labels.set(hit.path, {
              id: label.id,
              ...(label.title === null ? {} : { title: label.title }),
            });
          }
        }
        const steps = paths.get(hit.path);
        hit.onActivePath = (steps?.indexOf(hit.entryId) ?? -1) >= 0;
      }
      const marked = index.freshMark()?.uncovered ?? undefined;
      return { hits, labels, toScan: uncoveredFiles(db, o.scope, marked) };
    });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    warn(
      `Cannot search through the session index: ${why}; scanning the files`,
    );
    return undefined;
  }
}
