/**
 * The index's engine, private to the library: the open database of a data
 * dir, its rows and facets, and the one way to write to it (a short
 * synchronous transaction, `_writes.ts`'s). `SessionIndex` is the public
 * face over it; the open, the list, the usage report and search use it
 * directly. Where work on it fails, {@linkcode IndexStore.recover} says
 * what to do: a damaged file is made anew, anything else is passed by;
 * each with one warning.
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import { basename, dirname, join, relative, resolve } from "node:path";
import { type FileInfo, statOrUndefined } from "../_fs.ts";
import { quote } from "../format/errors.ts";
import { sessionsDir } from "../store/places.ts";
import {
  INDEX_FILE,
  type IndexDbOptions,
  indexFile,
  openIndexDb,
  quickCheck,
  remakeIndexDb,
} from "./_db.ts";
import { FACETS } from "./_facet_list.ts";
import { isDamaged, isReadOnly } from "./_sqlite_errors.ts";
import {
  type FacetFile,
  feedFacets,
  forgetFile,
  type IndexFacet,
} from "./_facets.ts";
import type { FreshMark } from "./_fresh.ts";
import { SessionRows } from "./_rows.ts";
import { IndexWrites } from "./_writes.ts";
import {
  behindPaths,
  facetEnds,
  leaveFreshMark,
  readFreshMark,
  type WriteClock,
  writeClockOf,
} from "./_freshness.ts";

/** How an index is opened. */
export interface IndexStoreOptions {
  /** Make the index file when the data dir has none. Default true. */
  create?: boolean;
  /**
   * Where warnings go (a damaged index made anew; a locked, read-only,
   * linked or newer one passed by), each once. Default `console.warn`.
   */
  onWarning?: (message: string) => void;
  /** How long a write waits for another process's lock, in ms. Default 3000. */
  busyMs?: number;
  /**
   * The index file. Default `<dataDir>/index.sqlite`. The CLI keeps the
   * index of omp's and pi's data dirs under xdev's, so that nothing is
   * written into their folders unasked.
   */
  indexPath?: string;
}

/** Where the facets of a file read: its entries' start, an end, and the hash before it when known. */
export interface FeedRange {
  bodyStart: number;
  end: number;
  endHash?: string | undefined;
}

/** The open index of a data dir. */
export class IndexStore {
  /** The data dir (absolute). */
  readonly dataDir: string;
  /**
   * Where warnings go (a locked or damaged index, a failed search); each
   * message once.
   */
  readonly warn: (message: string) => void;
  readonly #options: IndexDbOptions;
  #db: IndexDb;
  #rows: SessionRows;
  #writes: IndexWrites;
  #closed = false;
  /** The file could not be made anew: every use fails, and is passed by. */
  #broken = false;

  private constructor(
    dataDir: string,
    db: IndexDb,
    options: IndexDbOptions,
  ) {
    this.dataDir = dataDir;
    const said = new Set<string>();
    this.warn = (message) => {
      if (said.has(message)) return;
      said.add(message);
      options.onWarning(message);
    };
    this.#options = { ...options, onWarning: this.warn };
    this.#db = db;
    this.#rows = new SessionRows(db);
    this.#writes = new IndexWrites(db, this.path, this.warn);
  }

  /**
   * The index of a data dir, or undefined (with a warning) where it cannot
   * be used, so that no index never stops an operation.
   */
  static async tryOpen(
    dataDir: string,
    options: IndexStoreOptions = {},
  ): Promise<IndexStore | undefined> {
    const warn = options.onWarning ?? ((m: string) => console.warn(m));
    const dbOptions: IndexDbOptions = {
      create: options.create !== false,
      onWarning: warn,
      ...(options.busyMs === undefined ? {} : { busyMs: options.busyMs }),
      ...(options.indexPath === undefined
        ? {}
        : { indexPath: resolve(options.indexPath) }),
    };
    const db = await openIndexDb(dataDir, dbOptions);
    if (db === undefined) return undefined;
    try {
      return new IndexStore(resolve(dataDir), db, dbOptions);
    } catch (err) {
      // The rows' statements are prepared from the schema: a damaged one.
      db.close();
      if (!isDamaged(err)) throw err;
      warn(
        `The session index ${
          quote(indexFile(dataDir, dbOptions))
        } is damaged (${_why(err)}); rebuilding it`,
      );
      const made = await remakeIndexDb(dataDir, dbOptions);
      return made === undefined
        ? undefined
        : new IndexStore(resolve(dataDir), made, dbOptions);
    }
  }

  /** The rows of the `sessions` table. */
  get rows(): SessionRows {
    return this.#rows;
  }

  /**
   * Take in a failure of work on the index, with one warning. Damage
   * (SQLite's `SQLITE_CORRUPT` or `SQLITE_NOTADB`: a page that does not
   * read) is looked into with `PRAGMA quick_check`, whose finding the
   * warning gives, and the file is made anew, empty, whatever the check
   * found (it does not look into the full-text index, whose damage is as
   * real); the next refresh fills it. Anything else (a read-only file,
   * another process's lock held past the wait) leaves the file as it is.
   *
   * @param err What the work threw.
   * @param fallback What the caller does instead, for the warning
   * (`"scanning the files"`).
   * @returns True when the file was made anew: the caller may do its work
   * again, once; false when it goes on without the index.
   */
  async recover(err: unknown, fallback: string): Promise<boolean> {
    if (this.#broken || this.#closed) return false; // said when it broke
    const why = _why(err);
    if (isReadOnly(err)) {
      this.warn(
        `Cannot write to the session index ${
          quote(this.path)
        }: it is read-only (${why}); ${fallback}`,
      );
      return false;
    }
    if (!isDamaged(err)) {
      this.warn(
        `Cannot use the session index ${quote(this.path)}: ${why}; ${fallback}`,
      );
      return false;
    }
    return await this.remake(`${why}; quick check: ${this.check()}`);
  }

  /**
   * Make the file anew, empty, with a warning: it is damaged.
   *
   * @param why What was found, for the warning.
   * @returns Whether it was made (else every use of the store fails, and
   * {@linkcode recover} passes it by).
   */
  async remake(why: string): Promise<boolean> {
    this.warn(
      `The session index ${
        quote(this.path)
      } is damaged (${why}); rebuilding it`,
    );
    this.#db.close();
    const db = await remakeIndexDb(this.dataDir, this.#options);
    if (db === undefined) {
      this.#broken = true;
      return false;
    }
    this.#db = db;
    this.#rows = new SessionRows(db);
    this.#writes = new IndexWrites(db, this.path, this.warn);
    return true;
  }

  /**
   * A write the caller can do without (what a list or an open keeps for
   * next time): {@linkcode write}, where a read-only index is a warning
   * and nothing is saved. A damaged one throws, for {@linkcode recover}.
   *
   * @param work The writes.
   * @returns Whether the work was saved.
   */
  keep(work: () => void): boolean {
    try {
      return this.write(work);
    } catch (err) {
      if (!isReadOnly(err)) throw err;
      this.warn(
        `Cannot write to the session index ${
          quote(this.path)
        }: it is read-only (${_why(err)}); using it as it is`,
      );
      return false;
    }
  }

  /**
   * What `PRAGMA quick_check` finds in the file, on one line: `"ok"`, or
   * its first finding.
   */
  check(): string {
    return quickCheck(this.#db).replace(/\s+/g, " ");
  }

  /**
   * The data dir whose index may hold `file`: the parent of the nearest
   * folder named `sessions` above it, when it has an index file.
   */
  static async dataDirOf(file: string): Promise<string | undefined> {
    for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
      if (basename(dir) !== "sessions") continue;
      const dataDir = dirname(dir);
      const info = await statOrUndefined(join(dataDir, INDEX_FILE))
        .catch(() => undefined);
      return info === undefined ? undefined : dataDir;
    }
    return undefined;
  }

  /** The index file. */
  get path(): string {
    return indexFile(this.dataDir, this.#options);
  }

  /** How deep `path` sits below its cwd folder (0: directly in it). */
  depthOf(path: string): number {
    const parts = relative(sessionsDir(this.dataDir), path).split(/[\\/]/);
    return parts[0] === ".." ? 0 : Math.max(0, parts.length - 2);
  }

  /**
   * Run `work` in one write transaction: synchronous, so no other work on
   * this connection interleaves and the lock is held only that long; a lock
   * another process holds past the busy wait is a warning, not an error.
   * Inside {@linkcode batched}, the work waits to be saved with the next
   * ones, and the answer is true until they are.
   *
   * @param work The writes.
   * @param bytes The bytes of lines the work holds (a batch's weight).
   * @returns Whether the work was saved.
   */
  write(work: () => void, bytes = 0): boolean {
    return this.#writes.write(work, bytes);
  }

  /**
   * Run `work` with its writes saved a few dozen at a time, each group in
   * one short transaction ({@linkcode IndexWrites.batched}).
   *
   * @param work The work whose writes are grouped.
   * @returns What `work` returns.
   */
  batched<T>(work: () => Promise<T>): Promise<T> {
    return this.#writes.batched(work);
  }

  /**
   * Where the index stands, to tell later whether anything was written
   * meanwhile that this connection did not write, or that it failed to.
   */
  writeClock(): WriteClock {
    return writeClockOf(this.#db, this.#writes);
  }

  /** The mark the last complete refresh left, if no write has taken it away since. */
  freshMark(): FreshMark | undefined {
    return readFreshMark(this.#db);
  }

  /**
   * Leave the mark of a complete refresh, unless, since `clock`, another
   * connection committed (its writes may have made a row older than the
   * files the mark describes) or a write of this one was not saved.
   *
   * @returns Whether the mark was left.
   */
  leaveFreshMark(mark: FreshMark, clock: WriteClock): boolean {
    return leaveFreshMark(this.#db, this.#writes, mark, clock);
  }

  /**
   * Run `work`'s reads in one read transaction, so that they see one state
   * of the index whatever other processes commit meanwhile.
   */
  snapshot<T>(work: () => T): T {
    this.#db.exec("BEGIN");
    try {
      return work();
    } finally {
      // A damaged page may have ended the transaction already.
      if (this.#db.isTransaction) this.#db.exec("COMMIT");
    }
  }

  /** Run `work` over the database, to read a facet's tables; it must not write. */
  read<T>(work: (db: IndexDb) => T): T {
    return work(this.#db);
  }

  /**
   * Feed every facet (or those of `facets`) the lines of `file` in `range`
   * (each from where it stopped), `alongside` in the first transaction.
   *
   * @returns Whether the first transaction was saved.
   */
  feed(
    file: FacetFile,
    info: FileInfo,
    range: FeedRange,
    alongside?: () => void,
    facets: readonly IndexFacet[] = FACETS,
  ): Promise<boolean> {
    return feedFacets(
      this.#db,
      (work, bytes) => this.write(work, bytes),
      facets,
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
  behind(path?: string): Set<string> {
    return behindPaths(this.#db, path);
  }

  /** Where each facet stopped reading `path`, and the hash of the bytes before. */
  facetEnds(path: string): { offset: number; tailHash: string }[] {
    return facetEnds(this.#db, path);
  }

  /** A file is gone (or no longer a session): its row and what the facets hold of it. */
  forget(path: string): void {
    this.rows.remove(path);
    forgetFile(this.#db, FACETS, path);
  }

  /** Forget every row and what every facet read (a facet keeps its figures of deleted files). */
  forgetAll(): void {
    this.write(() => {
      for (const facet of FACETS) facet.forgetAll(this.#db);
      this.#db.exec("DELETE FROM facets");
      this.#db.exec("DELETE FROM sessions");
      this.#db.exec("DELETE FROM unsettled");
    });
  }

  /** Close the database. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#broken) this.#db.close();
  }
}

function _why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
