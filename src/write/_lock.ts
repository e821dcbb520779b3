/**
 * The cross-process lock of a session file: omp's lock-file protocol
 * (`session-storage.ts`, `FileSessionStorage`) under a native OS gate, with
 * this process's writers queued in order before both. `SessionWriter` and
 * `rewriteWithSlot` (`writer.ts`, whose module doc describes the protocol)
 * take it for every write.
 *
 * Never exported from `mod.ts`.
 *
 * @module
 */

import { basename, dirname, join, normalize } from "node:path";
import { _fs, type _FsSyncFile, _IS_WINDOWS } from "../fs/_seam.ts";
import { _FILE_MODE, _quote } from "./_file_ops.ts";

/** omp's `SESSION_PUBLISH_LOCK_WAIT_MS`: its wait, and the age past which a lock file without a record is a crash orphan. */
export const _LOCK_WAIT_MS = 500;
/** omp's `SESSION_PUBLISH_LOCK_POLL_MS`. */
const _LOCK_POLL_MS = 2;
/** omp's lock record, `<pid>:<epochMs>` with optional trailing whitespace. */
const _LOCK_RECORD = /^(\d+):(\d+)\s*$/;

const _encoder = new TextEncoder();
const _decoder = new TextDecoder();

/** One acquisition of the lock of one session file. */
export interface _Lock {
  /** The session file. */
  session: string;
  /** `.<basename>.lock` beside it. */
  file: string;
  /** For messages: "append to", "rewrite", …. */
  verb: string;
  timeoutMs: number;
  deadline: number;
}

/** This process's queue per lock file: the promise of its last holder. */
const _queues = new Map<string, Promise<void>>();

/** The lock of `session` for one call that would `verb` it, waiting at most `timeoutMs`. */
export function _lockFor(
  session: string,
  verb: string,
  timeoutMs: number,
): _Lock {
  return {
    session,
    file: join(dirname(session), `.${basename(session)}.lock`),
    verb,
    timeoutMs,
    deadline: 0,
  };
}

/** Runs `task` holding the lock: this process's queue, the OS gate, then the lock file. */
export async function _withLock<T>(
  lock: _Lock,
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
      throw _timedOut(lock, "another writer in this process holds it");
    }
    return await _withGate(lock, () => _withLockFile(lock, task));
  } finally {
    mine.resolve();
  }
}

async function _withGate<T>(lock: _Lock, task: () => Promise<T>): Promise<T> {
  using gate = _openGate(`${lock.file}.os`);
  while (!gate.tryLockSync(true)) {
    if (Date.now() >= lock.deadline) {
      throw _timedOut(
        lock,
        `another process holds "${basename(lock.file)}.os"`,
      );
    }
    await _sleep(_LOCK_POLL_MS);
  }
  try {
    return await task();
  } finally {
    gate.unlockSync();
  }
}

/** Opens the gate file, creating it 0600 whatever the umask. */
function _openGate(path: string): _FsSyncFile {
  const fs = _fs();
  try {
    const created = fs.openSync(path, {
      read: true,
      write: true,
      createNew: true,
      mode: _FILE_MODE,
    });
    if (!_IS_WINDOWS) fs.chmodSync(path, _FILE_MODE);
    return created;
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  }
  return fs.openSync(path, { read: true, write: true });
}

async function _withLockFile<T>(
  lock: _Lock,
  task: () => Promise<T>,
): Promise<T> {
  let record: string | undefined;
  for (;;) {
    record = _tryCreateLockFile(lock.file);
    if (record !== undefined) break;
    if (await _stealStaleLockFile(lock.file)) {
      record = _tryCreateLockFile(lock.file);
      if (record !== undefined) break;
    }
    if (Date.now() >= lock.deadline) {
      throw _timedOut(lock, await _holder(lock.file));
    }
    await _sleep(_LOCK_POLL_MS);
  }
  try {
    return await task();
  } finally {
    _releaseLockFile(lock.file, record);
  }
}

/**
 * Records this process wrote and then failed to remove. omp logs such a
 * failure and goes on; so do we, but remember the record so that the next
 * claim here takes the leftover over (another process waits for our exit,
 * as with an omp leftover).
 */
const _leftover = new Set<string>();

function _releaseLockFile(path: string, record: string): void {
  try {
    _fs().removeSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) _leftover.add(record);
  }
}

/**
 * omp's `#tryCreatePublishLock`: exclusive create, record, read back.
 * Returns the record written, or undefined when another writer holds the name.
 */
function _tryCreateLockFile(path: string): string | undefined {
  const fs = _fs();
  let file: _FsSyncFile;
  try {
    file = fs.openSync(path, {
      write: true,
      createNew: true,
      mode: _FILE_MODE,
    });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return undefined;
    throw err;
  }
  const record = `${Deno.pid}:${Date.now()}\n`;
  try {
    let bytes = _encoder.encode(record);
    while (bytes.length > 0) {
      const n = file.writeSync(bytes);
      if (n <= 0) {
        throw new Deno.errors.WriteZero(
          `Cannot lock ${_quote(path)}: a write made no progress`,
        );
      }
      bytes = bytes.subarray(n);
    }
  } catch (err) {
    file.close();
    _removeAfterSync(path, err, `Cannot lock ${_quote(path)}`);
    throw err;
  }
  file.close();
  // A stale-lock steal may have removed our file between create and write.
  try {
    const now = _decoder.decode(fs.readFileSync(path));
    return now === record ? record : undefined;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    _removeAfterSync(path, err, `Cannot lock ${_quote(path)}`);
    throw err;
  }
}

/** Removes our half-made lock file after `cause`; a failure to remove it too is reported with it. */
function _removeAfterSync(path: string, cause: unknown, message: string): void {
  try {
    _fs().removeSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw new AggregateError([cause, err], message);
  }
}

/**
 * omp's `#stealStalePublishLock`: removes the lock file only when its holder
 * is dead (or, with no record, when it is older than 500 ms), re-reading it
 * just before. Returns whether the lock may now be free.
 */
async function _stealStaleLockFile(path: string): Promise<boolean> {
  const fs = _fs();
  const content = await _readLock(path);
  if (content === undefined) return true;
  if (content === null) return false;
  const pid = _lockPid(content);
  if (_leftover.has(content)) {
    _leftover.delete(content);
  } else if (pid !== undefined) {
    if (await _isAlive(pid)) return false;
  } else if (!await _isOrphaned(path)) {
    return false; // a live acquirer may be between create and record
  }
  const again = await _readLock(path);
  if (again !== content) return again === undefined;
  try {
    await fs.remove(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) return false;
  }
  return true;
}

/** The lock file's content; undefined when it is gone, null when unreadable. */
async function _readLock(path: string): Promise<string | undefined | null> {
  try {
    return _decoder.decode(await _fs().readFile(path));
  } catch (err) {
    return err instanceof Deno.errors.NotFound ? undefined : null;
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
async function _isAlive(pid: number): Promise<boolean> {
  if (pid === Deno.pid) return true;
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
      await _fs().stat(`/proc/${pid}`);
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

/** Whether a lock file without a record is older than any live claim. */
async function _isOrphaned(path: string): Promise<boolean> {
  let info: Deno.FileInfo;
  try {
    info = await _fs().stat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return true;
    throw err;
  }
  const mtime = info.mtime?.getTime() ?? 0;
  return Date.now() - mtime > _LOCK_WAIT_MS;
}

/** Who holds the lock file, for the timeout message. */
async function _holder(path: string): Promise<string> {
  const content = await _readLock(path);
  const pid = content ? _lockPid(content) : undefined;
  return pid === undefined
    ? `another writer holds "${basename(path)}"`
    : `process ${pid} holds "${basename(path)}"`;
}

function _timedOut(lock: _Lock, why: string): Deno.errors.TimedOut {
  return new Deno.errors.TimedOut(
    `Cannot ${lock.verb} ${
      _quote(lock.session)
    }: ${why} (waited ${lock.timeoutMs} ms for the lock)`,
  );
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

function _sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
