/**
 * The index database: one SQLite file per data dir (`index.sqlite`, mode
 * 0600), opened through `node:sqlite` in WAL mode. It is a cache: a
 * missing, corrupt, locked or newer-schema file never stops an operation;
 * it is rebuilt, waited for a bounded time, or left alone, with a warning.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { errorCode, fs, isNotFound, statOrUndefined } from "../_fs.ts";
import { quote } from "../format/errors.ts";
import { createFile, makeFolders } from "../write/_files.ts";
import {
  INDEX_SCHEMA,
  INDEX_SCHEMA_VERSION,
  INDEX_UPGRADABLE_FROM,
} from "./_schema.ts";

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
): Promise<DatabaseSync | undefined> {
  const path = join(dataDir, INDEX_FILE);
  const exists = await _exists(path);
  if (!exists && !options.create) return undefined;
  const until = performance.now() + (options.busyMs ?? INDEX_BUSY_MS);
  try {
    if (!exists) await _createFile(path);
    for (;;) {
      try {
        return _open(path, options);
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
    if (_isCorrupt(err)) return await _rebuild(path, options, err);
    options.onWarning(
      `Cannot use the session index ${quote(path)}: ${
        _why(err)
      }; going on without it`,
    );
    return undefined;
  }
}

function _open(
  path: string,
  options: IndexDbOptions,
): DatabaseSync | undefined {
  const db = new DatabaseSync(path);
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
function _version(db: DatabaseSync): number {
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
function _create(db: DatabaseSync, old: number): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    if (old > 0 && old < INDEX_UPGRADABLE_FROM) {
      const tables = db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      ).all() as { name: string }[];
      for (const { name } of tables) db.exec(`DROP TABLE IF EXISTS "${name}"`);
    }
    for (const statement of INDEX_SCHEMA) db.exec(statement);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)")
      .run(String(INDEX_SCHEMA_VERSION));
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

/** A corrupt file (not a database, or damaged pages) is moved aside and made anew. */
async function _rebuild(
  path: string,
  options: IndexDbOptions,
  cause: unknown,
): Promise<DatabaseSync | undefined> {
  options.onWarning(
    `The session index ${quote(path)} is damaged (${
      _why(cause)
    }); rebuilding it`,
  );
  try {
    for (const suffix of ["", "-wal", "-shm"]) {
      await fs().remove(`${path}${suffix}`).catch((err) => {
        if (!isNotFound(err)) throw err;
      });
    }
    await _createFile(path);
    return _open(path, options);
  } catch (err) {
    options.onWarning(
      `Cannot rebuild the session index ${quote(path)}: ${
        _why(err)
      }; going on without it`,
    );
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

async function _exists(path: string): Promise<boolean> {
  return await statOrUndefined(path) !== undefined;
}

/** Whether SQLite says the file is not a database or is damaged. */
export function _isCorrupt(err: unknown): boolean {
  const text = err instanceof Error
    ? `${err.message} ${String((err as { code?: unknown }).code)}`
    : "";
  return /not a database|malformed|SQLITE_CORRUPT|SQLITE_NOTADB|file is encrypted/i
    .test(text);
}

/** Whether SQLite gave up waiting for another process's lock. */
export function isLocked(err: unknown): boolean {
  const text = err instanceof Error
    ? `${err.message} ${String((err as { code?: unknown }).code)}`
    : "";
  return /database is locked|SQLITE_BUSY|SQLITE_LOCKED/i.test(text);
}

function _why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
