/**
 * The cross-process lock of a session file, omp's (`session-storage.ts`,
 * `FileSessionStorage`): this process's writers queued in order, then two
 * layers beside the session file. Every append, rename and create takes it
 * (omp's own in-place slot rewrite takes none).
 *
 * 1. An OS gate held by the process, which the kernel drops when it dies: a
 *    non-blocking exclusive `flock` on `.<name>.lock.os`, polled every 2 ms.
 *    omp takes the same `flock` on macOS and the BSDs; on Linux and Windows
 *    it binds a kernel name instead (on Linux an abstract `AF_UNIX` socket
 *    `@omp-file-lock-<hash>`), which stable Deno cannot bind. There the gate
 *    orders only this library's writers, and the lock file orders them
 *    against omp: omp keeps that layer for peers that do not share its gate.
 *
 *    The gate file is never removed (omp keeps it too): a `flock` names an
 *    inode, not a path, so removing it on release lets a waiter that opened
 *    the old inode take it while a third process locks a new file at the
 *    same path, two holders at once. A writer keeps its gate open between
 *    its writes ({@linkcode Gate}); after each `flock` it checks that the
 *    path still names the inode it locked, and opens it again when not.
 * 2. A lock file `.<name>.lock`, made with an exclusive create (mode 0600),
 *    holding `<pid>:<epochMs>\n`, checked to be still ours, and removed when
 *    the work is done. One whose process is gone (or, without a record,
 *    older than omp's wait) is stale and taken over. The claim is checked by
 *    comparing the inode the path names with the inode of the descriptor
 *    the record was written through, while it is open (so the inode cannot
 *    be reused): omp's read-back, two calls cheaper.
 *
 * Two departures from omp, both where omp would wait forever: the type of
 * each lock path is checked (`lstat`) before it is opened or read (a FIFO,
 * a folder, a symbolic link or a device there can never be released, and
 * opening a FIFO blocks), a clear error at once; and a record naming this
 * process's pid that this process does not hold (left by an earlier
 * process with the same pid: an agent restarted as pid 1 in a container)
 * is stale, where omp counts it as alive.
 *
 * The whole wait, queue and both layers together, gives up after
 * `lockTimeoutMs` (omp: 500 ms per layer).
 *
 * @module
 */

import { basename, dirname, resolve } from "node:path";
import {
  errorCode,
  type FileHandle,
  type FileInfo,
  fs,
  isNotFound,
  notAFile,
} from "../_fs.ts";
import { named, quote } from "../format/errors.ts";
import {
  FILE_MODE,
  lstatOrUndefined,
  removeAfter,
  sameFile,
  writeAll,
} from "./_files.ts";

/** omp's `SESSION_PUBLISH_LOCK_WAIT_MS`: its wait, and the age past which a lock file without a record is a crash orphan. */
export const LOCK_WAIT_MS = 500;
/** omp's `SESSION_PUBLISH_LOCK_POLL_MS`. */
const _POLL_MS = 2;
/** omp's lock record, `<pid>:<epochMs>` with optional trailing whitespace. */
const _RECORD = /^(\d+):(\d+)\s*$/;

/** One acquisition of the lock of one session file. */
export interface Lock {
  /** The session file. */
  session: string;
  /** `.<basename>.lock` beside it (absolute when the session path is). */
  file: string;
  /** For messages: "append to", "rename", …. */
  verb: string;
  /** How long to wait, in ms, and until when (epoch ms, set by {@linkcode withLock}). */
  timeoutMs: number;
  deadline: number;
}

/**
 * The lock of `session` for one call that would `verb` it.
 *
 * @param session The session file.
 * @param verb For messages: `append to`, `rename`, `create`.
 * @param timeoutMs How long to wait for it, in ms.
 * @returns The lock, not yet taken.
 */
export function lockFor(session: string, verb: string, timeoutMs = 0): Lock {
  return { session, file: _lockFile(session), verb, timeoutMs, deadline: 0 };
}

function _lockFile(session: string): string {
  return resolve(dirname(session), `.${basename(session)}.lock`);
}

/** This process's queue per lock file: the promise of its last holder. */
const _queues = new Map<string, Promise<void>>();

/**
 * Run `task` holding the lock: this process's queue, the OS gate, then the
 * lock file.
 *
 * @param lock The lock to take.
 * @param task The work to do under it.
 * @param gate The writer's kept-open OS gate of this session file.
 * @returns What `task` returns.
 * @throws {Error} `ETIMEDOUT` when the lock is not had within its wait,
 * saying who holds it; an `Error` at once when a lock path can never be
 * released (a FIFO, a folder, a link, a device).
 */
export async function withLock<T>(
  lock: Lock,
  task: () => Promise<T>,
  gate: Gate,
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
      const why = "another call in this process holds the lock of this session";
      throw _timedOut(lock, why);
    }
    await gate.take(lock);
    try {
      return await _withLockFile(lock, task);
    } finally {
      await gate.release();
    }
  } finally {
    mine.resolve();
    if (_queues.get(key) === tail) _queues.delete(key);
  }
}

/**
 * The OS gate of one session file (`flock` on `.<name>.lock.os`), kept open
 * between the writes of one writer: one `flock`, one `lstat` and one
 * unlock per write instead of an open and a close.
 */
export class Gate implements AsyncDisposable {
  readonly #path: string;
  #file: FileHandle | undefined;
  #info: FileInfo | undefined;

  /** @param session The session file; the gate is beside its lock file. */
  constructor(session: string) {
    this.#path = `${_lockFile(session)}.os`;
  }

  /** Take the `flock`, polling until `lock.deadline`. */
  async take(lock: Lock): Promise<void> {
    for (;;) {
      const file = this.#file ?? await this.#open(lock);
      if (await file.tryLock()) {
        const now = await lstatOrUndefined(this.#path);
        if (now !== undefined && sameFile(now, this.#info!)) return;
        await this.close(); // removed or replaced while we waited: lock the new one
        continue;
      }
      if (Date.now() >= lock.deadline) {
        const why = `another process holds the OS lock on ${
          quote(this.#path)
        } (a flock, released when that process exits)`;
        throw _timedOut(lock, why);
      }
      await _sleep(_POLL_MS);
    }
  }

  /** Release the `flock` (the file stays open for the next write). */
  async release(): Promise<void> {
    await this.#file?.unlock();
  }

  /** Close the gate file. */
  async close(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    this.#info = undefined;
    await file?.close();
  }

  /** Same as {@linkcode Gate.close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Open the gate file (made 0600 whatever the umask when missing), its
   * type checked before and after: only a regular file is a gate.
   */
  async #open(lock: Lock): Promise<FileHandle> {
    const path = this.#path;
    const action = `Cannot ${lock.verb} ${quote(lock.session)}`;
    const cannot = (err: unknown) =>
      named(err, `${action}: cannot open ${quote(path)}`);
    for (;;) {
      const info = await lstatOrUndefined(path).catch((err) => {
        throw cannot(err);
      });
      if (info !== undefined) _refuse(action, "gate", path, info);
      let file: FileHandle;
      try {
        file = await fs().open(path, {
          read: true,
          write: true,
          ...(info === undefined ? { createNew: true, mode: FILE_MODE } : {}),
        });
      } catch (err) {
        const code = errorCode(err);
        if (code === "EEXIST" || code === "ENOENT") continue; // changed since the lstat
        throw cannot(err);
      }
      try {
        if (info === undefined && !fs().windows) {
          await fs().chmod(path, FILE_MODE);
        }
        this.#info = await file.stat();
        _refuse(action, "gate", path, this.#info);
      } catch (err) {
        await file.close();
        throw cannot(err);
      }
      this.#file = file;
      return file;
    }
  }
}

/** Throw, naming the layer, when a lock path holds anything but a regular file. */
function _refuse(
  action: string,
  layer: "gate" | "file",
  path: string,
  info: FileInfo,
): void {
  const what = notAFile(info);
  if (what === undefined) return;
  const never = layer === "gate"
    ? "which cannot be locked"
    : "which no writer can ever release";
  throw new Error(
    `${action}: the lock ${layer} ${
      quote(path)
    } is ${what}, ${never}: remove it if no process is writing this session`,
  );
}

/**
 * The records this process holds now (a count per record: two locks taken
 * in the same millisecond have equal records). A lock file naming this
 * process's pid with a record not in here is a leftover: of this process
 * (a removal that failed) or of an earlier process with the same pid.
 */
const _held = new Map<string, number>();

/** Run `task` holding the lock file of `lock`. */
async function _withLockFile<T>(
  lock: Lock,
  task: () => Promise<T>,
): Promise<T> {
  let record: string | undefined;
  for (;;) {
    record = await _tryCreate(lock);
    if (record === undefined && await _stealStale(lock)) {
      record = await _tryCreate(lock);
    }
    if (record !== undefined) break;
    if (Date.now() >= lock.deadline) throw _timedOut(lock, await _holder(lock));
    await _sleep(_POLL_MS);
  }
  _held.set(record, (_held.get(record) ?? 0) + 1);
  try {
    return await task();
  } finally {
    const n = _held.get(record)! - 1;
    if (n === 0) _held.delete(record);
    else _held.set(record, n);
    await _release(lock.file);
  }
}

/**
 * Remove the lock file. omp logs a failed removal and goes on; so do we:
 * the file names our pid with a record we no longer hold, so our next claim
 * takes it over, and other processes wait for our exit (as for an omp
 * leftover).
 */
async function _release(path: string): Promise<void> {
  try {
    await fs().remove(path);
  } catch (err) {
    if (isNotFound(err)) return; // taken over: fine
    // Otherwise tolerated, as the doc above says: the work is done.
  }
}

/**
 * omp's `#tryCreatePublishLock`: exclusive create, record, then check the
 * path still names the file written (a stale-lock steal may have removed it
 * between create and write). Returns the record written, or undefined when
 * another writer holds the name.
 */
async function _tryCreate(lock: Lock): Promise<string | undefined> {
  const path = lock.file;
  const action = `Cannot ${lock.verb} ${quote(lock.session)}`;
  let file: FileHandle;
  try {
    file = await fs().open(path, {
      write: true,
      createNew: true,
      mode: FILE_MODE,
    });
  } catch (err) {
    if (errorCode(err) === "EEXIST") return undefined;
    throw named(err, `${action}: cannot create the lock file ${quote(path)}`);
  }
  const record = `${fs().pid}:${Date.now()}\n`;
  let ours: boolean;
  try {
    await writeAll(file, new TextEncoder().encode(record));
    // Compared while the descriptor is open, so its inode cannot be reused.
    const [now, mine] = await Promise.all([
      lstatOrUndefined(path),
      file.stat(),
    ]);
    ours = now !== undefined &&
      (mine.ino === 0 ? (await _read(path)) === record : sameFile(now, mine));
  } catch (err) {
    const why = `${action}: cannot write the lock file ${quote(path)}`;
    await file.close();
    await removeAfter(path, err, `${why}, nor remove it`);
    throw named(err, why);
  }
  await file.close();
  return ours ? record : undefined;
}

/** A lock file as found: its record (null when unreadable) and its stat. */
interface Found {
  content: string | null;
  info: FileInfo;
}

/**
 * omp's `#stealStalePublishLock`: removes the lock file only when it is
 * stale, re-reading it just before. Returns whether the lock may now be free.
 */
async function _stealStale(lock: Lock): Promise<boolean> {
  const seen = await _find(lock);
  if (seen === undefined) return true;
  if (seen.content === null || !await _isStale(seen.content, seen.info)) {
    return false;
  }
  const again = await _find(lock);
  if (again === undefined) return true;
  if (again.content !== seen.content || !sameFile(again.info, seen.info)) {
    return false; // another writer took it in between: look again
  }
  try {
    await fs().remove(lock.file);
  } catch (err) {
    if (!isNotFound(err)) return false;
  }
  return true;
}

async function _isStale(content: string, info: FileInfo): Promise<boolean> {
  const pid = _lockPid(content);
  if (pid === fs().pid) return !_held.has(content);
  if (pid !== undefined) return !await fs().isAlive(pid);
  // No record: a live acquirer may be between create and write.
  return Date.now() - info.mtimeMs > LOCK_WAIT_MS;
}

/** The lock file, its type checked before it is read; undefined when there is none. */
async function _find(lock: Lock): Promise<Found | undefined> {
  const info = await lstatOrUndefined(lock.file);
  if (info === undefined) return undefined;
  _refuse(
    `Cannot ${lock.verb} ${quote(lock.session)}`,
    "file",
    lock.file,
    info,
  );
  const content = await _read(lock.file).catch(() => null); // unreadable: kept as such
  return content === undefined ? undefined : { content, info };
}

/** A lock file's text; undefined when it is gone. */
async function _read(path: string): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await fs().readFile(path));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function _lockPid(content: string): number | undefined {
  const pid = Number.parseInt(_RECORD.exec(content)?.[1] ?? "", 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Who holds the lock file and how to clear it, for the timeout message. */
async function _holder(lock: Lock): Promise<string> {
  const name = quote(lock.file);
  const found = await _find(lock);
  if (found === undefined) return `another writer held the lock file ${name}`;
  const ms = found.info.mtimeMs;
  const since = ms === 0 ? "an unknown time" : new Date(ms).toISOString();
  if (found.content === null) {
    return `the lock file ${name} (since ${since}) cannot be read: remove it if no process is writing this session`;
  }
  const pid = _lockPid(found.content);
  if (pid === undefined) {
    return `another writer is creating the lock file ${name} (since ${since})`;
  }
  const at = new Date(Number(_RECORD.exec(found.content)?.[2]));
  const when = Number.isNaN(at.getTime()) ? since : at.toISOString();
  return `process ${pid} has held the lock file ${name} since ${when}: remove it if process ${pid} is not a writer of this session`;
}

/** The error for a lock not had in time, naming who holds what. */
function _timedOut(lock: Lock, why: string): Error {
  return fs().error(
    "ETIMEDOUT",
    `Cannot ${lock.verb} ${quote(lock.session)}: ${why} (waited ${
      Math.round(lock.timeoutMs)
    } ms for the lock)`,
  );
}

function _sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
