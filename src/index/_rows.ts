/**
 * The rows of the index's `sessions` table: what a file's head says (for
 * the list) and the state at an offset (for a windowed open that reads
 * only what was appended since), and the statements over them (what the
 * columns are made from and read back as: `_row_values.ts`).
 *
 * @module
 */

import type { IndexDb, IndexStatement } from "./_sqlite.ts";
import { returnArrays } from "./_prepared.ts";

/**
 * How long after a read a file's modification time still cannot tell a
 * later change, in ms. A file system stamps a write with a clock that
 * moves in steps: a jiffy of a few ms on Linux, a second on ext3 or HFS+,
 * two on FAT. A write in the same step as a read leaves the size and the
 * modification time the read saw, when it keeps the size (the title slot
 * rewritten in place), and a row that trusts them never sees it: git's
 * "racily clean" files. Generous: a row within it costs the next refresh
 * a read of its file's first bytes and of those before its offset.
 */
export const SETTLE_MS = 2000;

/**
 * Whether a row made from a read that began at `readAt` (ms since the
 * epoch) may miss a change to come: its file's modification time is not
 * {@linkcode SETTLE_MS} older than the read. A time in the future counts:
 * a write at that time would bear it.
 */
export function isUnsettled(mtimeMs: number, readAt: number): boolean {
  return mtimeMs > readAt - SETTLE_MS;
}

/** A row as stored. */
export interface SessionRow {
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  id: string;
  cwd: string;
  title: string | null;
  titleSource: string | null;
  parentSession: string | null;
  timestamp: string;
  version: number;
  subagent: number;
  bodyStart: number;
  headHash: string;
  offset: number | null;
  tailHash: string | null;
  entries: number | null;
  messages: number | null;
  leafId: string | null;
  model: string | null;
  thinkingLevel: string | null;
  created: string | null;
  updated: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  cost: number | null;
  pathSteps: Uint8Array | null;
  pathEnd: string | null;
  labels: string | null;
  ids: Uint8Array | null;
}

/** The head-and-stat columns, for the list. */
export type HeadRow = Pick<
  SessionRow,
  | "path"
  | "dev"
  | "ino"
  | "size"
  | "mtimeMs"
  | "id"
  | "cwd"
  | "title"
  | "titleSource"
  | "parentSession"
  | "timestamp"
  | "version"
  | "subagent"
  | "bodyStart"
  | "headHash"
>;

/** The state columns: what a resumed open needs, and the figures. */
export type StateRow = Pick<
  SessionRow,
  | "offset"
  | "tailHash"
  | "entries"
  | "messages"
  | "leafId"
  | "model"
  | "thinkingLevel"
  | "created"
  | "updated"
  | "pathSteps"
  | "pathEnd"
  | "labels"
  | "ids"
>;

/** Bytes before a row's offset hashed to see they are unchanged. */
export const TAIL_HASH_BYTES = 4096;

const _HEAD_COLUMNS = [
  "path",
  "dev",
  "ino",
  "size",
  "mtimeMs",
  "id",
  "cwd",
  "title",
  "titleSource",
  "parentSession",
  "timestamp",
  "version",
  "subagent",
  "bodyStart",
  "headHash",
] as const;

const _STATE_COLUMNS = [
  "offset",
  "tailHash",
  "entries",
  "messages",
  "leafId",
  "model",
  "thinkingLevel",
  "created",
  "updated",
  "pathSteps",
  "pathEnd",
  "labels",
  "ids",
] as const;

/** What a refresh compares of a row with its file (see {@linkcode SessionRows.stats}). */
export type StatRow = Pick<
  HeadRow,
  "path" | "dev" | "ino" | "size" | "mtimeMs" | "bodyStart"
>;

/** What tells whether a row's file still holds what the row was made from. */
export type RowChecks = Pick<
  SessionRow,
  "bodyStart" | "headHash" | "offset" | "tailHash"
>;

/** A row's head columns as an array, in the order of `_HEAD_COLUMNS`. */
type _HeadArray = [
  string,
  number,
  number,
  number,
  number,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string,
  number,
  number,
  number,
  string,
];

/** The statements over the `sessions` table, prepared once per database. */
export class SessionRows {
  readonly #heads: IndexStatement;
  readonly #stats: IndexStatement;
  readonly #arrays: boolean;
  readonly #get: IndexStatement;
  readonly #offset: IndexStatement;
  readonly #stat: IndexStatement;
  readonly #putHead: IndexStatement;
  readonly #putState: IndexStatement;
  readonly #clearState: IndexStatement;
  readonly #remove: IndexStatement;
  readonly #paths: IndexStatement;
  readonly #shallow: IndexStatement;
  readonly #shallowOne: IndexStatement;
  readonly #unsettled: IndexStatement;
  readonly #unsettledOne: IndexStatement;
  readonly #unsettle: IndexStatement;
  readonly #settle: IndexStatement;
  readonly #checks: IndexStatement;

  constructor(db: IndexDb) {
    this.#heads = db.prepare(
      `SELECT ${_HEAD_COLUMNS.join(", ")} FROM sessions`,
    );
    // Arrays, made into objects of one shape here.
    this.#arrays = returnArrays(this.#heads);
    this.#stats = db.prepare(
      "SELECT path, dev, ino, size, mtimeMs, bodyStart FROM sessions",
    );
    returnArrays(this.#stats);
    this.#get = db.prepare("SELECT * FROM sessions WHERE path = ?");
    this.#offset = db.prepare("SELECT offset FROM sessions WHERE path = ?");
    this.#stat = db.prepare(
      "SELECT path, dev, ino, size, mtimeMs, bodyStart FROM sessions WHERE path = ?",
    );
    const heads = _HEAD_COLUMNS.join(", ");
    const marks = _HEAD_COLUMNS.map(() => "?").join(", ");
    const updates = _HEAD_COLUMNS.slice(1).map((c) => `${c} = excluded.${c}`)
      .join(", ");
    // A new head keeps the state columns: whether they still hold is
    // checked when they are used (inode, length, the bytes before the offset).
    this.#putHead = db.prepare(
      `INSERT INTO sessions (${heads}) VALUES (${marks})
       ON CONFLICT (path) DO UPDATE SET ${updates}`,
    );
    this.#putState = db.prepare(
      `UPDATE sessions SET ${
        _STATE_COLUMNS.map((c) => `${c} = ?`).join(", ")
      } WHERE path = ?`,
    );
    this.#clearState = db.prepare(
      `UPDATE sessions SET ${
        _STATE_COLUMNS.map((c) => `${c} = NULL`).join(", ")
      } WHERE path = ?`,
    );
    this.#remove = db.prepare("DELETE FROM sessions WHERE path = ?");
    this.#paths = db.prepare("SELECT path FROM sessions");
    const shallow = `SELECT path FROM sessions s WHERE offset IS NULL
      AND NOT EXISTS (SELECT 1 FROM facets f WHERE f.path = s.path)`;
    this.#shallow = db.prepare(shallow);
    this.#shallowOne = db.prepare(`${shallow} AND path = ?`);
    this.#unsettled = db.prepare("SELECT path FROM unsettled");
    this.#unsettledOne = db.prepare("SELECT 1 FROM unsettled WHERE path = ?");
    this.#unsettle = db.prepare(
      "INSERT OR IGNORE INTO unsettled (path) VALUES (?)",
    );
    this.#settle = db.prepare("DELETE FROM unsettled WHERE path = ?");
    this.#checks = db.prepare(
      "SELECT bodyStart, headHash, offset, tailHash FROM sessions WHERE path = ?",
    );
  }

  /** The rows a change may have come to unseen (see `isUnsettled`). */
  unsettled(): Set<string> {
    return new Set(
      (this.#unsettled.all() as { path: string }[]).map((r) => r.path),
    );
  }

  /** Whether `path`'s row is among {@linkcode unsettled}. */
  isUnsettledRow(path: string): boolean {
    return this.#unsettledOne.get(path) !== undefined;
  }

  /** What tells whether a row's file still holds the bytes it was made from. */
  checksOf(path: string): RowChecks | undefined {
    return this.#checks.get(path) as RowChecks | undefined;
  }

  /** A row no longer needs its bytes checked: its file was old enough when read. */
  settle(path: string): void {
    this.#settle.run(path);
  }

  /**
   * The rows that hold a head only, which no facet has read (a list
   * recorded them): a refresh reads their files whole, or their facets
   * would never be fed.
   */
  shallow(): Set<string> {
    return new Set(
      (this.#shallow.all() as { path: string }[]).map((r) => r.path),
    );
  }

  /** Whether `path`'s row holds a head only (see {@linkcode shallow}). */
  isShallow(path: string): boolean {
    return this.#shallowOne.get(path) !== undefined;
  }

  /** Every row's head columns, by path. */
  heads(): Map<string, HeadRow> {
    return this.#byPath(this.#heads, (a: _HeadArray) => ({
      path: a[0],
      dev: a[1],
      ino: a[2],
      size: a[3],
      mtimeMs: a[4],
      id: a[5],
      cwd: a[6],
      title: a[7],
      titleSource: a[8],
      parentSession: a[9],
      timestamp: a[10],
      version: a[11],
      subagent: a[12],
      bodyStart: a[13],
      headHash: a[14],
    }));
  }

  /**
   * Every row's columns a refresh compares with its file, by path (a
   * fifth of the head columns: a refresh of 10,000 unchanged files makes
   * no title, cwd or hash strings).
   */
  stats(): Map<string, StatRow> {
    type Stat = [string, number, number, number, number, number];
    return this.#byPath(this.#stats, (a: Stat) => ({
      path: a[0],
      dev: a[1],
      ino: a[2],
      size: a[3],
      mtimeMs: a[4],
      bodyStart: a[5],
    }));
  }

  /** A statement's rows by path: made from arrays where SQLite gives them. */
  #byPath<T extends { path: string }, A extends unknown[]>(
    statement: IndexStatement,
    fromArray: (a: A) => T,
  ): Map<string, T> {
    const out = new Map<string, T>();
    if (!this.#arrays) {
      for (const row of statement.all() as unknown as T[]) {
        out.set(row.path, row);
      }
      return out;
    }
    for (const a of statement.all() as unknown as A[]) {
      const row = fromArray(a);
      out.set(row.path, row);
    }
    return out;
  }

  /** A row. */
  get(path: string): SessionRow | undefined {
    return this.#get.get(path) as unknown as SessionRow | undefined;
  }

  /**
   * Where a row's state was recorded: undefined without a row, null when
   * it holds no state. From the covering index of the head columns, without
   * the row's recorded path and ids (~2 MB for a 1 GB session, ~17 ms here).
   */
  offsetOf(path: string): number | null | undefined {
    const row = this.#offset.get(path) as { offset: number | null } | undefined;
    return row?.offset;
  }

  /** A row's stat columns (from the covering index of the head columns). */
  statOf(path: string): StatRow | undefined {
    return this.#stat.get(path) as StatRow | undefined;
  }

  /** Every path with a row. */
  paths(): string[] {
    return (this.#paths.all() as { path: string }[]).map((r) => r.path);
  }

  /**
   * Write a row's head columns (inserting the row when new).
   *
   * @param row The columns.
   * @param readAt When the read they come from began (ms since the
   * epoch): a file modified too close to it is unsettled.
   */
  putHead(row: HeadRow, readAt: number): void {
    this.#putHead.run(..._HEAD_COLUMNS.map((c) => row[c]));
    if (isUnsettled(row.mtimeMs, readAt)) this.#unsettle.run(row.path);
    else this.#settle.run(row.path);
  }

  /** Write a row's state columns. */
  putState(path: string, state: StateRow): void {
    this.#putState.run(..._STATE_COLUMNS.map((c) => state[c]), path);
  }

  /** Clear a row's state columns: its file was read and gave none. */
  clearState(path: string): void {
    this.#clearState.run(path);
  }

  /** Remove a row. */
  remove(path: string): void {
    this.#remove.run(path);
    this.#settle.run(path);
  }
}
