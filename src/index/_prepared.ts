/**
 * Statements prepared once per database and kept, and the rows of a
 * query read as they come, failures included.
 *
 * @module
 */

import type { IndexDb, IndexStatement, SqlValue } from "./_sqlite.ts";

const _statements = new WeakMap<IndexDb, Map<string, IndexStatement>>();

/**
 * A statement of `db`, prepared once and kept (preparing costs more than
 * running a small statement, and facets run theirs for every file).
 *
 * @param db The database.
 * @param sql The statement.
 * @returns The prepared statement.
 */
export function prepared(db: IndexDb, sql: string): IndexStatement {
  let cache = _statements.get(db);
  if (cache === undefined) _statements.set(db, cache = new Map());
  let statement = cache.get(sql);
  if (statement === undefined) cache.set(sql, statement = db.prepare(sql));
  return statement;
}

/**
 * Have `statement` give its rows as arrays of the selected columns, which
 * cost about half the objects SQLite's binding makes on 10,000 rows
 * (`node:sqlite` has the method since Node 22.16 and in Deno 2.9, whose
 * types do not list it yet; the `bun:sqlite` driver has it too).
 *
 * @param statement The statement.
 * @returns Whether its rows are arrays now (else they stay objects).
 */
export function returnArrays(statement: IndexStatement): boolean {
  statement.setReturnArrays?.(true);
  return statement.setReturnArrays !== undefined;
}

/**
 * The rows of a query, as they come. `node:sqlite`'s `iterate()` ends
 * quietly where SQLite fails (a damaged page), as if no row were left, and
 * a damaged index would answer "no matches": so where it ends, the same
 * statement is asked for the row after the last one given, which throws
 * where the walk failed (`get()` throws, as `all()` does), and is no row
 * where the walk did end. A walk the caller stops early costs nothing
 * more; a whole one is read twice. (`bun:sqlite`'s walk throws there
 * itself; the check after it costs the same and finds no row.)
 *
 * @param db The database.
 * @param sql A query without `LIMIT`.
 * @param args Its arguments.
 * @returns The rows.
 * @throws {Error} SQLite's error, for the caller to pass the index by; or
 * one of its own where the walk ended early without a failure SQLite tells
 * again (another process's commit came between).
 */
export function* checkedRows<T>(
  db: IndexDb,
  sql: string,
  args: readonly SqlValue[],
): Generator<T> {
  let given = 0;
  for (const row of db.prepare(sql).iterate(...args)) {
    given++;
    yield row as T;
  }
  const after = db.prepare(`${sql} LIMIT 1 OFFSET ?`).get(...args, given);
  if (after !== undefined) {
    throw new Error(
      `the index stopped after ${given} rows, where it holds more`,
    );
  }
}
