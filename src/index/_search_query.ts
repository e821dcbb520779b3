/**
 * Reading the `search` facet: which files it holds whole, and where the
 * lines that may match a query are, newest first. The full-text index only
 * narrows the rows down; the caller reads each line from its file and
 * decides it with the query's matcher.
 *
 * @module
 */

import type { IndexDb, SqlValue } from "./_sqlite.ts";
import { PathSteps } from "../context/_path_steps.ts";
import type { HitFilter } from "../search/_hits.ts";
import type { SearchScope } from "../search/search.ts";
import type { SearchRole, SkipReason } from "../search/_text.ts";
import { checkedRows, prepared } from "./_prepared.ts";
import { SEARCH_FACET } from "./_search.ts";
import { plainLine } from "./_oversized_facet.ts";
import type { Narrowing } from "./_narrowing.ts";
import type { OversizedLine } from "../format/issues.ts";

/** A line as the index recorded it. */
export interface LocatedLine {
  /** The file. */
  path: string;
  /** The line's offset. */
  offset: number;
  /** The bytes it takes, its end of line included. */
  size: number;
  /** The file's version (a version 1 or 2 line is migrated). */
  version: number;
  /** What it gave when indexed: an entry, or a skipped line. */
  expected:
    | { skip?: undefined; entryId: string; role: SearchRole; timestamp: string }
    | { skip: SkipReason };
}

/**
 * The files in scope whose search rows are not complete up to their
 * session row's offset (version 1 and 2 files, files the backward walk
 * could not record, a facet behind): those are scanned.
 *
 * @param db The index.
 * @param scope Folder and date.
 * @param marked All of them, as the mark of the last complete refresh
 * keeps them while it stands (the date is then left to the scan, which
 * does not open a file last modified before it).
 * @returns Their paths.
 */
export function uncoveredFiles(
  db: IndexDb,
  scope: SearchScope,
  marked?: readonly string[],
): string[] {
  if (marked !== undefined) {
    const prefix = scope.prefix;
    return prefix === undefined
      ? [...marked]
      : marked.filter((path) => path.startsWith(prefix));
  }
  const args: SqlValue[] = [SEARCH_FACET.name, SEARCH_FACET.version];
  const where = _scope(scope, args);
  const rows = db.prepare(
    `SELECT s.path AS path FROM ${_UNCOVERED}${
      where.map((w) => ` AND ${w}`).join("")
    }`,
  ).all(...args) as { path: string }[];
  return rows.map((r) => r.path);
}

/**
 * The rows whose search rows are not complete, the search facet's name and
 * version its two arguments: no state, the facet behind it, or bytes past
 * the state's last whole line (a last line without "\n", which the scan
 * reads when it is whole JSON; the facet takes only ended lines). The
 * version in the join lets SQLite answer from the facets_read index alone;
 * another version is no row, as none is.
 */
const _UNCOVERED = `sessions s
     LEFT JOIN facets p ON p.path = s.path AND p.facet = ? AND p.version = ?
     WHERE (s.offset IS NULL OR p.path IS NULL OR p.offset != s.offset
       OR s.offset < s.size)`;

/**
 * Whether one file is among {@linkcode uncoveredFiles} (with no scope).
 *
 * @param db The index.
 * @param path The file.
 * @returns True when its row's search rows are not complete.
 */
export function isUncovered(db: IndexDb, path: string): boolean {
  const row = prepared(db, `SELECT 1 FROM ${_UNCOVERED} AND s.path = ?`)
    .get(SEARCH_FACET.name, SEARCH_FACET.version, path);
  return row !== undefined;
}

/**
 * A session's id and title, from its row.
 *
 * @param db The index.
 * @param path The file.
 * @returns Its id and title, or undefined.
 */
export function sessionLabel(
  db: IndexDb,
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
  db: IndexDb,
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
 * Where the entry lines that may match are, newest first (timestamp,
 * path, the later line first: the order of the hits).
 *
 * @param db The index.
 * @param match The query's narrowing.
 * @param filter Role and date.
 * @param scope Folder and date of files.
 * @returns The lines.
 */
export function* candidateRows(
  db: IndexDb,
  match: Narrowing,
  filter: HitFilter,
  scope: SearchScope,
): Generator<LocatedLine> {
  if (match === null) return;
  const where = ["e.skip IS NULL"];
  const args: SqlValue[] = [];
  where.push(..._scope(scope, args));
  if (filter.role !== undefined) {
    where.push("e.role = ?");
    args.push(filter.role);
  }
  if (filter.since !== undefined) {
    where.push("e.timestamp >= ?");
    args.push(filter.since);
  }
  const { from, more } = _from(db, match, args);
  yield* _lines(
    db,
    `SELECT ${_COLUMNS} FROM ${from} ${_COMPLETE}
     WHERE ${[...more, ...where].join(" AND ")}
     ORDER BY e.timestamp DESC, e.path ASC, e.offset DESC`,
    args,
  );
}

/**
 * Where the skipped lines in scope that may match are (few: damage).
 *
 * @param db The index.
 * @param match The query's narrowing.
 * @param scope Folder and date of files.
 * @returns The lines.
 */
export function* skippedRows(
  db: IndexDb,
  match: Narrowing,
  scope: SearchScope,
): Generator<LocatedLine> {
  if (match === null) return;
  // Most indexes hold no skipped line, and the match below costs what the
  // word's rows cost however few lines are skipped. The partial index
  // answers at once.
  const any = prepared(
    db,
    "SELECT 1 FROM search_entries WHERE skip IS NOT NULL LIMIT 1",
  ).get();
  if (any === undefined) return;
  const args: SqlValue[] = [];
  const where = [..._scope(scope, args), "e.skip IS NOT NULL"];
  if (match !== undefined) {
    where.push(
      "e.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ?)",
    );
    args.push(match);
  }
  yield* _lines(
    db,
    `SELECT ${_COLUMNS} FROM search_entries e ${_COMPLETE}
     WHERE ${where.join(" AND ")}`,
    args,
  );
}

/**
 * The lines over the loader's limit (the `oversized` facet's rows) of the
 * files in scope that the search facet holds whole: the files scanned
 * report their own.
 *
 * @param db The index.
 * @param scope Folder and date of files.
 * @returns The lines, by file then offset.
 */
export function oversizedRows(
  db: IndexDb,
  scope: SearchScope,
): OversizedLine[] {
  const args: SqlValue[] = [];
  const where = _scope(scope, args);
  const rows = prepared(
    db,
    `SELECT e.path AS path, e.offset AS offset, e.length AS length
     FROM oversized_lines e ${_COMPLETE}${
      where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`
    } ORDER BY e.path, e.offset`,
  ).all(...args) as unknown as OversizedLine[];
  return rows.map(plainLine);
}

/** The lines of a query's rows, as they come ({@linkcode checkedRows}). */
function* _lines(
  db: IndexDb,
  sql: string,
  args: readonly SqlValue[],
): Generator<LocatedLine> {
  for (const r of checkedRows<_Row>(db, sql, args)) yield _located(r);
}

/** What a row of {@linkcode _COLUMNS} says of its line. */
function _located(r: _Row): LocatedLine {
  const { path, offset, size, version } = r;
  const expected = r.skip !== null
    ? { skip: r.skip }
    : { entryId: r.entryId!, role: r.role!, timestamp: r.timestamp };
  return { path, offset, size, version, expected };
}

/**
 * Only the rows of files the facet holds whole, with no bytes past their
 * last whole line: the others ({@linkcode _UNCOVERED}, its complement) are
 * scanned.
 */
const _COMPLETE = `JOIN sessions s ON s.path = e.path
  JOIN facets p ON p.path = e.path AND p.facet = '${SEARCH_FACET.name}'
    AND p.version = ${SEARCH_FACET.version} AND p.offset = s.offset
    AND s.offset >= s.size`;

/** The conditions of a scope over `sessions s`, their arguments added to `args`. */
function _scope(scope: SearchScope, args: SqlValue[]): string[] {
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

/** The columns of a line's row, and its file's version. */
const _COLUMNS = `e.path AS path, e.offset AS offset, e.size AS size,
  e.entryId AS entryId, e.role AS role, e.timestamp AS timestamp,
  e.skip AS skip, s.version AS version`;

interface _Row {
  path: string;
  offset: number;
  size: number;
  entryId: string | null;
  role: SearchRole | null;
  timestamp: string;
  skip: SkipReason | null;
  version: number;
}

/** Matches past which the rows are walked newest first instead of sorted. */
const _MANY = 2000;

/**
 * The table and conditions that give the candidate rows, the arguments put
 * first in `args`: the full-text index's few matches, sorted; for a match
 * in many rows, or no narrowing, the rows walked newest first until enough
 * match.
 */
function _from(
  db: IndexDb,
  match: string | undefined,
  args: SqlValue[],
): { from: string; more: string[] } {
  const walk = "search_entries e INDEXED BY search_entries_time";
  if (match === undefined) return { from: walk, more: [] };
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
