/**
 * Reading the `search` facet: which files it holds whole, and the rows
 * that may match a query, newest first. The full-text index (or, for
 * words under three characters, `instr` over every spelling) only narrows
 * the rows down; the caller decides each with the query's matcher.
 *
 * @module
 */

import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { PathSteps } from "../../context/_path_steps.ts";
import type { HitFilter } from "../search/_hits.ts";
import type { LineText, SkipReason } from "../search/_line.ts";
import type { SearchQuery } from "../search/_query.ts";
import type { SearchRole } from "../search/_text.ts";
import { SEARCH_FACET } from "./_search.ts";

/** A file the facet has read to its row's offset. */
export interface IndexedFile {
  path: string;
  id: string;
  title: string | null;
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
}

/** A row that may match, with its line's text. */
export interface IndexedRow {
  path: string;
  offset: number;
  found: LineText;
}

/**
 * The files whose search rows are complete up to their session row's
 * offset (the others are scanned).
 *
 * @param db The index.
 * @returns The files, by path.
 */
export function indexedFiles(db: DatabaseSync): Map<string, IndexedFile> {
  const rows = db.prepare(
    `SELECT s.path, s.id, s.title, s.size, s.mtimeMs, s.ino, s.dev
     FROM sessions s JOIN facets f ON f.path = s.path AND f.facet = ?
     WHERE s.offset IS NOT NULL AND f.offset = s.offset AND f.version = ?`,
  ).all(SEARCH_FACET.name, SEARCH_FACET.version) as unknown as IndexedFile[];
  return new Map(rows.map((r) => [r.path, r]));
}

/**
 * The active path of an indexed file, as its session row recorded it.
 *
 * @param db The index.
 * @param path The file.
 * @returns The path's steps, or undefined when the row has none.
 */
export function indexedPath(
  db: DatabaseSync,
  path: string,
): PathSteps | undefined {
  const row = db.prepare("SELECT pathSteps FROM sessions WHERE path = ?")
    .get(path) as { pathSteps: Uint8Array | null } | undefined;
  if (row?.pathSteps === undefined || row.pathSteps === null) return undefined;
  try {
    return PathSteps.decode(row.pathSteps);
  } catch {
    return undefined; // a damaged row: no entry counts as on the path
  }
}

/**
 * The entry rows that may match, newest first (timestamp, path, the later
 * line first: the order of the hits), each with its text read when asked.
 *
 * @param db The index.
 * @param query The query.
 * @param filter Role and date.
 * @returns The rows.
 */
export function* candidateRows(
  db: DatabaseSync,
  query: SearchQuery,
  filter: HitFilter,
): Generator<IndexedRow> {
  const where = ["e.skip IS NULL"];
  const args: SQLInputValue[] = [];
  if (filter.role !== undefined) {
    where.push("e.role = ?");
    args.push(filter.role);
  }
  if (filter.since !== undefined) {
    where.push("e.timestamp >= ?");
    args.push(filter.since);
  }
  const { from, more } = _narrowing(query, args);
  const rows = db.prepare(
    `SELECT e.rowid AS rowid, e.path AS path, e.offset AS offset,
            e.entryId AS entryId, e.role AS role, e.timestamp AS timestamp
     FROM ${from} WHERE ${[...more, ...where].join(" AND ")}
     ORDER BY e.timestamp DESC, e.path ASC, e.offset DESC`,
  );
  const text = db.prepare("SELECT text FROM search_entries WHERE rowid = ?");
  for (const r of rows.iterate(...args) as Iterable<_Row>) {
    const { text: t } = text.get(r.rowid) as { text: string };
    yield {
      path: r.path,
      offset: r.offset,
      found: {
        entryId: r.entryId!,
        role: r.role as SearchRole,
        timestamp: r.timestamp,
        text: t,
      },
    };
  }
}

/**
 * The rows of skipped lines that may match.
 *
 * @param db The index.
 * @param query The query.
 * @returns The rows.
 */
export function* skippedRows(
  db: DatabaseSync,
  query: SearchQuery,
): Generator<IndexedRow> {
  const args: SQLInputValue[] = [];
  const { from, more } = _narrowing(query, args);
  const rows = db.prepare(
    `SELECT e.path AS path, e.offset AS offset, e.skip AS skip, e.text AS text
     FROM ${from} WHERE ${[...more, "e.skip IS NOT NULL"].join(" AND ")}`,
  );
  for (
    const r of rows.iterate(...args) as Iterable<
      { path: string; offset: number; skip: SkipReason; text: string }
    >
  ) {
    yield {
      path: r.path,
      offset: r.offset,
      found: { skip: r.skip, text: r.text },
    };
  }
}

interface _Row {
  rowid: number;
  path: string;
  offset: number;
  entryId: string | null;
  role: string | null;
  timestamp: string;
}

/**
 * The table and conditions that narrow rows down to candidates, their
 * arguments put first in `args`: the full-text index for words of three
 * characters or more, else `instr` over each short word's spellings.
 */
function _narrowing(
  query: SearchQuery,
  args: SQLInputValue[],
): { from: string; more: string[] } {
  const match = query.ftsMatch();
  if (match !== undefined) {
    args.unshift(match);
    return {
      from: "search_fts f JOIN search_entries e ON e.rowid = f.rowid",
      more: ["search_fts MATCH ?"],
    };
  }
  const more: string[] = [];
  const spellings = query.shortSpellings();
  for (const list of spellings) {
    more.push(`(${list.map(() => "instr(e.text, ?) > 0").join(" OR ")})`);
  }
  args.unshift(...spellings.flat());
  return { from: "search_entries e", more };
}
