/**
 * The indexed half of a search: bring the session index up to date, take
 * the hits among the files its `search` facet holds whole, and say which
 * files it covered (the others are scanned).
 *
 * @module
 */

import type { PathSteps } from "../../context/_path_steps.ts";
import { seam } from "../../fs/_seam.ts";
import {
  candidateRows,
  indexedFiles,
  indexedPath,
  skippedRows,
} from "../index/_search_query.ts";
import type { SessionIndex } from "../index/session_index.ts";
import { type HitFilter, HitList } from "./_hits.ts";
import type { SearchQuery } from "./_query.ts";
import type { SessionLabel } from "./_scan_files.ts";

/** What the index gave. */
export interface IndexSearch {
  /** Its hits (the newest `limit`) and the matching skipped lines. */
  hits: HitList;
  /** The files it answered for (those left out by the date too). */
  covered: Set<string>;
  /** The id and title of each. */
  labels: Map<string, SessionLabel>;
}

/** What {@linkcode searchIndex} needs. */
export interface IndexSearchOptions {
  /** The files in scope. */
  files: readonly string[];
  /** The most hits. */
  limit: number;
  /** Role and date of entries. */
  filter: HitFilter;
  /** Files last modified before this are left out. */
  sinceMs: number | undefined;
  /** Refresh first (default), progress, warnings. */
  options: {
    refresh?: boolean;
    onProgress?: (done: number, total: number) => void;
    onWarning?: (message: string) => void;
  };
}

/**
 * Search through the index; undefined when it fails (then everything is
 * scanned, with a warning).
 *
 * @param index The open index.
 * @param query The query.
 * @param o Scope, limit, filters.
 * @returns The hits and what they cover.
 */
export async function searchIndex(
  index: SessionIndex,
  query: SearchQuery,
  o: IndexSearchOptions,
): Promise<IndexSearch | undefined> {
  const warn = o.options.onWarning ?? ((m: string) => console.warn(m));
  try {
    const fresh = o.options.refresh !== false;
    if (fresh) {
      const onProgress = o.options.onProgress;
      await index.refresh(onProgress === undefined ? {} : { onProgress });
    }
    return index.read((db) => {
      const rows = indexedFiles(db);
      const covered = new Set<string>();
      const labels = new Map<string, SessionLabel>();
      for (const path of o.files) {
        const row = rows.get(path);
        if (row === undefined || (!fresh && !_unchanged(row))) continue;
        covered.add(path);
        if (o.sinceMs !== undefined && row.mtimeMs < o.sinceMs) continue;
        labels.set(path, {
          id: row.id,
          ...(row.title === null ? {} : { title: row.title }),
        });
      }
      const hits = new HitList(query, o.limit, o.filter);
      for (const row of candidateRows(db, query, o.filter)) {
        if (!labels.has(row.path)) continue;
        hits.take(row.path, row.offset, row.found);
        if (hits.full) break;
      }
      for (const row of skippedRows(db, query)) {
        if (labels.has(row.path)) hits.take(row.path, row.offset, row.found);
      }
      const paths = new Map<string, PathSteps | undefined>();
      for (const hit of hits.hits) {
        if (!paths.has(hit.path)) {
          paths.set(hit.path, indexedPath(db, hit.path));
        }
        hit.onActivePath =
          (paths.get(hit.path)?.indexOf(hit.entryId) ?? -1) >= 0;
      }
      return { hits, covered, labels };
    });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    warn(`Cannot search through the session index: ${why}; scanning the files`);
    return undefined;
  }
}

/** Whether a file is as its row recorded it (what a search without a refresh checks). */
function _unchanged(
  row: {
    path: string;
    size: number;
    mtimeMs: number;
    ino: number;
    dev: number;
  },
): boolean {
  try {
    const info = seam().statSync(row.path);
    return info.size === row.size &&
      (info.mtime?.getTime() ?? 0) === row.mtimeMs &&
      (info.ino ?? 0) === row.ino && (info.dev ?? 0) === row.dev;
  } catch {
    return false;
  }
}
