/**
 * Statements prepared once per database and kept.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";

const _statements = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/**
 * A statement of `db`, prepared once and kept (preparing costs more than
 * running a small statement, and facets run theirs for every file).
 *
 * @param db The database.
 * @param sql The statement.
 * @returns The prepared statement.
 */
export function prepared(db: DatabaseSync, sql: string): StatementSync {
  let cache = _statements.get(db);
  if (cache === undefined) _statements.set(db, cache = new Map());
  let statement = cache.get(sql);
  if (statement === undefined) cache.set(sql, statement = db.prepare(sql));
  return statement;
}
