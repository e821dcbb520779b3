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

import type { ListSessionsOptions } from "../list.ts";
import type { SessionInfo } from "../session_info.ts";
import { listFromIndex } from "./_index_list.ts";
import { IndexStore, type IndexStoreOptions } from "./_index_store.ts";
import {
  refreshAll,
  refreshOne,
  type RefreshOptions,
  type RefreshResult,
} from "./_refresh.ts";

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
   * was committed.
   *
   * @param options Progress; rebuild from scratch.
   * @returns What it did.
   */
  refresh(options: RefreshOptions = {}): Promise<RefreshResult> {
    return refreshAll(this.#store, options);
  }

  /**
   * Bring one file's row up to date (reading only what was appended since
   * it was indexed): what a session does when it is closed after appends.
   *
   * @param path The file, in this index's data dir.
   * @returns Whether the row was read anew.
   */
  refreshFile(path: string): Promise<boolean> {
    return refreshOne(this.#store, path);
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
    return listFromIndex(this.#store, options);
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
