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
 *    every 2 ms; the file is never removed. omp takes the same `flock` on
 *    macOS and the BSDs, but on Linux and Windows it binds a kernel name
 *    instead (on Linux an abstract `AF_UNIX` datagram socket
 *    `@omp-file-lock-<hash>`), which stable Deno cannot bind. There the gate
 *    orders only this library's writers, and the lock file below orders them
 *    against omp: omp keeps that layer for peers that do not share its gate.
 * 2. a lock file `.<basename>.lock`, made with an exclusive create (mode
 *    0600), holding `<pid>:<epochMs>\n`, read back to check the claim held,
 *    and removed when the work is done. A lock file whose pid is dead, or
 *    whose content is not a record and that is older than 500 ms, is stale:
 *    it is read again, then removed and claimed.
 *
 * Writers in this process queue for the lock in order, before both layers.
 * The whole wait, queue and both layers together, gives up after
 * `lockTimeoutMs` (omp: 500 ms per layer). The
 * lock is taken by every append, slot rewrite, create and
 * `rewriteWithSlot`. (omp's own in-place slot rewrite takes no
 * lock.)
 *
 * @module
 */

import { basename, dirname, join, normalize } from "node:path";
import { type FsSyncFile, IS_WINDOWS, seam } from "../fs/_seam.ts";
import { FILE_MODE } from "./_folders.ts";
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
  verb: string,
  timeoutMs: number,
): Lock {
  return {
    session,
    file: join(dirname(session), `.${basename(session)}.lock`),
    verb,
    timeoutMs,
    deadline: 0,
  };
}

/** Runs `task` holding the lock: this process's queue, the OS gate, then the lock file. */
export async function withLock<T>(
  lock: Lock,
  task: () => Promise<T>,
): Promise<T> {
  lock.deadline = Date.now() + lock.timeoutMs;
  const key = normalize(lock.file);
  const ahead = _queues.get(key);
  const mine = Promise.withResolvers<void>();
  const tail = (ahead ?? Promise.resolve()).then(() => mine.promise);
  _queues.set(key, tail);
  tail.then(() => {
    if (_queues.get(key) === tail) _queues.delete(key);
  });
  try {
    if (ahead !== undefined && !await _settlesBefore(ahead, lock.deadline)) {
      throw timedOut(lock, "another writer in this process holds it");
    }
    return await _withGate(lock, () => withLockFile(lock, task));
  } finally {
    mine.resolve();
  }
}

async function _withGate<T>(lock: Lock, task: () => Promise<T>): Promise<T> {
  using gate = _openGate(`${lock.file}.os`);
  while (!gate.tryLockSync(true)) {
    if (Date.now() >= lock.deadline) {
      throw timedOut(
        lock,
        `another process holds "${basename(lock.file)}.os"`,
      );
    }
    await sleep(LOCK_POLL_MS);
  }
  try {
    return await task();
  } finally {
    gate.unlockSync();
  }
}

/** Opens the gate file, creating it 0600 whatever the umask. */
function _openGate(path: string): FsSyncFile {
  const fs = seam();
  try {
    const created = fs.openSync(path, {
      read: true,
      write: true,
      createNew: true,
      mode: FILE_MODE,
    });
    if (!IS_WINDOWS) fs.chmodSync(path, FILE_MODE);
    return created;
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  }
  return fs.openSync(path, { read: true, write: true });
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
