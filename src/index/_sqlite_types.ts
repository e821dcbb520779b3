/**
 * The few calls the index makes on a database, as types: what both drivers
 * (`node:sqlite`, `bun:sqlite` in `_sqlite_bun.ts`) meet. Apart from
 * `_sqlite.ts`, which picks a driver, so that a driver need not import the
 * module that imports it.
 *
 * @module
 */

/** A value SQLite takes as a parameter. */
export type SqlValue = null | number | bigint | string | Uint8Array;

/** What a write statement did. */
export interface SqlRunResult {
  /** The rows it inserted, updated or deleted. */
  changes: number | bigint;
  /** The rowid of the last row it inserted. */
  lastInsertRowid: number | bigint;
}

/** A prepared statement, bound by position (`?`). */
export interface IndexStatement {
  /** Run a statement that gives no rows. */
  run(...args: SqlValue[]): SqlRunResult;
  /** The first row, or undefined where there is none. */
  get(...args: SqlValue[]): unknown;
  /** Every row. */
  all(...args: SqlValue[]): unknown[];
  /**
   * The rows as they come. `node:sqlite`'s walk ends quietly where a page
   * does not read, `bun:sqlite`'s throws: `checkedRows` (`_prepared.ts`)
   * reads both the same.
   */
  iterate(...args: SqlValue[]): Iterable<unknown>;
  /** Rows as arrays of the selected columns from here on, where a driver can. */
  setReturnArrays?(on: boolean): void;
}

/** An open database: what the index calls on it, and nothing else. */
export interface IndexDb {
  /** Prepare one statement. */
  prepare(sql: string): IndexStatement;
  /** Run statements that give no rows the caller wants. */
  exec(sql: string): void;
  /** Whether a transaction is open. */
  readonly isTransaction: boolean;
  /** Close it. */
  close(): void;
}

/** Opens the database file at a path (made where it is missing). */
export type SqliteOpen = (path: string) => IndexDb;
