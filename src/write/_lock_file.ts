/**
 * omp's lock-file protocol (`session-storage.ts`, `FileSessionStorage`):
 * `.<name>.lock` created exclusively, holding `<pid>:<epochMs>`, checked to
 * be still ours, removed when done; a lock file whose process is gone (or,
 * without a record, older than the wait) is stale and taken over.
 *
 * Two departures from omp, both on what omp leaves to wait forever:
 * - the type of the lock path is checked (`lstat`) before its record is
 *   read: a FIFO, a folder, a symbolic link or a device there can never be
 *   released by a writer, so it is a clear error at once, not a wait (and
 *   reading a FIFO would block);
 * - a record naming this process's own pid that this process does not hold
 *   (left by an earlier process that had the same pid: an agent restarted
 *   in a container as pid 1) is stale; omp counts it as alive.
 *
 * The claim is checked by comparing the inode the path names with the
 * inode of the descriptor the record was written through, while that
 * descriptor is still open (so the inode cannot be reused), instead of
 * reading the record back: the same answer, two calls cheaper.
 *
 * @module
 */

import { named, quote, removeAfterSync } from "../fs/_errors.ts";
import { notAFile } from "../fs/_read.ts";
import { type FsSyncFile, seam } from "../fs/_seam.ts";
import { FILE_MODE, sameFile } from "./_folders.ts";

/** omp's `SESSION_PUBLISH_LOCK_WAIT_MS`: its wait, and the age past which a lock file without a record is a crash orphan. */
export const LOCK_WAIT_MS = 500;
/** omp's `SESSION_PUBLISH_LOCK_POLL_MS`. */
export const LOCK_POLL_MS = 2;

/** One acquisition of the lock of one session file. */
export interface Lock {
  /** The session file. */
  session: string;
  /** `.<basename>.lock` beside it (absolute when the session path is). */
  file: string;
  /** For messages: "append to", "rename", …. */
  verb: string;
  timeoutMs: number;
  deadline: number;
}

/** The error for a lock not taken in time, naming who holds what. */
export function timedOut(lock: Lock, why: string): Deno.errors.TimedOut {
  return new Deno.errors.TimedOut(
    `Cannot ${lock.verb} ${quote(lock.session)}: ${why} (waited ${
      Math.round(lock.timeoutMs)
    } ms for the lock)`,
  );
}

/** Wait `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** omp's lock record, `<pid>:<epochMs>` with optional trailing whitespace. */
const _LOCK_RECORD = /^(\d+):(\d+)\s*$/;

const _encoder = new TextEncoder();
const _decoder = new TextDecoder();

/**
 * The records this process holds now (a count per record: two locks taken
 * in the same millisecond have equal records). A lock file naming this
 * process's pid with a record not in here is a leftover: of this process
 * (a removal that failed) or of an earlier process with the same pid.
 */
const _held = new Map<string, number>();

/** Run `task` holding the lock file of `lock`. */
export async function withLockFile<T>(
  lock: Lock,
  task: () => Promise<T>,
): Promise<T> {
  let record: string | undefined;
  for (;;) {
    record = _tryCreate(lock);
    if (record !== undefined) break;
    if (_stealStale(lock)) {
      record = _tryCreate(lock);
      if (record !== undefined) break;
    }
    if (Date.now() >= lock.deadline) throw timedOut(lock, _holder(lock));
    await sleep(LOCK_POLL_MS);
  }
  _held.set(record, (_held.get(record) ?? 0) + 1);
  try {
    return await task();
  } finally {
    const n = _held.get(record)! - 1;
    if (n === 0) _held.delete(record);
    else _held.set(record, n);
    _release(lock.file);
  }
}

/**
 * Remove the lock file. omp logs a failed removal and goes on; so do we:
 * the file names our pid with a record we no longer hold, so our next claim
 * takes it over, and other processes wait for our exit (as for an omp
 * leftover).
 */
function _release(path: string): void {
  try {
    seam().removeSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return; // taken over: fine
    // Otherwise tolerated, as the doc above says: the work is done.
  }
}

/**
 * omp's `#tryCreatePublishLock`: exclusive create, record, then check the
 * path still names the file written (a stale-lock steal may have removed it
 * between create and write). Returns the record written, or undefined when
 * another writer holds the name.
 */
function _tryCreate(lock: Lock): string | undefined {
  const fs = seam();
  const path = lock.file;
  const action = `Cannot ${lock.verb} ${quote(lock.session)}`;
  let file: FsSyncFile;
  try {
    file = fs.openSync(path, { write: true, createNew: true, mode: FILE_MODE });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return undefined;
    throw named(err, `${action}: cannot create the lock file ${quote(path)}`);
  }
  const record = `${Deno.pid}:${Date.now()}\n`;
  let ours: boolean;
  try {
    _writeAllSync(file, _encoder.encode(record));
    // Compared while the descriptor is open, so its inode cannot be reused.
    const now = _lstatOrUndefined(path);
    const mine = file.statSync();
    ours = now !== undefined &&
      (mine.ino === null ? _holds(path, record) : sameFile(now, mine));
  } catch (err) {
    file.close();
    const why = `${action}: cannot write the lock file ${quote(path)}`;
    removeAfterSync(path, err, `${why}, nor remove it`);
    throw named(err, why);
  }
  file.close();
  return ours ? record : undefined;
}

/** omp's read-back, where the platform gives no inodes (Windows). */
function _holds(path: string, record: string): boolean {
  try {
    return _decoder.decode(seam().readFileSync(path)) === record;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

function _writeAllSync(file: FsSyncFile, bytes: Uint8Array): void {
  while (bytes.length > 0) {
    const n = file.writeSync(bytes);
    if (n <= 0) {
      throw new Deno.errors.WriteZero("a write made no progress");
    }
    bytes = bytes.subarray(n);
  }
}

/** A lock file as found: its record (null when unreadable), inode and age. */
interface Found {
  content: string | null;
  info: Deno.FileInfo;
}

/**
 * omp's `#stealStalePublishLock`: removes the lock file only when it is
 * stale (see the module doc), re-reading it just before. Returns whether
 * the lock may now be free.
 */
function _stealStale(lock: Lock): boolean {
  const seen = _find(lock);
  if (seen === undefined) return true;
  if (seen.content === null || !_isStale(seen)) return false;
  const again = _find(lock);
  if (again === undefined) return true;
  if (again.content !== seen.content || !sameFile(again.info, seen.info)) {
    return false; // another writer took it in between: look again
  }
  try {
    seam().removeSync(lock.file);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) return false;
  }
  return true;
}

function _isStale(found: Found): boolean {
  const pid = _lockPid(found.content!);
  if (pid === Deno.pid) return !_held.has(found.content!);
  if (pid !== undefined) return !_isAlive(pid);
  // No record: a live acquirer may be between create and write.
  return Date.now() - (found.info.mtime?.getTime() ?? 0) > LOCK_WAIT_MS;
}

/**
 * The lock file, never blocking: its type is checked before it is read.
 * Undefined when there is none.
 *
 * @throws {Error} When the lock path holds anything but a regular file.
 */
function _find(lock: Lock): Found | undefined {
  const info = _lstatOrUndefined(lock.file);
  if (info === undefined) return undefined;
  const what = info.isSymlink ? "a symbolic link" : notAFile(info);
  if (what !== undefined) {
    throw new Error(
      `Cannot ${lock.verb} ${quote(lock.session)}: the lock file ${
        quote(lock.file)
      } is ${what}, which no writer can ever release: remove it if no process is writing this session`,
    );
  }
  try {
    return { content: _decoder.decode(seam().readFileSync(lock.file)), info };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    return { content: null, info };
  }
}

function _lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return seam().lstatSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

function _lockPid(content: string): number | undefined {
  const match = _LOCK_RECORD.exec(content);
  if (!match) return undefined;
  const pid = Number.parseInt(match[1] ?? "", 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * omp's `isPidAlive`: only "no such process" counts as dead. Asks only what
 * the granted permissions allow (never prompts): `kill(pid, 0)` with
 * `--allow-run`, else `/proc/<pid>` on Linux; otherwise the holder counts as
 * alive (fail closed), and the wait ends in a timeout.
 */
function _isAlive(pid: number): boolean {
  if (_granted({ name: "run" })) {
    try {
      // Signal 0 checks that the process exists without signalling it.
      Deno.kill(pid, 0 as unknown as Deno.Signal);
      return true;
    } catch (err) {
      return !(err instanceof Deno.errors.NotFound); // ESRCH
    }
  }
  if (Deno.build.os === "linux" && _granted({ name: "read", path: "/proc" })) {
    try {
      seam().statSync(`/proc/${pid}`);
      return true;
    } catch (err) {
      return !(err instanceof Deno.errors.NotFound);
    }
  }
  return true;
}

function _granted(descriptor: Deno.PermissionDescriptor): boolean {
  return Deno.permissions.querySync(descriptor).state === "granted";
}

/** Who holds the lock file and how to clear it, for the timeout message. */
function _holder(lock: Lock): string {
  const name = quote(lock.file);
  const found = _find(lock);
  if (found === undefined) return `another writer held the lock file ${name}`;
  const since = found.info.mtime?.toISOString() ?? "an unknown time";
  if (found.content === null) {
    return `the lock file ${name} (since ${since}) cannot be read: remove it if no process is writing this session`;
  }
  const pid = _lockPid(found.content);
  if (pid === undefined) {
    return `another writer is creating the lock file ${name} (since ${since})`;
  }
  const at = new Date(Number(_LOCK_RECORD.exec(found.content)?.[2]));
  const when = Number.isNaN(at.getTime()) ? since : at.toISOString();
  return `process ${pid} has held the lock file ${name} since ${when}: remove it if process ${pid} is not a writer of this session`;
}
