/**
 * The SQLite the index runs on: the few calls it makes on a database
 * ({@linkcode IndexDb}), met by `node:sqlite` on Deno and Node and by
 * `bun:sqlite` on Bun, picked by which runtime runs when the first index
 * opens. Neither module is imported before then, and `bun:sqlite` only
 * where `globalThis.Bun` is: a runtime without SQLite (Node before 22.13
 * without `--experimental-sqlite`) imports the library, and its index is
 * skipped ({@linkcode NoSqliteError}).
 *
 * Both drivers bind parameters by position only (`?`), give a row as an
 * object keyed by column name, `undefined` where `get` finds none, and
 * numbers for integers; their errors carry SQLite's result code, read by
 * `sqliteCode` in `_db.ts`.
 *
 * @module
 */

import { bunDriver } from "./_sqlite_bun.ts";

export type {
  IndexDb,
  IndexStatement,
  SqliteOpen,
  SqlRunResult,
  SqlValue,
} from "./_sqlite_types.ts";
import type { SqliteOpen } from "./_sqlite_types.ts";

/**
 * No SQLite on this runtime: the index is skipped, and everything else
 * reads the files.
 *
 * @example
 * ```ts
 * import { NoSqliteError } from "./_sqlite.ts";
 * import { equal } from "node:assert/strict";
 *
 * const err = new NoSqliteError("node:sqlite", new Error("not found"));
 * equal(err.name, "NoSqliteError");
 * equal(err.message, "no SQLite on this runtime: the index is skipped (node:sqlite: not found)");
 * ```
 */
export class NoSqliteError extends Error {
  /**
   * @param module The module that would not import.
   * @param cause Its failure.
   */
  constructor(module: string, cause: unknown) {
    super(
      `no SQLite on this runtime: the index is skipped (${module}: ${
        cause instanceof Error ? cause.message : String(cause)
      })`,
      { cause },
    );
    this.name = "NoSqliteError";
  }
}

let _driver: Promise<SqliteOpen> | undefined;

/**
 * This runtime's SQLite, imported once (a failed import, once too).
 *
 * @example
 * ```ts
 * import { sqlite } from "./_sqlite.ts";
 * import { equal } from "node:assert/strict";
 *
 * const db = (await sqlite())(":memory:");
 * equal((db.prepare("SELECT ? + 1 AS n").get(1) as { n: number }).n, 2);
 * equal(db.prepare("SELECT 1 WHERE 0").get(), undefined);
 * db.close();
 * ```
 *
 * @returns What opens a database file.
 * @throws {NoSqliteError} Where the runtime has none.
 */
export function sqlite(): Promise<SqliteOpen> {
  return _driver ??= _load();
}

async function _load(): Promise<SqliteOpen> {
  if ((globalThis as { Bun?: unknown }).Bun !== undefined) {
    try {
      return await bunDriver();
    } catch (err) {
      throw new NoSqliteError("bun:sqlite", err);
    }
  }
  try {
    const { DatabaseSync } = await import("node:sqlite");
    // Its statements meet IndexStatement as they are: no wrapper.
    return (path) => new DatabaseSync(path);
  } catch (err) {
    throw new NoSqliteError("node:sqlite", err);
  }
}
