/**
 * The rows of the index's `sessions` table: what a file's head says (for
 * the list) and the state at an offset (for a windowed open that reads
 * only what was appended since).
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { PathSteps } from "../../context/_path_steps.ts";
import type { PathEnd } from "../../context/tree.ts";
import { headerTitleSource, headerVersion } from "../../format/header.ts";
import type { TitleSource } from "../../format/title_slot.ts";
import type { Head } from "../../read/_head.ts";
import { IdFlags } from "../../read/_id_set.ts";
import type { ResumeFrom } from "../../read/_resume.ts";
import type { SessionInfo } from "../session_info.ts";
import { hashBytes } from "./_hash.ts";

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
  readonly #heads: StatementSync;
  readonly #arrays: boolean;
  readonly #get: StatementSync;
  readonly #putHead: StatementSync;
  readonly #putState: StatementSync;
  readonly #remove: StatementSync;
  readonly #paths: StatementSync;

  constructor(db: DatabaseSync) {
    this.#heads = db.prepare(
      `SELECT ${_HEAD_COLUMNS.join(", ")} FROM sessions`,
    );
    // Arrays, made into objects of one shape here: half the cost of the
    // objects SQLite's binding makes, on a list of 10,000. (Deno 2.9 has
    // the method; its types do not list it yet.)
    const arrays = this.#heads as unknown as {
      setReturnArrays?: (on: boolean) => void;
    };
    arrays.setReturnArrays?.(true);
    this.#arrays = arrays.setReturnArrays !== undefined;
    this.#get = db.prepare("SELECT * FROM sessions WHERE path = ?");
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
    this.#remove = db.prepare("DELETE FROM sessions WHERE path = ?");
    this.#paths = db.prepare("SELECT path FROM sessions");
  }

  /** Every row's head columns, by path. */
  heads(): Map<string, HeadRow> {
    const out = new Map<string, HeadRow>();
    if (!this.#arrays) {
      for (const row of this.#heads.all() as unknown as HeadRow[]) {
        out.set(row.path, row);
      }
      return out;
    }
    for (const a of this.#heads.all() as unknown as _HeadArray[]) {
      out.set(a[0], {
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
      });
    }
    return out;
  }

  /** A row. */
  get(path: string): SessionRow | undefined {
    return this.#get.get(path) as unknown as SessionRow | undefined;
  }

  /** Every path with a row. */
  paths(): string[] {
    return (this.#paths.all() as { path: string }[]).map((r) => r.path);
  }

  /** Write a row's head columns (inserting the row when new). */
  putHead(row: HeadRow): void {
    this.#putHead.run(..._HEAD_COLUMNS.map((c) => row[c]));
  }

  /** Write a row's state columns. */
  putState(path: string, state: StateRow): void {
    this.#putState.run(..._STATE_COLUMNS.map((c) => state[c]), path);
  }

  /** Remove a row. */
  remove(path: string): void {
    this.#remove.run(path);
  }
}

/**
 * The head columns of a file from its head and metadata.
 *
 * @param path The file.
 * @param info Its metadata.
 * @param head Its head.
 * @param headBytes Its first `head.bodyStart` bytes.
 * @param depth 0 in a cwd folder; more inside artifacts folders.
 * @returns The columns.
 */
export function headRow(
  path: string,
  info: Deno.FileInfo,
  head: Head,
  headBytes: Uint8Array,
  depth: number,
): HeadRow {
  const { slot, header } = head;
  const source = slot === undefined ? headerTitleSource(header) : slot.source;
  const title = slot === undefined ? header.title : slot.title;
  return {
    path,
    dev: info.dev ?? 0,
    ino: info.ino ?? 0,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? 0,
    id: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    title: typeof title === "string" && title.length > 0 ? title : null,
    titleSource: source ?? null,
    parentSession: typeof header.parentSession === "string" &&
        header.parentSession.length > 0
      ? header.parentSession
      : null,
    timestamp: typeof header.timestamp === "string" ? header.timestamp : "",
    version: headerVersion(header),
    subagent: depth > 0 || source === "subagent" ? 1 : 0,
    bodyStart: head.bodyStart,
    headHash: hashBytes(headBytes),
  };
}

/** Whether a row was made from a file that still has this inode, size and mtime. */
export function sameStat(row: HeadRow, info: Deno.FileInfo): boolean {
  return row.size === info.size &&
    row.mtimeMs === (info.mtime?.getTime() ?? 0) &&
    row.ino === (info.ino ?? 0) && row.dev === (info.dev ?? 0);
}

/**
 * The list entry of a row, with the file's current metadata.
 *
 * @param row The head columns.
 * @param info The file's metadata now.
 * @returns The entry, as the list without the index gives it.
 */
export function infoOfRow(row: HeadRow, info: Deno.FileInfo): SessionInfo {
  const session: SessionInfo = {
    path: row.path,
    id: row.id,
    cwd: row.cwd,
    timestamp: row.timestamp,
    size: info.size,
    mtime: info.mtime ?? new Date(0),
    version: row.version,
  };
  if (row.title !== null) session.title = row.title;
  if (row.titleSource !== null) {
    session.titleSource = row.titleSource as TitleSource;
  }
  if (row.parentSession !== null) session.parentSession = row.parentSession;
  return session;
}

/**
 * What a resumed open needs, from a row, or undefined when it has no state.
 *
 * @param row The row.
 * @returns The record of the row's offset.
 * @throws {RangeError} When the stored bytes are damaged.
 */
export function resumeOfRow(row: SessionRow): ResumeFrom | undefined {
  if (
    row.offset === null || row.pathSteps === null || row.ids === null ||
    row.labels === null
  ) return undefined;
  return {
    offset: row.offset,
    path: PathSteps.decode(row.pathSteps),
    pathEnd: (row.pathEnd ?? "root") as PathEnd,
    labels: JSON.parse(row.labels) as Record<string, string>,
    ids: IdFlags.decode(row.ids),
    entries: row.entries ?? 0,
    messages: row.messages ?? 0,
  };
}
