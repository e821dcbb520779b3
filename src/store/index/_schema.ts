/**
 * The index's tables. The index is a cache of what the session files hold:
 * a newer version of this library may drop and remake them.
 *
 * @module
 */

import { FACETS } from "./_facet_list.ts";
import { FACET_SCHEMA } from "./_facets.ts";

/**
 * The schema's version; a file of an older version is remade, a newer one
 * left alone. A new facet or a facet's new tables raise it.
 */
export const INDEX_SCHEMA_VERSION = 4;

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
  ...FACET_SCHEMA,
  ...FACETS.flatMap((facet) => facet.schema),
];
