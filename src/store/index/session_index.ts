/**
 * `SessionIndex`: a data dir's sessions in one SQLite file
 * (`<dataDir>/index.sqlite`), so a list of thousands of sessions costs a
 * stat of each file, and a checkpoint-less file reopens reading only what
 * was appended since it was indexed. The session files stay the only
 * source of truth: a row is used only while the file it was made from is
 * unchanged where the row looked, and the index can be deleted at any time.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { basename, dirname, join, relative, resolve } from "node:path";
import { sessionsDir } from "../places.ts";
import { foldSettings } from "../../context/settings.ts";
import { pathTo } from "../../context/tree.ts";
import { seam } from "../../fs/_seam.ts";
import type { LoadedSession } from "../../read/_records.ts";
import type { ResumeFrom } from "../../read/_resume.ts";
import { readSessionFile } from "../../read/_session_file.ts";
import {
  type FoundFile,
  mapLimit,
  readSessionHead,
  sessionFiles,
  sessionInfo,
  sortNewestFirst,
} from "../_session_files.ts";
import type { SessionInfo } from "../session_info.ts";
import { INDEX_FILE, isLocked, openIndexDb } from "./_db.ts";
import { FACETS } from "./_facet_list.ts";
import {
  type FacetFile,
  feedFacets,
  forgetFile,
  tailHashAt,
  wholeLinesEnd,
} from "./_facets.ts";
import {
  type HeadRow,
  headRow,
  infoOfRow,
  resumeOfRow,
  sameStat,
  type SessionRow,
  SessionRows,
  type StateRow,
} from "./_rows.ts";

/** Options for {@linkcode SessionIndex.open}. */
export interface SessionIndexOptions {
  /** Make the index file when the data dir has none. Default true. */
  create?: boolean;
  /** Where warnings go (a rebuilt, locked or newer index). Default `console.warn`. */
  onWarning?: (message: string) => void;
}

/** Options for {@linkcode SessionIndex.refresh}. */
export interface RefreshOptions {
  /** Called after each file, with how many of how many are done. */
  onProgress?: (done: number, total: number) => void;
  /** Forget every row first: rebuild the index from the files. */
  rebuild?: boolean;
}

/** What a refresh did. */
export interface RefreshResult {
  /** Sessions in the index afterwards. */
  sessions: number;
  /** Files read (new, grown or changed). */
  refreshed: number;
  /** Rows of files that are gone. */
  removed: number;
  /** Files that are not sessions (their head does not read). */
  skipped: number;
  /** Milliseconds the refresh took. */
  ms: number;
}

/** Options of a list through the index (those of `listSessions`). */
export interface IndexListOptions {
  /** Only this working directory's folder. */
  cwd?: string | undefined;
  /** Include subagent sessions. */
  includeSubagents?: boolean | undefined;
  /** Called for each file skipped, with path and reason. */
  onSkip?: ((path: string, reason: string) => void) | undefined;
}

/** Files read at once by a refresh. */
const _CONCURRENCY = 4;
/** Heads read at once by a list (as the list without the index reads them). */
const _HEAD_READS = 16;

/**
 * The session index of a data dir.
 *
 * @example Index a data dir, then list it from the index
 * ```ts
 * import { listSessions, Session, SessionIndex } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using s = await Session.create({ cwd: "/home/dev/app", dataDir });
 *   await s.appendMessage({ role: "user", content: "Hi" });
 *   await s.ensureOnDisk();
 *   using index = await SessionIndex.open(dataDir);
 *   const done = await index.refresh();
 *   equal(done.sessions, 1);
 *   equal((await index.list()).length, 1);
 *   equal((await listSessions(dataDir)).length, 1); // uses the index
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 */
export class SessionIndex implements Disposable {
  readonly #dataDir: string;
  readonly #db: DatabaseSync;
  readonly #rows: SessionRows;
  readonly #warn: (message: string) => void;
  #closed = false;

  private constructor(
    dataDir: string,
    db: DatabaseSync,
    warn: (message: string) => void,
  ) {
    this.#dataDir = dataDir;
    this.#db = db;
    this.#rows = new SessionRows(db);
    this.#warn = warn;
  }

  /**
   * Open (and, unless told otherwise, create) the index of a data dir.
   *
   * @param dataDir The data dir.
   * @param options Whether to create it; where warnings go.
   * @returns The index.
   * @throws {Error} When it cannot be used (a newer schema, a lock held
   * past the wait, no file and `create: false`); the warning says why.
   */
  static async open(
    dataDir: string,
    options: SessionIndexOptions = {},
  ): Promise<SessionIndex> {
    const index = await SessionIndex.tryOpen(dataDir, options);
    if (index === undefined) {
      throw new Error(
        `Cannot open the session index of "${dataDir}": it is missing or cannot be used`,
      );
    }
    return index;
  }

  /**
   * {@linkcode open}, or undefined (with a warning) where the index cannot
   * be used: what the list and the open call, so that no index never stops
   * them.
   *
   * @param dataDir The data dir.
   * @param options Whether to create it; where warnings go.
   * @returns The index, or undefined.
   */
  static async tryOpen(
    dataDir: string,
    options: SessionIndexOptions = {},
  ): Promise<SessionIndex | undefined> {
    const warn = options.onWarning ?? ((m: string) => console.warn(m));
    const db = await openIndexDb(dataDir, {
      create: options.create !== false,
      onWarning: warn,
    });
    return db === undefined
      ? undefined
      : new SessionIndex(resolve(dataDir), db, warn);
  }

  /**
   * The data dir whose index may hold `file`: the parent of the nearest
   * folder named `sessions` above it (the layout
   * `<dataDir>/sessions/<cwd>/<file>`), when it has an index file.
   *
   * @param file A session file (absolute).
   * @returns The data dir, or undefined.
   */
  static async dataDirOf(file: string): Promise<string | undefined> {
    for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
      if (basename(dir) !== "sessions") continue;
      const dataDir = dirname(dir);
      try {
        await seam().stat(join(dataDir, INDEX_FILE));
        return dataDir;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** The index file. */
  get path(): string {
    return join(this.#dataDir, INDEX_FILE);
  }

  /**
   * Bring the index up to date with the files: read what is new or
   * appended since, forget what is gone. One transaction per file, so
   * another process may refresh at the same time and a crash keeps what
   * was committed.
   *
   * @param options Progress; rebuild from scratch.
   * @returns What it did.
   */
  async refresh(options: RefreshOptions = {}): Promise<RefreshResult> {
    const started = performance.now();
    if (options.rebuild === true) this.#forgetAll();
    const files = await sessionFiles(this.#dataDir, { includeSubagents: true });
    const rows = this.#rows.heads();
    const behind = this.#behind();
    const result = { sessions: 0, refreshed: 0, removed: 0, skipped: 0, ms: 0 };
    let done = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < files.length) {
        const file = files[next++]!;
        const outcome = await this.#refreshFile(
          file,
          rows.get(file.path),
          behind.has(file.path),
        );
        if (outcome === "read") result.refreshed++;
        if (outcome === "skipped") result.skipped++;
        else result.sessions++;
        options.onProgress?.(++done, files.length);
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(_CONCURRENCY, files.length) }, worker),
    );
    const found = new Set(files.map((f) => f.path));
    for (const path of rows.keys()) {
      if (found.has(path)) continue;
      this.#write(() => this.#forget(path));
      result.removed++;
    }
    result.ms = Math.round(performance.now() - started);
    return result;
  }

  /**
   * Bring one file's row up to date (reading only what was appended since
   * it was indexed): what a session does when it is closed after appends.
   *
   * @param path The file (absolute), in this index's data dir.
   * @returns Whether the row was read anew.
   */
  async refreshFile(path: string): Promise<boolean> {
    path = resolve(path);
    const depth = _depth(sessionsDir(this.#dataDir), path);
    const known = this.#rows.get(path);
    const outcome = await this.#refreshFile(
      { path, depth },
      known,
      known === undefined || this.#behind(path).has(path),
    );
    return outcome === "read";
  }

  /**
   * The sessions, newest first, as `listSessions` gives them: each file is
   * stat'ed, and only a file that changed since its row is read (its first
   * 4 KiB).
   *
   * @param options One cwd; subagents; skipped files.
   * @returns The sessions.
   */
  async list(options: IndexListOptions = {}): Promise<SessionInfo[]> {
    const files = await sessionFiles(this.#dataDir, options);
    const rows = this.#rows.heads();
    const out: SessionInfo[] = [];
    const changed: FoundFile[] = [];
    const fs = seam();
    const wanted = (row: HeadRow) =>
      row.titleSource !== "subagent" || options.includeSubagents === true;
    for (const file of files) {
      let info: Deno.FileInfo;
      try {
        info = fs.statSync(file.path); // one tiny call: sync is ~10x cheaper
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        options.onSkip?.(file.path, `cannot read the first bytes: ${why}`);
        continue;
      }
      const row = rows.get(file.path);
      if (row === undefined || !sameStat(row, info)) changed.push(file);
      else if (wanted(row)) out.push(infoOfRow(row, info));
    }
    // Files new or changed since their row: their heads, read as the list
    // without the index reads them, then kept.
    const read = await mapLimit(changed, _HEAD_READS, async (file) => {
      const head = await readSessionHead(file.path);
      if ("skip" in head) {
        options.onSkip?.(file.path, head.skip);
        return undefined;
      }
      const row = headRow(
        file.path,
        head.info,
        head.head,
        head.headBytes,
        file.depth,
      );
      if (wanted(row)) out.push(sessionInfo(file.path, head.info, head.head));
      return row;
    });
    const fresh = read.filter((r): r is HeadRow => r !== undefined);
    if (fresh.length > 0) {
      this.#write(() => {
        for (const row of fresh) this.#rows.putHead(row);
      });
    }
    return sortNewestFirst(out);
  }

  /**
   * What a windowed open of `path` can resume from: the row's state, when
   * the file is the same inode, at least as long, with the same head end
   * and the same bytes just before the row's offset.
   *
   * @param path The file (absolute).
   * @param bodyStart Where its entries start now.
   * @returns The record to resume from, or undefined.
   */
  async resumeFor(
    path: string,
    bodyStart: number,
  ): Promise<ResumeFrom | undefined> {
    const row = this.#rows.get(path);
    if (row === undefined || row.offset === null) return undefined;
    if (row.bodyStart !== bodyStart) return undefined;
    if (!await _tailUnchanged(path, row)) return undefined;
    try {
      return resumeOfRow(row);
    } catch {
      // A damaged row: read the file; the next refresh rewrites the row.
      return undefined;
    }
  }

  /**
   * Keep what a read learned of a whole file (its record), so the next open
   * reads only what is appended after it.
   *
   * @param path The file (absolute).
   * @param loaded What the read gave, with its record.
   */
  async remember(path: string, loaded: LoadedSession): Promise<void> {
    const known = this.#rows.get(path);
    if (
      known !== undefined && known.offset !== null &&
      known.offset === loaded.recordEnd
    ) return; // recorded as it is
    const read = await readSessionHead(path);
    if ("skip" in read) return;
    const depth = _depth(sessionsDir(this.#dataDir), path);
    const head = headRow(path, read.info, read.head, read.headBytes, depth);
    const state = await _stateOf(path, loaded);
    this.#write(() => {
      this.#rows.putHead(head);
      if (state !== undefined) this.#rows.putState(path, state);
    });
  }

  /**
   * Run `work` over the index's database, to read a facet's tables (what
   * `searchSessions` does); `work` must not write.
   *
   * @param work The reads.
   * @returns What `work` returns.
   */
  read<T>(work: (db: DatabaseSync) => T): T {
    return work(this.#db);
  }

  /** Close the database. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * Read one file into its row: head always, state from the row's (or from
   * scratch), then the facets up to the state's offset, in one transaction.
   */
  async #refreshFile(
    file: FoundFile,
    known: HeadRow | undefined,
    behind: boolean,
  ): Promise<"read" | "unchanged" | "skipped"> {
    const { path, depth } = file;
    let info: Deno.FileInfo;
    try {
      info = seam().statSync(path);
    } catch {
      return "skipped";
    }
    if (known !== undefined && sameStat(known, info)) {
      if (behind) await this.#catchUpFacets(file, known);
      return "unchanged";
    }
    const read = await readSessionHead(path);
    if ("skip" in read) {
      if (known !== undefined) this.#write(() => this.#forget(path));
      return "skipped";
    }
    const head = headRow(path, read.info, read.head, read.headBytes, depth);
    const resume = known === undefined
      ? undefined
      : await this.resumeFor(path, read.head.bodyStart);
    let state: StateRow | undefined;
    try {
      const loaded = await readSessionFile(path, {
        window: true,
        record: true,
        ...(resume === undefined ? {} : { resume }),
      });
      state = await _stateOf(path, loaded);
    } catch {
      state = undefined; // unreadable past its head: listed, not indexed deeper
    }
    const row = () => {
      this.#rows.putHead(head);
      if (state !== undefined) this.#rows.putState(path, state);
    };
    // The row and the facets' first lines in one transaction; a file the
    // index keeps no state of (one read whole) is fed up to its last whole line.
    await this.#feedFacets(
      { path, depth, header: read.head.header },
      read.info,
      {
        bodyStart: head.bodyStart,
        end: state?.offset ??
          await wholeLinesEnd(path, read.info.size, head.bodyStart),
        endHash: state?.tailHash ?? undefined,
      },
      row,
    );
    return "read";
  }

  /** The facets of a file whose row is current but which they have not all read (a new facet, or an open that recorded the file). */
  async #catchUpFacets(file: FoundFile, known: HeadRow): Promise<void> {
    const row = this.#rows.get(file.path);
    if (row?.offset === null || row?.offset === undefined) return;
    const read = await readSessionHead(file.path);
    if ("skip" in read) return;
    await this.#feedFacets(
      { ...file, header: read.head.header },
      read.info,
      { bodyStart: known.bodyStart, end: row.offset },
    );
  }

  #feedFacets(
    file: FacetFile,
    info: Deno.FileInfo,
    range: { bodyStart: number; end: number; endHash?: string | undefined },
    alongside?: () => void,
  ): Promise<boolean> {
    return feedFacets(
      this.#db,
      (work) => this.#write(work),
      FACETS,
      file,
      info,
      range,
      alongside,
    );
  }

  /**
   * Paths some facet has not read to their row's offset (or read with an
   * older version of itself): all of them, or only `path`.
   */
  #behind(path?: string): Set<string> {
    const where = path === undefined ? "" : "WHERE s.path = ?";
    const args = path === undefined ? [] : [path];
    const out = new Set<string>();
    for (const facet of FACETS) {
      const rows = this.#db.prepare(
        `SELECT s.path AS path FROM sessions s
         LEFT JOIN facets f ON f.path = s.path AND f.facet = ?
         ${where === "" ? "WHERE" : `${where} AND`} s.offset IS NOT NULL
           AND (f.path IS NULL OR f.version != ? OR f.offset != s.offset)`,
      ).all(facet.name, ...args, facet.version) as { path: string }[];
      for (const r of rows) out.add(r.path);
    }
    return out;
  }

  /** A file is gone (or no longer a session): its row and what the facets hold of it. */
  #forget(path: string): void {
    this.#rows.remove(path);
    forgetFile(this.#db, FACETS, path);
  }

  /** Forget every row and what every facet read (its figures of deleted files stay). */
  #forgetAll(): void {
    this.#write(() => {
      const read = this.#db.prepare("SELECT DISTINCT path FROM facets")
        .all() as {
          path: string;
        }[];
      for (const { path } of read) {
        for (const facet of FACETS) facet.forget(this.#db, path, false);
      }
      this.#db.exec("DELETE FROM facets");
      this.#db.exec("DELETE FROM sessions");
    });
  }

  /**
   * Run `work` in one write transaction. The work is synchronous, so no
   * other work on this connection interleaves and the lock is held only
   * that long; a lock another process holds past the busy wait is a
   * warning, not an error.
   *
   * @returns Whether the work was saved.
   */
  #write(work: () => void): boolean {
    try {
      this.#db.exec("BEGIN IMMEDIATE");
    } catch (err) {
      if (!isLocked(err)) throw err;
      this.#warn(
        `The session index "${this.path}" is locked by another process; this change was not saved`,
      );
      return false;
    }
    try {
      work();
      this.#db.exec("COMMIT");
      return true;
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }
}

/** How deep a file sits below its cwd folder (0: directly in it). */
function _depth(root: string, path: string): number {
  const parts = relative(root, path).split(/[\\/]/);
  return parts[0] === ".." ? 0 : Math.max(0, parts.length - 2);
}

/** The state columns of a read that recorded the file. */
async function _stateOf(
  path: string,
  loaded: LoadedSession,
): Promise<StateRow | undefined> {
  const record = loaded.record;
  const end = loaded.recordEnd;
  if (record === undefined || end === undefined) return undefined;
  const tail = await tailHashAt(path, end);
  if (tail === undefined) return undefined;
  const window = pathTo(loaded.leafId ?? null, loaded.byId).entries;
  const settings = foldSettings(window, loaded.base?.settings);
  const leaf = loaded.leafId === undefined || loaded.leafId === null
    ? undefined
    : loaded.byId.get(loaded.leafId);
  return {
    offset: end,
    tailHash: tail,
    entries: record.entries,
    messages: record.messages,
    leafId: loaded.leafId ?? null,
    model: settings.models.default ?? null,
    thinkingLevel: settings.thinkingLevel,
    created: typeof loaded.header.timestamp === "string"
      ? loaded.header.timestamp
      : null,
    updated: typeof leaf?.timestamp === "string" ? leaf.timestamp : null,
    pathSteps: record.path.encode(),
    pathEnd: record.pathEnd,
    labels: JSON.stringify(record.labels),
    ids: record.ids.encode(),
  };
}

/** Whether the file is the row's inode, at least as long, with the same bytes before its offset. */
async function _tailUnchanged(path: string, row: SessionRow): Promise<boolean> {
  try {
    const info = seam().statSync(path);
    if (info.ino !== row.ino || info.dev !== row.dev) return false;
    if (row.offset === null || info.size < row.offset) return false;
    return await tailHashAt(path, row.offset) === row.tailHash;
  } catch {
    return false;
  }
}
