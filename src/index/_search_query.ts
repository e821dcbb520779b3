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
import type { SearchQuery } from "../search/_query.ts";
import type { SearchScope } from "../search/search.ts";
import type { SearchRole, SkipReason } from "../search/_text.ts";
import { checkedRows, prepared } from "./_prepared.ts";
import { SEARCH_FACET } from "./_search.ts";
import { plainLine } from "./_oversized_facet.ts";
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
 * How the full-text index narrows a query's rows: a `MATCH` expression;
 * null when no row can match; undefined when it cannot narrow them (every
 * row is a candidate).
 */
export type Narrowing = string | null | undefined;

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
 * The `MATCH` expression that narrows a query's rows: the trigrams of its
 * words of three characters or more; when it has none, for each word
 * (of one or two characters) the trigrams it starts, from the index's own
 * list of trigrams (every character of an indexed text starts one, see
 * `FTS_END`), unless a word starts too many to be worth it.
 *
 * @param db The index.
 * @param query The query.
 * @returns The expression, or null (no row matches), or undefined (no narrowing).
 */
export function narrowing(db: IndexDb, query: SearchQuery): Narrowing {
  const match = ftsMatch(query);
  if (match !== undefined) return match;
  const groups: string[] = [];
  for (const word of shortWords(query)) {
    const terms = _trigramsStarting(db, word);
    if (terms.length === 0) return null;
    if (terms.length > _TERMS) continue;
    groups.push(`(${terms.map(_quoteFts).join(" OR ")})`);
  }
  return groups.length === 0 ? undefined : groups.join(" AND ");
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

/** Trigrams a short word may start, at most, for the index to narrow by them. */
const _TERMS = 256;

/** The last code point: a trigram's characters are all at most this. */
const _LAST = String.fromCodePoint(0x10ffff);

/**
 * The index's trigrams that start with `word` (one or two characters),
 * up to one more than {@linkcode _TERMS}: a range of the list of terms, which
 * the text fills byte for byte (the tokenizer does not fold).
 */
function _trigramsStarting(db: IndexDb, word: string): string[] {
  const rest = _TRIGRAM_CHARS - [...word].length;
  const rows = db.prepare(
    `SELECT term FROM search_vocab WHERE term >= ? AND term <= ?
     LIMIT ${_TERMS + 1}`,
  ).all(word, word + _LAST.repeat(rest)) as { term: string }[];
  return rows.map((r) => r.term);
}

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

/** Words shorter than this are not in the trigram index's reach. */
const _TRIGRAM_CHARS = 3;

/**
 * The full-text index's `MATCH` expression for a query's candidates:
 * every trigram of every word of three or more characters, quoted (never
 * an operator), joined with `AND`; undefined when no word has three. The
 * index keeps no positions, so a word's trigrams may be apart in a
 * candidate: the matcher decides.
 *
 * @param query The query.
 * @returns The expression.
 */
export function ftsMatch(query: SearchQuery): string | undefined {
  const trigrams = new Set<string>();
  for (const word of _words(query)) {
    const chars = [...word];
    for (let i = 0; i + _TRIGRAM_CHARS <= chars.length; i++) {
      trigrams.add(chars.slice(i, i + _TRIGRAM_CHARS).join(""));
    }
  }
  if (trigrams.size === 0) return undefined;
  return [...trigrams].map(_quoteFts).join(" AND ");
}

/**
 * A query's words shorter than three characters (folded), when no word has
 * three or more: what the index then narrows by (see {@linkcode narrowing}).
 *
 * @param query The query.
 * @returns The words, or an empty list.
 */
export function shortWords(query: SearchQuery): string[] {
  const words = _words(query);
  if (words.some((w) => [...w].length >= _TRIGRAM_CHARS)) return [];
  return [...new Set(words)];
}

/** Every word of every term. */
function _words(query: SearchQuery): string[] {
  return query.terms.flatMap((t) => t.words);
}

/** A string as one FTS5 term: in double quotes, a quote doubled, so nothing in it is an operator. */
function _quoteFts(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}
