/**
 * The index database: one SQLite file per data dir (`index.sqlite`, mode
 * 0600), opened through the runtime's SQLite (`_sqlite.ts`: `node:sqlite`
 * or `bun:sqlite`) in WAL mode. It is a cache: a missing, corrupt, locked,
 * read-only, linked or newer-schema file, or no SQLite at all, never stops
 * an operation; it is rebuilt, waited for a bounded time, or left alone,
 * with a warning. SQLite's failures are told apart by its result codes
 * (`errcode` on a `node:sqlite` error, `errno` on a `bun:sqlite` one),
 * never by their wording.
 *
 * @module
 */

import { join } from "node:path";
import { errorCode, fs, isNotFound, lstatOrUndefined } from "../_fs.ts";
import { quote } from "../format/errors.ts";
import { createFile, makeFolders } from "../write/_files.ts";
import {
  INDEX_SCHEMA,
  INDEX_SCHEMA_VERSION,
  INDEX_UPGRADABLE_FROM,
  INDEX_UPGRADES,
} from "./_schema.ts";
import {
  type IndexDb,
  NoSqliteError,
  sqlite,
  type SqliteOpen,
} from "./_sqlite.ts";
import { isDamaged, isLocked } from "./_sqlite_errors.ts";

/** The index file's name in a data dir. */
export const INDEX_FILE = "index.sqlite";

/** How long a statement waits for another process's write lock, in ms. */
export const INDEX_BUSY_MS = 3000;

/** Milliseconds between two tries to open an index another process is making. */
const _RETRY_MS = 10;

/** Options for {@linkcode openIndexDb}. */
export interface IndexDbOptions {
  /** Create the file when it is missing. */
  create: boolean;
  /** Called with each warning (a rebuilt, locked or newer index). */
  onWarning: (message: string) => void;
  /** How long to wait for a lock, in ms. Default {@linkcode INDEX_BUSY_MS}. */
  busyMs?: number;
  /**
   * The index file. Default `<dataDir>/index.sqlite`; the CLI keeps the
   * index of a data dir that is not xdev's (omp's, pi's) under its own.
   */
  indexPath?: string;
}

/**
 * Where the index of a data dir is: `options.indexPath`, else
 * `<dataDir>/index.sqlite`.
 *
 * @param dataDir The data dir.
 * @param options The index file, when chosen.
 * @returns The index file.
 */
export function indexFile(
  dataDir: string,
  options: { indexPath?: string | undefined } = {},
): string {
  return options.indexPath ?? join(dataDir, INDEX_FILE);
}

/**
 * Open the index of a data dir, or undefined when there is none (and
 * `create` is false) or it cannot be used (reported to `onWarning`).
 *
 * @param dataDir The data dir.
 * @param options Whether to create it; where warnings go.
 * @returns The open database, or undefined.
 */
export async function openIndexDb(
  dataDir: string,
  options: IndexDbOptions,
): Promise<IndexDb | undefined> {
  const path = indexFile(dataDir, options);
  const until = performance.now() + (options.busyMs ?? INDEX_BUSY_MS);
  const open = await _sqliteOr(options);
  if (open === undefined) return undefined;
  try {
    const exists = await _exists(path);
    if (!exists && !options.create) return undefined;
    if (!exists) await _createFile(path);
    for (;;) {
      try {
        return _open(open, path, options);
      } catch (err) {
        // Switching a new file to WAL while another process does the same
        // fails at once ("database is locked": SQLite calls no busy handler
        // there, to avoid a deadlock); that process is making the index,
        // so this one tries again, within the wait any lock gets.
        if (!isLocked(err) || performance.now() >= until) throw err;
        await new Promise((r) => setTimeout(r, _RETRY_MS));
      }
    }
  } catch (err) {
    if (isDamaged(err)) {
      options.onWarning(
        `The session index ${quote(path)} is damaged (${
          _why(err)
        }); rebuilding it`,
      );
      return await remakeIndexDb(dataDir, options);
    }
    options.onWarning(
      `Cannot use the session index ${quote(path)}: ${
        _why(err)
      }; going on without it`,
    );
    return undefined;
  }
}

function _open(
  open: SqliteOpen,
  path: string,
  options: IndexDbOptions,
): IndexDb | undefined {
  const db = open(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${options.busyMs ?? INDEX_BUSY_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    const version = _version(db);
    if (version > INDEX_SCHEMA_VERSION) {
      db.close();
      options.onWarning(
        `Cannot use the session index ${
          quote(path)
        }: its schema is version ${version}, newer than ${INDEX_SCHEMA_VERSION}; going on without it`,
      );
      return undefined;
    }
    if (version < INDEX_SCHEMA_VERSION) _create(db, version);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** The schema version recorded in the file; 0 for a new file. */
function _version(db: IndexDb): number {
  const table = db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
  ).get();
  if (table === undefined) return 0;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as
    | { value: string }
    | undefined;
  return row === undefined ? 0 : Number(row.value);
}

/**
 * Make the schema; an older one (a cache) is dropped and made anew, unless
 * only what this one adds is missing.
 */
function _create(db: IndexDb, old: number): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    if (old > 0 && old < INDEX_UPGRADABLE_FROM) {
      const tables = db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      ).all() as { name: string }[];
      for (const { name } of tables) db.exec(`DROP TABLE IF EXISTS "${name}"`);
    } else if (old > 0) {
      for (const step of INDEX_UPGRADES) {
        if (old < step.version) step.statements.forEach((s) => db.exec(s));
      }
    }
    for (const statement of INDEX_SCHEMA) db.exec(statement);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)")
      .run(String(INDEX_SCHEMA_VERSION));
    db.exec("COMMIT");
  } catch (err) {
    if (db.isTransaction) db.exec("ROLLBACK"); // else SQLite rolled back
    throw err;
  }
}

/**
 * Make the index of a data dir anew: the file and its WAL files deleted,
 * then an empty index made (what a damaged file gets). Another process
 * that has the old file open goes on with it, unlinked, and its writes are
 * lost: the index is a cache, and that process's next open finds the new one.
 *
 * @param dataDir The data dir.
 * @param options Where a failure goes (the index is then undefined).
 * @returns The new, empty index, or undefined.
 */
export async function remakeIndexDb(
  dataDir: string,
  options: IndexDbOptions,
): Promise<IndexDb | undefined> {
  const path = indexFile(dataDir, options);
  const open = await _sqliteOr(options);
  if (open === undefined) return undefined;
  try {
    await _refuseLinks(path);
    for (const suffix of ["", "-wal", "-shm"]) {
      await fs().remove(`${path}${suffix}`).catch((err) => {
        if (!isNotFound(err)) throw err;
      });
    }
    await _createFile(path);
    return _open(open, path, options);
  } catch (err) {
    options.onWarning(
      `Cannot rebuild the session index ${quote(path)}: ${
        _why(err)
      }; going on without it`,
    );
    return undefined;
  }
}

/**
 * What `PRAGMA quick_check` says of the database: `"ok"`, or its first
 * finding (the check itself may fail on a damaged file: that is its finding).
 *
 * @param db The database.
 * @returns `"ok"`, or what is wrong.
 */
export function quickCheck(db: IndexDb): string {
  try {
    const row = db.prepare("PRAGMA quick_check(1)").get() as
      | { quick_check: string }
      | undefined;
    return row?.quick_check ?? "no answer";
  } catch (err) {
    return _why(err);
  }
}

/**
 * The runtime's SQLite, or undefined where it has none (said to
 * `onWarning`: the index is skipped, and the caller reads the files).
 */
async function _sqliteOr(
  options: IndexDbOptions,
): Promise<SqliteOpen | undefined> {
  try {
    return await sqlite();
  } catch (err) {
    if (!(err instanceof NoSqliteError)) throw err;
    options.onWarning(err.message);
    return undefined;
  }
}

/** The file, made 0600 whatever the umask (SQLite gives its WAL files the same mode). */
async function _createFile(path: string): Promise<void> {
  await makeFolders(path, join(path, ".."));
  try {
    const file = await createFile(
      path,
      { write: true },
      "Cannot create the session index",
    );
    await file.close();
  } catch (err) {
    if (errorCode(err) !== "EEXIST") throw err; // another process made it first
  }
}

/**
 * Whether the index file is there (links refused: see {@linkcode _refuseLinks}).
 */
async function _exists(path: string): Promise<boolean> {
  await _refuseLinks(path);
  return await lstatOrUndefined(path) !== undefined;
}

/**
 * Throws when the index file or one of its WAL files is a symbolic link,
 * as the blob store refuses them: a link (even a dangling one) would have
 * SQLite read, make or write a database wherever it points.
 */
async function _refuseLinks(path: string): Promise<void> {
  for (const suffix of ["", "-wal", "-shm"]) {
    const info = await lstatOrUndefined(`${path}${suffix}`);
    if (info?.kind === "symlink") {
      throw new Error(
        suffix === ""
          ? "it is a symbolic link"
          : `its file ${quote(`${path}${suffix}`)} is a symbolic link`,
      );
    }
  }
}

function _why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
