/**
 * `SessionIndex`: a data dir's sessions in one SQLite file
 * (`<dataDir>/index.sqlite`), so a list of thousands of sessions costs a
 * stat of each file, a search asks the full-text index, a usage report
 * reads only what changed, and a checkpoint-less file reopens reading only
 * what was appended since it was indexed. The session files stay the only
 * source of truth: a row is used only while the file it was made from is
 * unchanged where the row looked, and the index can be deleted at any time.
 *
 * The index is built over the rest of the library, never the reverse:
 * `Session`, `listSessions`, `searchSessions` and `usageReport` read the
 * files and know no SQLite; the index's methods of the same names go
 * through it. It is a cache, so none of them fails because of it: where
 * the index fails they answer from the files, with one warning (to the
 * `onWarning` of {@linkcode SessionIndex.open}); a damaged file is made
 * anew, and filled again by the next refresh.
 *
 * @module
 */

import { resolve, sep } from "node:path";
import {
  runSearch,
  type SearchOptions,
  type SearchResult,
} from "../search/search.ts";
import { openSessionResumed, type Session } from "../session/session.ts";
import type { SessionOpenOptions } from "../session/options.ts";
import { listSessions, type ListSessionsOptions } from "../store/list.ts";
import { sessionsDir } from "../store/places.ts";
import type { SessionInfo } from "../store/session_info.ts";
import {
  runUsageReport,
  type UsageReport,
  type UsageReportOptions,
} from "../usage/usage_report.ts";
import { isDamaged, isReadOnly } from "./_sqlite_errors.ts";
import { searchIndex } from "./_indexed_search.ts";
import { sqlite } from "./_sqlite.ts";
import { oversizedLines } from "./_oversized_facet.ts";
import { listFromIndex } from "./_index_list.ts";
import { IndexStore, type IndexStoreOptions } from "./_index_store.ts";
import {
  refreshAll,
  refreshOne,
  type RefreshOptions,
  type RefreshResult,
} from "./_refresh.ts";
import { remember, resumeFor } from "./_reopen.ts";
import { tallyIndex } from "./_usage_query.ts";

export type { RefreshOptions, RefreshResult } from "./_refresh.ts";

/** Options for {@linkcode SessionIndex.open}. */
export type SessionIndexOptions = IndexStoreOptions;

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
 *   equal((await listSessions(dataDir)).length, 1); // from the files alone
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 */
export class SessionIndex implements Disposable {
  readonly #store: IndexStore;

  private constructor(store: IndexStore) {
    this.#store = store;
  }

  /**
   * Open (and, unless told otherwise, create) the index of a data dir.
   *
   * @param dataDir The data dir.
   * @param options Whether to create it; where warnings go.
   * @returns The index.
   * @throws {Error} When it cannot be used (a newer schema, a lock held
   * past the wait, no file and `create: false`); the warning says why.
   * A `NoSqliteError` (its `name`), with no warning, where the runtime
   * has no SQLite (`node:sqlite` on Deno and Node ≥ 22.13, `bun:sqlite`).
   */
  static async open(
    dataDir: string,
    options: SessionIndexOptions = {},
  ): Promise<SessionIndex> {
    await sqlite(); // the runtime's SQLite, or its NoSqliteError
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
   * be used: what the list and the open do, so that no index never stops
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
    const store = await IndexStore.tryOpen(dataDir, options);
    return store === undefined ? undefined : new SessionIndex(store);
  }

  /**
   * The data dir whose index may hold `file`: the parent of the nearest
   * folder named `sessions` above it (the layout
   * `<dataDir>/sessions/<cwd>/<file>`), when it has an index file.
   *
   * @param file A session file (absolute).
   * @returns The data dir, or undefined.
   */
  static dataDirOf(file: string): Promise<string | undefined> {
    return IndexStore.dataDirOf(file);
  }

  /** The index file. */
  get path(): string {
    return this.#store.path;
  }

  /**
   * Bring the index up to date with the files: read what is new or
   * appended since, forget what is gone. Short transactions per file, so
   * another process may refresh at the same time and a crash keeps what
   * was committed. A damaged file is made anew (with a warning) and read
   * from the files; a rebuild makes it anew too when a quick check finds
   * it damaged.
   *
   * @param options Progress; rebuild from scratch.
   * @returns What it did.
   * @throws {Error} When the index cannot be written (a read-only file, a
   * damaged one that cannot be made anew).
   */
  async refresh(options: RefreshOptions = {}): Promise<RefreshResult> {
    const store = this.#store;
    try {
      const check = options.rebuild === true ? store.check() : "ok";
      if (check !== "ok" && !await store.remake(`quick check: ${check}`)) {
        throw new Error(`Cannot rebuild the session index "${store.path}"`);
      }
      return await refreshAll(store, options);
    } catch (err) {
      if (isReadOnly(err)) {
        throw new Error(
          `the session index "${store.path}" is read-only (${_why(err)})`,
          { cause: err },
        );
      }
      if (!isDamaged(err) || !await store.recover(err, "")) throw err;
      return await refreshAll(store, options);
    }
  }

  /**
   * Bring one file's row up to date (reading only what was appended since
   * it was indexed): what a session does when it is closed after appends.
   *
   * @param path The file, in this index's data dir.
   * @returns Whether the row was read anew (false, with a warning, where
   * the index cannot be written).
   */
  refreshFile(path: string): Promise<boolean> {
    return this.#orFiles(
      () => refreshOne(this.#store, path),
      "its row is left as it was",
      () => Promise.resolve(false),
    );
  }

  /**
   * The sessions, newest first, as `listSessions` gives them: each file is
   * stat'ed, and only a file that changed since its row is read (its first
   * 4 KiB).
   *
   * @param options One cwd; subagents; skipped files.
   * @returns The sessions.
   */
  list(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
    const store = this.#store;
    return this.#orFiles(
      () => listFromIndex(store, options),
      "listing the files",
      () => listSessions(store.dataDir, options),
    );
  }

  /**
   * Open a session file as `Session.open` does, resuming from what the
   * index recorded of it: a file without settings checkpoints is read only
   * from where its row ends (when the file still holds the bytes the row
   * was made from), and what the read learned is kept for the next open.
   *
   * @example Reopen through the index
   * ```ts
   * import { Session, SessionIndex } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   const s = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await s.appendMessage({ role: "user", content: "Hi" });
   *   await s.ensureOnDisk();
   *   await s.close();
   *   using index = await SessionIndex.open(dataDir);
   *   await index.refresh();
   *   await using again = await index.openSession(s.path!);
   *   equal(again.buildContext().messages.length, 1);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * A file outside this index's data dir opens as `Session.open` opens
   * it, and is not recorded. Where the index fails, the file opens as
   * `Session.open` opens it, with a warning.
   *
   * @param path The session file.
   * @param options As for `Session.open`; `dataDir` defaults to the index's
   * for a file in it.
   * @returns The session.
   * @throws {SessionSyntaxError} When the file has no valid header.
   */
  async openSession(
    path: string,
    options: SessionOpenOptions = {},
  ): Promise<Session> {
    const store = this.#store;
    const absolute = resolve(path);
    if (!absolute.startsWith(sessionsDir(store.dataDir) + sep)) {
      return (await openSessionResumed(absolute, options, undefined)).session;
    }
    const without = "opening the file without it";
    const resume = await this.#orFiles(
      () => resumeFor(store, absolute),
      without,
      () => Promise.resolve(undefined),
    );
    const { session, loaded } = await openSessionResumed(absolute, {
      dataDir: store.dataDir,
      ...options,
    }, resume);
    if (loaded.record !== undefined) {
      await this.#orFiles(
        () => remember(store, absolute, loaded),
        without,
        () => Promise.resolve(),
      );
    }
    return session;
  }

  /**
   * {@linkcode searchSessions} through the index's full-text index: the
   * index is brought up to date (unless `refresh: false`), its rows that may
   * match are read back from their files, and only the files it does not
   * hold whole are scanned. A regular expression scans every file. Where
   * the index fails, it warns and scans.
   *
   * @param query The words, or a regular expression.
   * @param options Those of `searchSessions`, and `refresh` (default true):
   * bring the index up to date first, so no line is missed.
   * @returns The hits, newest first, as `searchSessions` gives them.
   */
  search(
    query: string,
    options: SearchOptions & { refresh?: boolean } = {},
  ): Promise<SearchResult> {
    const { refresh, onProgress } = options;
    return runSearch(
      this.#store.dataDir,
      query,
      options,
      (q, plan) =>
        searchIndex(this.#store, q, { ...plan, refresh, onProgress }),
    );
  }

  /**
   * {@linkcode usageReport} from the index: brought up to date first (only
   * what changed is read), then counted in SQL. The calls of files deleted
   * since they were counted are kept, unless `excludeDeleted`. Where the
   * index fails, it warns and reads the files.
   *
   * @param options Grouping, days, time zone, progress.
   * @returns The totals and the rows, with `source: "index"`.
   */
  usageReport(options: UsageReportOptions = {}): Promise<UsageReport> {
    const store = this.#store;
    return runUsageReport(store.dataDir, options, async (tally, range) => {
      try {
        const before = store.writeClock().unsaved;
        await refreshAll(store, {
          onProgress: (done, total) =>
            options.onProgress?.(done, total, "files"),
        });
        // A write lost to another process's lock (warned of): the rows
        // would count less than the files hold.
        if (store.writeClock().unsaved !== before) return false;
        const excluded = options.excludeDeleted === true;
        store.read((db) => {
          tallyIndex(db, range, excluded, tally);
          for (const line of oversizedLines(db)) tally.oversized(line);
        });
        return true;
      } catch (err) {
        await store.recover(err, "reading the files");
        return false;
      }
    });
  }

  /**
   * `work` over the index; where it fails, `fallback` after the store's
   * one warning, or, where the file was damaged and is made anew, `work`
   * again, once (over the empty index: what a new index gives).
   */
  async #orFiles<T>(
    work: () => Promise<T>,
    instead: string,
    fallback: () => Promise<T>,
  ): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!await this.#store.recover(err, instead)) return await fallback();
    }
    try {
      return await work();
    } catch (err) {
      await this.#store.recover(err, instead);
      return await fallback();
    }
  }

  /** Close the database. */
  close(): void {
    this.#store.close();
  }

  /** Close the database (for `using`). */
  [Symbol.dispose](): void {
    this.close();
  }
}

function _why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
