/**
 * The cross-process lock of a session file: this process's writers queued in
 * order, then a native OS gate (`flock` on `.<name>.lock.os`), then omp's
 * lock-file protocol (`_lock_file.ts`). Every write of a session file takes
 * it.
 *
 * The lock is omp's (`session-storage.ts`, `FileSessionStorage`), in two
 * layers, both beside the session file:
 *
 * 1. an OS gate held by the process, which the kernel drops when it dies:
 *    here a non-blocking exclusive `flock` on `.<basename>.lock.os`, polled
 *    every 2 ms. omp takes the same `flock` on macOS and the BSDs, but on
 *    Linux and Windows it binds a kernel name instead (on Linux an abstract
 *    `AF_UNIX` datagram socket `@omp-file-lock-<hash>`), which stable Deno
 *    cannot bind. There the gate orders only this library's writers, and
 *    the lock file below orders them against omp: omp keeps that layer for
 *    peers that do not share its gate.
 *
 *    The gate file is never removed (omp keeps it too): a `flock` names an
 *    inode, not a path, so removing the file on release lets a waiter that
 *    already opened the old inode take it while a third process locks a new
 *    file at the same path, two holders at once. A writer keeps its gate
 *    open between its writes ({@linkcode Gate}); after each `flock` it checks
 *    that the path still names the inode it locked (someone may have removed
 *    the file), and opens it again when not.
 * 2. a lock file `.<basename>.lock`, made with an exclusive create (mode
 *    0600), holding `<pid>:<epochMs>\n`, checked to be still ours, and
 *    removed when the work is done (see `_lock_file.ts` for when a lock file
 *    is stale and taken over).
 *
 * Writers in this process queue for the lock in order, before both layers.
 * The whole wait, queue and both layers together, gives up after
 * `lockTimeoutMs` (omp: 500 ms per layer). The lock is taken by every
 * append, rename and create. (omp's own in-place slot rewrite takes no
 * lock.)
 *
 * @module
 */

import { basename, dirname, resolve } from "node:path";
import { named, quote } from "../fs/_errors.ts";
import { notAFile } from "../fs/_read.ts";
import { type FsSyncFile, IS_WINDOWS, seam } from "../fs/_seam.ts";
import { FILE_MODE, sameFile } from "./_folders.ts";
import {
  type Lock,
  LOCK_POLL_MS,
  sleep,
  timedOut,
  withLockFile,
} from "./_lock_file.ts";

export { LOCK_WAIT_MS } from "./_lock_file.ts";
export type { Lock } from "./_lock_file.ts";

/** This process's queue per lock file: the promise of its last holder. */
const _queues = new Map<string, Promise<void>>();

/** The lock of `session` for one call that would `verb` it, waiting at most `timeoutMs`. */
export function lockFor(
  session: string,
  verb = "write",
  timeoutMs = 0,
): Lock {
  return {
    session,
    file: resolve(dirname(session), `.${basename(session)}.lock`),
    verb,
    timeoutMs,
    deadline: 0,
  };
}

/**
 * Runs `task` holding the lock: this process's queue, the OS gate, then the
 * lock file. `gate` is a writer's kept-open gate; without one, a gate is
 * opened for this call and closed after it.
 */
export async function withLock<T>(
  lock: Lock,
  task: () => Promise<T>,
  gate?: Gate,
): Promise<T> {
  lock.deadline = Date.now() + lock.timeoutMs;
  const key = lock.file;
  const ahead = _queues.get(key);
  const mine = Promise.withResolvers<void>();
  const tail = ahead === undefined
    ? mine.promise
    : ahead.then(() => mine.promise);
  _queues.set(key, tail);
  try {
    if (ahead !== undefined && !await _settlesBefore(ahead, lock.deadline)) {
      throw timedOut(
        lock,
        "another call in this process holds the lock of this session",
      );
    }
    if (gate !== undefined) return await _withGate(gate, lock, task);
    using own = new Gate(lock.file);
    return await _withGate(own, lock, task);
  } finally {
    mine.resolve();
    if (_queues.get(key) === tail) _queues.delete(key);
  }
}

async function _withGate<T>(
  gate: Gate,
  lock: Lock,
  task: () => Promise<T>,
): Promise<T> {
  await gate.take(lock);
  try {
    return await withLockFile(lock, task);
  } finally {
    gate.release();
  }
}

/**
 * The OS gate of one session file (`flock` on `.<name>.lock.os`), kept open
 * between the writes of one writer: one `flock`, one `lstat` and one
 * `funlock` per write instead of an open and a close.
 */
export class Gate implements Disposable {
  readonly #path: string;
  #file: FsSyncFile | undefined;
  #info: Deno.FileInfo | undefined;

  /** @param lockFile The lock file `.<name>.lock`; the gate is beside it. */
  constructor(lockFile: string) {
    this.#path = `${lockFile}.os`;
  }

  /** Take the `flock`, polling until `lock.deadline`. */
  async take(lock: Lock): Promise<void> {
    for (;;) {
      const file = this.#open(lock);
      if (file.tryLockSync(true)) {
        if (this.#stillNamed()) return;
        this.close(); // removed or replaced while we waited: lock the new one
        continue;
      }
      if (Date.now() >= lock.deadline) {
        throw timedOut(
          lock,
          `another process holds the OS lock on ${
            quote(this.#path)
          } (a flock, released when that process exits)`,
        );
      }
      await sleep(LOCK_POLL_MS);
    }
  }

  /** Release the `flock` (the file stays open for the next write). */
  release(): void {
    this.#file?.unlockSync();
  }

  /** Close the gate file. */
  close(): void {
    const file = this.#file;
    this.#file = undefined;
    this.#info = undefined;
    file?.close();
  }

  /** Same as {@linkcode Gate.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** Whether the path still names the file that is locked. */
  #stillNamed(): boolean {
    try {
      return sameFile(seam().lstatSync(this.#path), this.#info!);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
  }

  /**
   * The gate file, open (made 0600 whatever the umask when missing). Its
   * type is checked first: opening a FIFO could block, and a folder, a
   * symbolic link or a device is never a gate.
   */
  #open(lock: Lock): FsSyncFile {
    if (this.#file !== undefined) return this.#file;
    const fs = seam();
    const path = this.#path;
    const action = `Cannot ${lock.verb} ${quote(lock.session)}`;
    for (;;) {
      let info: Deno.FileInfo | undefined;
      try {
        info = fs.lstatSync(path);
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) {
          throw named(err, `${action}: cannot open ${quote(path)}`);
        }
      }
      const what = info === undefined
        ? undefined
        : info.isSymlink
        ? "a symbolic link"
        : notAFile(info);
      if (what !== undefined) {
        throw new Error(
          `${action}: the lock gate ${
            quote(path)
          } is ${what}, which cannot be locked: remove it if no process is writing this session`,
        );
      }
      let file: FsSyncFile;
      try {
        file = fs.openSync(path, {
          read: true,
          write: true,
          ...(info === undefined ? { createNew: true, mode: FILE_MODE } : {}),
        });
      } catch (err) {
        if (
          err instanceof Deno.errors.AlreadyExists ||
          err instanceof Deno.errors.NotFound
        ) continue; // created or removed since the lstat: look again
        throw named(err, `${action}: cannot open ${quote(path)}`);
      }
      try {
        if (info === undefined && !IS_WINDOWS) fs.chmodSync(path, FILE_MODE);
        this.#info = file.statSync();
      } catch (err) {
        file.close();
        throw named(err, `${action}: cannot open ${quote(path)}`);
      }
      const swapped = notAFile(this.#info);
      if (swapped !== undefined) {
        file.close();
        throw new Error(
          `${action}: the lock gate ${
            quote(path)
          } is ${swapped}, which cannot be locked: remove it if no process is writing this session`,
        );
      }
      this.#file = file;
      return file;
    }
  }
}

/** Whether `promise` settles before `deadline` (epoch ms). */
async function _settlesBefore(
  promise: Promise<void>,
  deadline: number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(
      () => resolve(false),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
