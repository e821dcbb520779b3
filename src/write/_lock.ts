/**
 * The cross-process lock of a session file, omp's (`session-storage.ts`,
 * `FileSessionStorage`): this process's callers queued in order, then two
 * layers beside the session file. Every append, rename and create takes it
 * (omp's own in-place slot rewrite takes none); the whole wait gives up
 * after `lockTimeoutMs` (omp: 500 ms per layer).
 *
 * 1. An OS gate, which the kernel drops when its process dies: a
 *    non-blocking exclusive `flock` on `.<name>.lock.os`, polled every 2 ms.
 *    omp takes the same `flock` on macOS and the BSDs; on Linux and Windows
 *    it binds a kernel name instead (on Linux an abstract `AF_UNIX` socket),
 *    which stable Deno cannot bind: there the gate orders only this
 *    library's writers, and the lock file orders them against omp.
 *
 *    The gate file is never removed (omp keeps it too): a `flock` names an
 *    inode, not a path, so removing it lets a waiter that opened the old
 *    inode take it while a third process locks a new file at the same path,
 *    two holders at once. A writer keeps its gate open between its writes;
 *    after each `flock` it checks that the path still names the inode it
 *    locked, and opens it again when not.
 * 2. A lock file `.<name>.lock`, made with an exclusive create (mode 0600),
 *    holding `<pid>:<epochMs>\n`, checked to be still ours, removed when the
 *    work is done. One whose process is gone (or, without a record, older
 *    than omp's wait) is stale and taken over. The claim is checked by
 *    comparing the inode the path names with the inode of the descriptor
 *    the record was written through, while it is open (so the inode cannot
 *    be reused): omp's read-back, two calls cheaper.
 *
 * Two departures from omp, both where omp would wait forever: each lock
 * path's type is checked (`lstat`) before it is opened or read (a FIFO, a
 * folder, a symbolic link or a device there is never released, and opening
 * a FIFO blocks): a clear error at once. And a record naming this process's
 * pid that this process does not hold (left by an earlier process with the
 * same pid: an agent restarted as pid 1 in a container) is stale.
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

/**
 * One wait for the lock: its lock file `.<name>.lock`, the action for
 * errors (`Cannot append to "a.jsonl"`), how long and until when (epoch ms).
 */
interface _Try {
  file: string;
  action: string;
  timeoutMs: number;
  deadline: number;
}

/** This process's queue per lock file: the promise of its last holder. */
const _queues = new Map<string, Promise<void>>();

/**
 * The lock of one session file, as its writer keeps it: the OS gate stays
 * open between the writer's calls (one `flock`, one `lstat` and one unlock
 * per call, not an open and a close), and closes with the writer.
 */
export class SessionLock implements AsyncDisposable {
  readonly #session: string;
  readonly #file: string;
  #gate: FileHandle | undefined;
  #gateInfo: FileInfo | undefined;

  /** @param session The session file; the lock files are beside it. */
  constructor(session: string) {
    this.#session = session;
    this.#file = resolve(dirname(session), `.${basename(session)}.lock`);
  }

  /**
   * Run `task` holding the lock: this process's queue, the OS gate, then
   * the lock file, waiting at most `timeoutMs` for the three.
   *
   * @param verb What `task` does to the session, for errors: `append to`.
   * @param timeoutMs How long to wait, in ms.
   * @throws {Error} `ETIMEDOUT` when the lock is not had in time, saying who
   * holds it; an `Error` at once when a lock path can never be released.
   */
  async run<T>(
    verb: string,
    timeoutMs: number,
    task: () => Promise<T>,
  ): Promise<T> {
    const file = this.#file;
    const action = `Cannot ${verb} ${quote(this.#session)}`;
    const deadline = Date.now() + timeoutMs;
    const at: _Try = { file, action, timeoutMs, deadline };
    const ahead = _queues.get(file);
    const mine = Promise.withResolvers<void>();
    const tail = ahead === undefined
      ? mine.promise
      : ahead.then(() => mine.promise);
    _queues.set(file, tail);
    try {
      if (ahead !== undefined) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<boolean>((resolve) => {
          timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), true);
        });
        const lost = await Promise.race([ahead.then(() => false), late]);
        clearTimeout(timer);
        const why =
          "another call in this process holds the lock of this session";
        if (lost) throw _timedOut(at, why);
      }
      await this.#take(at);
      try {
        return await _withLockFile(at, task);
      } finally {
        await this.#gate?.unlock();
      }
    } finally {
      mine.resolve();
      if (_queues.get(file) === tail) _queues.delete(file);
    }
  }

  /** Close the gate file. */
  async close(): Promise<void> {
    const gate = this.#gate;
    this.#gate = undefined;
    await gate?.close();
  }

  /** Same as {@linkcode SessionLock.close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Take the gate's `flock`, polling until the deadline. */
  async #take(at: _Try): Promise<void> {
    const path = `${this.#file}.os`;
    for (;;) {
      const gate = this.#gate ?? await this.#open(at, path);
      if (await gate.tryLock()) {
        const now = await lstatOrUndefined(path);
        if (now !== undefined && sameFile(now, this.#gateInfo!)) return;
        await this.close(); // removed or replaced while we waited: lock the new one
        continue;
      }
      if (Date.now() >= at.deadline) {
        const why = `another process holds the OS lock on ${
          quote(path)
        } (a flock, released when that process exits)`;
        throw _timedOut(at, why);
      }
      await _sleep(_POLL_MS);
    }
  }

  /** Open the gate file (made 0600 whatever the umask), its type checked before and after. */
  async #open(at: _Try, path: string): Promise<FileHandle> {
    const cannot = (err: unknown) =>
      named(err, `${at.action}: cannot open ${quote(path)}`);
    for (;;) {
      const info = await lstatOrUndefined(path).catch((err) => {
        throw cannot(err);
      });
      if (info !== undefined) _refuse(at.action, "gate", path, info);
      const create = info === undefined
        ? { createNew: true, mode: FILE_MODE }
        : {};
      let gate: FileHandle;
      try {
        gate = await fs().open(path, { read: true, write: true, ...create });
      } catch (err) {
        const code = errorCode(err);
        if (code === "EEXIST" || code === "ENOENT") continue; // changed since the lstat
        throw cannot(err);
      }
      try {
        if (info === undefined && !fs().windows) {
          await fs().chmod(path, FILE_MODE);
        }
        this.#gateInfo = await gate.stat();
        _refuse(at.action, "gate", path, this.#gateInfo);
      } catch (err) {
        await gate.close();
        throw cannot(err);
      }
      this.#gate = gate;
      return gate;
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

/** Run `task` holding the lock file. */
async function _withLockFile<T>(at: _Try, task: () => Promise<T>): Promise<T> {
  let record: string | undefined;
  for (;;) {
    record = await _tryCreate(at);
    if (record === undefined && await _stealStale(at)) {
      record = await _tryCreate(at);
    }
    if (record !== undefined) break;
    if (Date.now() >= at.deadline) throw _timedOut(at, await _holder(at));
    await _sleep(_POLL_MS);
  }
  _held.set(record, (_held.get(record) ?? 0) + 1);
  try {
    return await task();
  } finally {
    const n = _held.get(record)! - 1;
    if (n === 0) _held.delete(record);
    else _held.set(record, n);
    await _release(at.file);
  }
}

/**
 * Remove the lock file. omp logs a failed removal and goes on; so do we:
 * the file names our pid with a record we no longer hold, so our next claim
 * takes it over, and other processes wait for our exit (as for an omp
 * leftover).
 */
async function _release(path: string): Promise<void> {
  // Gone (taken over) is fine; any other failure is tolerated: the work is done.
  await fs().remove(path).catch(() => {});
}

/**
 * omp's `#tryCreatePublishLock`: exclusive create, record, then check the
 * path still names the file written (a stale-lock steal may have removed it
 * between create and write). Returns the record written, or undefined when
 * another writer holds the name.
 */
async function _tryCreate(at: _Try): Promise<string | undefined> {
  const path = at.file;
  const flags = { write: true, createNew: true, mode: FILE_MODE };
  let file: FileHandle;
  try {
    file = await fs().open(path, flags);
  } catch (err) {
    if (errorCode(err) === "EEXIST") return undefined;
    const why = `${at.action}: cannot create the lock file ${quote(path)}`;
    throw named(err, why);
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
    const why = `${at.action}: cannot write the lock file ${quote(path)}`;
    await file.close();
    await removeAfter(path, err, `${why}, nor remove it`);
    throw named(err, why);
  }
  await file.close();
  return ours ? record : undefined;
}

/**
 * omp's `#stealStalePublishLock`: removes the lock file only when it is
 * stale, read again just before. Returns whether the lock may now be free.
 */
async function _stealStale(at: _Try): Promise<boolean> {
  const seen = await _find(at);
  if (seen === undefined) return true;
  if (seen.content === null || !await _isStale(seen.content, seen.info)) {
    return false;
  }
  const again = await _find(at);
  if (again === undefined) return true;
  if (again.content !== seen.content || !sameFile(again.info, seen.info)) {
    return false; // another writer took it in between: look again
  }
  try {
    await fs().remove(at.file);
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

/** The lock file as found, its type checked before it is read: its record (null when unreadable) and stat. */
async function _find(
  at: _Try,
): Promise<{ content: string | null; info: FileInfo } | undefined> {
  const info = await lstatOrUndefined(at.file);
  if (info === undefined) return undefined;
  _refuse(at.action, "file", at.file, info);
  const content = await _read(at.file).catch(() => null); // unreadable: said so in a timeout
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
async function _holder(at: _Try): Promise<string> {
  const name = quote(at.file);
  const found = await _find(at);
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
  const taken = new Date(Number(_RECORD.exec(found.content)?.[2]));
  const when = Number.isNaN(taken.getTime()) ? since : taken.toISOString();
  return `process ${pid} has held the lock file ${name} since ${when}: remove it if process ${pid} is not a writer of this session`;
}

/** The error for a lock not had in time, naming who holds what. */
function _timedOut(at: _Try, why: string): Error {
  const waited = `waited ${Math.round(at.timeoutMs)} ms for the lock`;
  return fs().error("ETIMEDOUT", `${at.action}: ${why} (${waited})`);
}

function _sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
