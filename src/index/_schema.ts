/**
 * The index's tables. The index is a cache of what the session files hold:
 * a newer version of this library may drop and remake them.
 *
 * @module
 */

import { FACETS } from "./_facet_list.ts";
import { FACET_SCHEMA } from "./_facets.ts";

/** The `meta` key of the mark a complete refresh leaves (see `_fresh.ts`). */
export const FRESH_MARK_KEY = "fresh";

/**
 * The schema's version; a file of an older version is remade (or, from
 * {@linkcode INDEX_UPGRADABLE_FROM}, given what it lacks), a newer one left
 * alone. A new facet or a facet's new tables raise it.
 */
export const INDEX_SCHEMA_VERSION = 11;

/**
 * The oldest version whose tables are this version's: it is brought up to
 * date by the schema's statements (each `IF NOT EXISTS`) without losing a
 * row, the usage of deleted files among them. Version 5 only added
 * indexes. Version 6 adds nothing to the tables: every write of this
 * version takes away the mark a complete refresh leaves (`_fresh.ts`), and
 * version 5's writes would not, so a version 6 index is left alone by them.
 * Version 7 adds the usage facet's `usage_last` (the call of a last line
 * without its newline), which version 6's writes would not keep; the
 * facet's version 2 then reads every file's calls again, once. Version 8
 * adds `unsettled` (rows whose file may still change unseen, see
 * `isUnsettled` in `_rows.ts`); the rows an older version wrote are not in it, and are
 * trusted as that version trusted them. Version 9 makes a line one row of
 * the search facet at most (`search_entries_line`, unique); an older
 * index may hold a line twice, so its search tables are made anew
 * ({@linkcode INDEX_UPGRADES}) and read again by the next refresh.
 * Version 10 adds the `oversized` facet (`oversized_lines`: the lines over
 * the loader's limit); having no progress yet, it is fed every file once
 * by the next refresh. Version 11 adds the `summary` facet (`summaries`:
 * each file's first user message, message count and last activity, what
 * a list with summaries shows), fed every file once the same way (or by
 * the next list with summaries, for the files it lists).
 */
export const INDEX_UPGRADABLE_FROM = 4;

/**
 * What brings an upgradable index up to this version, in the schema's
 * transaction, before {@linkcode INDEX_SCHEMA}: each step's statements
 * run on an index older than the step's version. What a step drops, the
 * schema makes again, empty; the facets' progress in it goes too, and the
 * mark of the last complete refresh, so the next refresh feeds them every
 * file again (their other tables, the usage of deleted files among them,
 * are kept).
 */
export const INDEX_UPGRADES: readonly {
  version: number;
  statements: readonly string[];
}[] = [
  {
    version: 9,
    statements: [
      "DROP TABLE IF EXISTS search_vocab",
      "DROP TABLE IF EXISTS search_fts",
      "DROP TABLE IF EXISTS search_entries",
      "DELETE FROM facets WHERE facet = 'search'",
      `DELETE FROM meta WHERE key = '${FRESH_MARK_KEY}'`,
    ],
  },
];

/** The statements that make the schema. */
export const INDEX_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  )`,
  // One row per session file. The head fields serve the list; the state at
  // "offset" (whole lines) serves a windowed open that reads only what was
  // appended since.
  `CREATE TABLE IF NOT EXISTS sessions (
    path TEXT PRIMARY KEY,
    dev INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtimeMs REAL NOT NULL,
    id TEXT NOT NULL,
    cwd TEXT NOT NULL,
    title TEXT,
    titleSource TEXT,
    parentSession TEXT,
    timestamp TEXT NOT NULL,
    version INTEGER NOT NULL,
    subagent INTEGER NOT NULL,
    bodyStart INTEGER NOT NULL,
    headHash TEXT NOT NULL,
    offset INTEGER,
    tailHash TEXT,
    entries INTEGER,
    messages INTEGER,
    leafId TEXT,
    model TEXT,
    thinkingLevel TEXT,
    created TEXT,
    updated TEXT,
    inputTokens INTEGER,
    outputTokens INTEGER,
    cacheReadTokens INTEGER,
    cacheWriteTokens INTEGER,
    cost REAL,
    pathSteps BLOB,
    pathEnd TEXT,
    labels TEXT,
    ids BLOB
  )`,
  `CREATE INDEX IF NOT EXISTS sessions_cwd ON sessions (cwd)`,
  // The rows whose file was modified too close to when it was read for its
  // modification time to tell a later change (see `isUnsettled`): a refresh
  // checks their bytes even when their stat is the same.
  `CREATE TABLE IF NOT EXISTS unsettled (path TEXT PRIMARY KEY)`,
  // Every head column (and the offset): the list and a refresh read these
  // of every row, from this index instead of the rows (10,000 rows: 40 ->
  // 13 ms; the table's pages hold the resume state too).
  `CREATE INDEX IF NOT EXISTS sessions_heads ON sessions (path, dev, ino,
    size, mtimeMs, id, cwd, title, titleSource, parentSession, timestamp,
    version, subagent, bodyStart, headHash, offset)`,
  ...FACET_SCHEMA,
  ...FACETS.flatMap((facet) => facet.schema),
];
