/**
 * What SQLite's failures are, told apart by its result codes, never by
 * their wording (which SQLite does not promise), the same on each
 * runtime's SQLite: `node:sqlite` (Deno, Node) and `bun:sqlite` (Bun).
 *
 * @module
 */

/**
 * SQLite's primary result codes the index tells apart. A `node:sqlite`
 * error carries SQLite's code as `errcode`, a `bun:sqlite` one as `errno`
 * (beside its name as `code`, `"SQLITE_CORRUPT"`), possibly an extended
 * one, whose low byte is its primary code.
 */
const _SQLITE_BUSY = 5;
const _SQLITE_LOCKED = 6;
const _SQLITE_READONLY = 8;
const _SQLITE_CORRUPT = 11;
const _SQLITE_NOTADB = 26;

/**
 * The texts SQLite gives its codes (`sqlite3_errstr`), for an error of
 * `node:sqlite` that lacks `errcode`: Deno's `exec()` of a statement that
 * gives a row (`PRAGMA journal_mode = WAL`) throws it without one.
 */
const _SQLITE_TEXTS: readonly [string, number][] = [
  ["database is locked", _SQLITE_BUSY],
  ["database table is locked", _SQLITE_LOCKED],
  ["attempt to write a readonly database", _SQLITE_READONLY],
  ["database disk image is malformed", _SQLITE_CORRUPT],
  ["file is not a database", _SQLITE_NOTADB],
];

/** SQLite's primary result code of an error, or undefined for an error of another kind. */
export function sqliteCode(err: unknown): number | undefined {
  const e = err as
    | { errcode?: unknown; errno?: unknown; code?: unknown }
    | null;
  if (typeof e?.errcode === "number") return e.errcode & 0xff;
  // bun:sqlite's; an errno beside another code is the system's (ENOENT).
  const bun = typeof e?.code === "string" && e.code.startsWith("SQLITE_");
  if (bun && typeof e?.errno === "number") return e.errno & 0xff;
  if (e?.code !== "ERR_SQLITE_ERROR") return undefined;
  const message = (err as Error).message;
  return _SQLITE_TEXTS.find(([text]) => message === text)?.[1];
}

/** Whether SQLite says the file is damaged (`SQLITE_CORRUPT`) or not a database (`SQLITE_NOTADB`). */
export function isDamaged(err: unknown): boolean {
  const code = sqliteCode(err);
  return code === _SQLITE_CORRUPT || code === _SQLITE_NOTADB;
}

/** Whether SQLite gave up waiting for another process's lock (`SQLITE_BUSY`, `SQLITE_LOCKED`). */
export function isLocked(err: unknown): boolean {
  const code = sqliteCode(err);
  return code === _SQLITE_BUSY || code === _SQLITE_LOCKED;
}

/** Whether SQLite could not write because the file is read-only to it (`SQLITE_READONLY`). */
export function isReadOnly(err: unknown): boolean {
  return sqliteCode(err) === _SQLITE_READONLY;
}
