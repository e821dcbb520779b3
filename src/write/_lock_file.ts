/**
 * omp's lock-file protocol (`session-storage.ts`, `FileSessionStorage`):
 * `.<name>.lock` created exclusively, holding `<pid>:<epochMs>`, read back
 * to confirm, removed when done; a lock file whose process is gone (or,
 * without a record, older than the wait) is stale and taken over.
 *
 * @module
 */

import { basename } from "node:path";
import { quote, removeAfterSync } from "../fs/_errors.ts";
import { type FsSyncFile, seam } from "../fs/_seam.ts";
import { FILE_MODE } from "./_folders.ts";

/** omp's `SESSION_PUBLISH_LOCK_WAIT_MS`: its wait, and the age past which a lock file without a record is a crash orphan. */
export const LOCK_WAIT_MS = 500;
/** omp's `SESSION_PUBLISH_LOCK_POLL_MS`. */
export const LOCK_POLL_MS = 2;

/** One acquisition of the lock of one session file. */
export interface Lock {
  /** The session file. */
  session: string;
  /** `.<basename>.lock` beside it. */
  file: string;
  /** For messages: "append to", "rewrite", …. */
  verb: string;
  timeoutMs: number;
  deadline: number;
}

/** The error for a lock not taken in time, naming the file and who holds it. */
export function timedOut(lock: Lock, why: string): Deno.errors.TimedOut {
  return new Deno.errors.TimedOut(
    `Cannot ${lock.verb} ${
      quote(lock.session)
    }: ${why} (waited ${lock.timeoutMs} ms for the lock)`,
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

/** Run `task` holding the lock file of `lock`. */
export async function withLockFile<T>(
  lock: Lock,
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
      throw timedOut(lock, await _holder(lock.file));
    }
    await sleep(LOCK_POLL_MS);
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
    seam().removeSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) _leftover.add(record);
  }
}

/**
 * omp's `#tryCreatePublishLock`: exclusive create, record, read back.
 * Returns the record written, or undefined when another writer holds the name.
 */
function _tryCreateLockFile(path: string): string | undefined {
  const fs = seam();
  let file: FsSyncFile;
  try {
    file = fs.openSync(path, {
      write: true,
      createNew: true,
      mode: FILE_MODE,
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
          `Cannot lock ${quote(path)}: a write made no progress`,
        );
      }
      bytes = bytes.subarray(n);
    }
  } catch (err) {
    file.close();
    removeAfterSync(path, err, `Cannot lock ${quote(path)}`);
    throw err;
  }
  file.close();
  // A stale-lock steal may have removed our file between create and write.
  try {
    const now = _decoder.decode(fs.readFileSync(path));
    return now === record ? record : undefined;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    removeAfterSync(path, err, `Cannot lock ${quote(path)}`);
    throw err;
  }
}

/**
 * omp's `#stealStalePublishLock`: removes the lock file only when its holder
 * is dead (or, with no record, when it is older than 500 ms), re-reading it
 * just before. Returns whether the lock may now be free.
 */
async function _stealStaleLockFile(path: string): Promise<boolean> {
  const fs = seam();
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
    return _decoder.decode(await seam().readFile(path));
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
      await seam().stat(`/proc/${pid}`);
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
    info = await seam().stat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return true;
    throw err;
  }
  const mtime = info.mtime?.getTime() ?? 0;
  return Date.now() - mtime > LOCK_WAIT_MS;
}

/** Who holds the lock file, for the timeout message. */
async function _holder(path: string): Promise<string> {
  const content = await _readLock(path);
  const pid = content ? _lockPid(content) : undefined;
  return pid === undefined
    ? `another writer holds "${basename(path)}"`
    : `process ${pid} holds "${basename(path)}"`;
}
