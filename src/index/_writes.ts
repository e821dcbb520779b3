/**
 * The one way to write to the index: a short synchronous transaction, alone
 * or grouped with the next few (see {@linkcode IndexWrites.batched}). The
 * work is synchronous, so no other work on the connection interleaves and
 * the lock is held only that long; a lock another process holds past the
 * busy wait is a warning, and the write is counted as not saved. Any other
 * failure (a read-only or damaged file) is thrown, the transaction rolled
 * back, for the index's caller to go on without it.
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import { isLocked } from "./_sqlite_errors.ts";
import { prepared } from "./_prepared.ts";
import { FRESH_MARK_KEY } from "./_schema.ts";

/** Writes saved together (see {@linkcode IndexWrites.batched}). */
interface _Queue {
  works: (() => void)[];
  bytes: number;
  since: number;
}

/** A group of writes is saved at this many writes, bytes of lines, or milliseconds since its first. */
const _QUEUE_WORKS = 64;
const _QUEUE_BYTES = 4 << 20;
const _QUEUE_MS = 100;

/** The write transactions of one connection to an index. */
export class IndexWrites {
  readonly #db: IndexDb;
  /** The index file, for the warning of a locked index. */
  readonly #path: string;
  readonly #warn: (message: string) => void;
  /** Writes waiting to be saved together, inside {@linkcode batched}. */
  #queue: _Queue | undefined;
  /** Transactions not saved because another process held the lock. */
  #unsaved = 0;

  constructor(
    db: IndexDb,
    path: string,
    warn: (message: string) => void,
  ) {
    this.#db = db;
    this.#path = path;
    this.#warn = warn;
  }

  /** Transactions not saved so far because another process held the lock. */
  get unsaved(): number {
    return this.#unsaved;
  }

  /**
   * Run `work` in one write transaction. Inside {@linkcode batched}, the
   * work waits to be saved with the next ones, and the answer is true until
   * they are.
   *
   * @param work The writes.
   * @param bytes The bytes of lines the work holds (a batch's weight).
   * @returns Whether the work was saved.
   */
  write(work: () => void, bytes = 0): boolean {
    const queue = this.#queue;
    if (queue === undefined) return this.transaction(work);
    if (queue.works.length === 0) queue.since = performance.now();
    queue.works.push(work);
    queue.bytes += bytes;
    if (
      queue.works.length >= _QUEUE_WORKS || queue.bytes >= _QUEUE_BYTES ||
      performance.now() - queue.since >= _QUEUE_MS
    ) {
      return this.#flush();
    }
    return true;
  }

  /**
   * Run `work` with its writes saved a few dozen at a time, each group in
   * one short synchronous transaction: a refresh of many small files
   * commits once per group instead of once per file (each commit of the
   * full-text index writes a segment of its own, and merges them). The
   * writes left are saved when `work` ends, even by a throw; a process
   * killed midway loses only the group not yet saved (at most ~100 ms of
   * work), which the next refresh reads again.
   *
   * @param work The work whose writes are grouped.
   * @returns What `work` returns.
   */
  async batched<T>(work: () => Promise<T>): Promise<T> {
    if (this.#queue !== undefined) return await work();
    this.#queue = { works: [], bytes: 0, since: 0 };
    try {
      return await work();
    } finally {
      try {
        this.#flush();
      } finally {
        this.#queue = undefined;
      }
    }
  }

  #flush(): boolean {
    const queue = this.#queue!;
    const works = queue.works;
    if (works.length === 0) return true;
    queue.works = [];
    queue.bytes = 0;
    return this.transaction(() => {
      for (const work of works) work();
    });
  }

  /**
   * Run `work` in a write transaction now, outside any group.
   *
   * @param work The writes.
   * @returns Whether they were saved (false: another process held the lock).
   */
  transaction(work: () => void): boolean {
    try {
      this.#db.exec("BEGIN IMMEDIATE");
    } catch (err) {
      if (!isLocked(err)) throw err;
      this.#unsaved++;
      this.#warn(
        `The session index "${this.#path}" is locked by another process; this change was not saved`,
      );
      return false;
    }
    try {
      // Whatever it writes, the rows may no longer be what the mark of the
      // last complete refresh says (the mark's own transaction writes it anew).
      prepared(this.#db, "DELETE FROM meta WHERE key = ?").run(FRESH_MARK_KEY);
      work();
      this.#db.exec("COMMIT");
      return true;
    } catch (err) {
      // SQLite may have rolled back already (on a damaged page, say): a
      // ROLLBACK then fails, and would hide why.
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw err;
    }
  }
}
