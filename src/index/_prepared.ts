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

/**
 * Have `statement` give its rows as arrays of the selected columns, which
 * cost about half the objects SQLite's binding makes on 10,000 rows (Deno
 * 2.9 has the method; its types do not list it yet).
 *
 * @param statement The statement.
 * @returns Whether its rows are arrays now (else they stay objects).
 */
export function returnArrays(statement: StatementSync): boolean {
  const s = statement as unknown as {
    setReturnArrays?: (on: boolean) => void;
  };
  s.setReturnArrays?.(true);
  return s.setReturnArrays !== undefined;
}
