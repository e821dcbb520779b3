/**
 * The index's database calls over `bun:sqlite`, Bun's own SQLite (with
 * FTS5). Imported only on Bun, and only when the first index opens, so
 * that Deno and Node never resolve `bun:sqlite`.
 *
 * Where `bun:sqlite` differs from `node:sqlite`, and what this does:
 * - `get` finds no row: `null` there, `undefined` here (as `node:sqlite`).
 * - rows as arrays: `values()` there, `setReturnArrays` here.
 * - `inTransaction` there, `isTransaction` here.
 * - errors: a `SQLiteError` whose `errno` is SQLite's (extended) result
 *   code and whose `code` is its name (`"SQLITE_CORRUPT"`); `sqliteCode`
 *   in `_db.ts` reads the `errno`.
 * - a walk over a damaged page throws (`node:sqlite`'s ends quietly).
 * - an integral number is bound as an INTEGER (`node:sqlite` binds every
 *   number as a REAL); a column's affinity makes the two one value.
 *
 * @module
 */

import type {
  IndexDb,
  IndexStatement,
  SqlRunResult,
  SqlValue,
} from "./_sqlite_types.ts";

/** The part of `bun:sqlite`'s `Statement` the index calls. */
interface _BunStatement {
  run(...args: SqlValue[]): SqlRunResult;
  get(...args: SqlValue[]): unknown;
  all(...args: SqlValue[]): unknown[];
  values(...args: SqlValue[]): unknown[][];
  iterate(...args: SqlValue[]): Iterable<unknown>;
  readonly columnNames: string[];
}

/** The part of `bun:sqlite`'s `Database` the index calls. */
interface _BunDatabase {
  prepare(sql: string): _BunStatement;
  exec(sql: string): void;
  readonly inTransaction: boolean;
  close(): void;
}

interface _BunSqlite {
  Database: new (path: string) => _BunDatabase;
}

/**
 * What opens a database file through `bun:sqlite`.
 *
 * @returns The opener.
 * @throws {Error} Where `bun:sqlite` does not import (not Bun).
 */
export async function bunDriver(): Promise<(path: string) => IndexDb> {
  const { Database } = await import("bun:sqlite") as unknown as _BunSqlite;
  return (path) => new _Database(new Database(path));
}

class _Database implements IndexDb {
  readonly #db: _BunDatabase;

  constructor(db: _BunDatabase) {
    this.#db = db;
  }

  prepare(sql: string): IndexStatement {
    return new _Statement(this.#db.prepare(sql));
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  get isTransaction(): boolean {
    return this.#db.inTransaction;
  }

  close(): void {
    this.#db.close();
  }
}

class _Statement implements IndexStatement {
  readonly #s: _BunStatement;
  #arrays = false;

  constructor(statement: _BunStatement) {
    this.#s = statement;
  }

  run(...args: SqlValue[]): SqlRunResult {
    return this.#s.run(...args);
  }

  get(...args: SqlValue[]): unknown {
    const row = this.#s.get(...args);
    if (row === null || row === undefined) return undefined;
    return this.#arrays ? this.#array(row) : row;
  }

  all(...args: SqlValue[]): unknown[] {
    return this.#arrays ? this.#s.values(...args) : this.#s.all(...args);
  }

  *iterate(...args: SqlValue[]): Generator<unknown> {
    for (const row of this.#s.iterate(...args)) {
      yield this.#arrays ? this.#array(row) : row;
    }
  }

  setReturnArrays(on: boolean): void {
    this.#arrays = on;
  }

  /** A row object as the array `values()` gives (one column per name). */
  #array(row: unknown): unknown[] {
    const r = row as Record<string, unknown>;
    return this.#s.columnNames.map((name) => r[name]);
  }
}
