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

/** Which files a search through the index looks at. */
export interface IndexScope {
  /** Only files whose path starts with this (a cwd's folder, then a separator). */
  prefix?: string | undefined;
  /** Only files last modified from this time on (ms since the epoch). */
  sinceMs?: number | undefined;
}

/** A row that may match, with its line's text. */
export interface IndexedRow {
  path: string;
  offset: number;
  found: LineText;
}

/**
 * The files in scope whose search rows are not complete up to their
 * session row's offset (version 1 and 2 files, files the backward walk
 * could not record, a facet behind): those are scanned.
 *
 * @param db The index.
 * @param scope Folder and date.
 * @returns Their paths.
 */
export function uncoveredFiles(db: DatabaseSync, scope: IndexScope): string[] {
  const args: SQLInputValue[] = [SEARCH_FACET.name];
  const where = _scope(scope, args);
  const rows = db.prepare(
    `SELECT s.path AS path FROM sessions s
     LEFT JOIN facets p ON p.path = s.path AND p.facet = ?
     WHERE (s.offset IS NULL OR p.path IS NULL OR p.offset != s.offset
       OR p.version != ${SEARCH_FACET.version})${
      where.map((w) => ` AND ${w}`).join("")
    }`,
  ).all(...args) as { path: string }[];
  return rows.map((r) => r.path);
}

/**
 * A session's id and title, from its row.
 *
 * @param db The index.
 * @param path The file.
 * @returns Its id and title, or undefined.
 */
export function sessionLabel(
  db: DatabaseSync,
  path: string,
): { id: string; title: string | null } | undefined {
  return db.prepare("SELECT id, title FROM sessions WHERE path = ?").get(
    path,
  ) as { id: string; title: string | null } | undefined;
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
 * @param scope Folder and date of files.
 * @returns The rows.
 */
export function* candidateRows(
  db: DatabaseSync,
  query: SearchQuery,
  filter: HitFilter,
  scope: IndexScope,
): Generator<IndexedRow> {
  const where = ["e.skip IS NULL"];
  const args: SQLInputValue[] = [];
  where.push(..._scope(scope, args));
  if (filter.role !== undefined) {
    where.push("e.role = ?");
    args.push(filter.role);
  }
  if (filter.since !== undefined) {
    where.push("e.timestamp >= ?");
    args.push(filter.since);
  }
  const { from, more } = _narrowing(db, query, args);
  const rows = db.prepare(
    `SELECT e.rowid AS rowid, e.path AS path, e.offset AS offset,
            e.entryId AS entryId, e.role AS role, e.timestamp AS timestamp
     FROM ${from} ${_COMPLETE}
     WHERE ${[...more, ...where].join(" AND ")}
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
 * The rows of skipped lines in scope (few: damage), for the matcher.
 *
 * @param db The index.
 * @param scope Folder and date of files.
 * @returns The rows.
 */
export function* skippedRows(
  db: DatabaseSync,
  scope: IndexScope,
): Generator<IndexedRow> {
  const args: SQLInputValue[] = [];
  const where = _scope(scope, args);
  const rows = db.prepare(
    `SELECT e.path AS path, e.offset AS offset, e.skip AS skip, e.text AS text
     FROM search_entries e ${_COMPLETE}
     WHERE ${[...where, "e.skip IS NOT NULL"].join(" AND ")}`,
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

/** Only the rows of files the facet holds whole (the others are scanned). */
const _COMPLETE = `JOIN sessions s ON s.path = e.path
  JOIN facets p ON p.path = e.path AND p.facet = '${SEARCH_FACET.name}'
    AND p.version = ${SEARCH_FACET.version} AND p.offset = s.offset`;

/** The conditions of a scope over `sessions s`, their arguments added to `args`. */
function _scope(scope: IndexScope, args: SQLInputValue[]): string[] {
  const where: string[] = [];
  if (scope.prefix !== undefined) {
    // The paths that start with the prefix (ending in a separator): a range.
    const last = scope.prefix.charCodeAt(scope.prefix.length - 1);
    where.push("s.path >= ? AND s.path < ?");
    args.push(
      scope.prefix,
      scope.prefix.slice(0, -1) + String.fromCharCode(last + 1),
    );
  }
  if (scope.sinceMs !== undefined) {
    where.push("s.mtimeMs >= ?");
    args.push(scope.sinceMs);
  }
  return where;
}

interface _Row {
  rowid: number;
  path: string;
  offset: number;
  entryId: string | null;
  role: string | null;
  timestamp: string;
}

/** Matches past which the rows are walked newest first instead of sorted. */
const _MANY = 2000;

/**
 * The table and conditions that narrow rows down to candidates, their
 * arguments put first in `args`: the full-text index for words of three
 * characters or more (its few matches sorted, or, for a word in many rows,
 * the rows walked newest first until enough match), else `instr` over each
 * short word's spellings, walking the rows newest first.
 */
function _narrowing(
  db: DatabaseSync,
  query: SearchQuery,
  args: SQLInputValue[],
): { from: string; more: string[] } {
  const match = query.ftsMatch();
  const walk = "search_entries e INDEXED BY search_entries_time";
  if (match !== undefined) {
    args.unshift(match);
    const { n } = db.prepare(
      `SELECT count(*) AS n FROM
         (SELECT rowid FROM search_fts WHERE search_fts MATCH ? LIMIT ${_MANY})`,
    ).get(match) as { n: number };
    return n < _MANY
      ? {
        from: "search_fts f JOIN search_entries e ON e.rowid = f.rowid",
        more: ["search_fts MATCH ?"],
      }
      : {
        from: walk,
        more: [
          "e.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ?)",
        ],
      };
  }
  const more: string[] = [];
  const spellings = query.shortSpellings();
  for (const list of spellings) {
    more.push(`(${list.map(() => "instr(e.text, ?) > 0").join(" OR ")})`);
  }
  args.unshift(...spellings.flat());
  return { from: walk, more };
}
