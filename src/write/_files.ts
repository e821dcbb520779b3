/**
 * What every writer of the store does to files: the modes of what it
 * creates, the folders made on the way, writing and reading a buffer whole,
 * flushing a folder, telling two stats of one file, and taking a failed
 * write back.
 *
 * @module
 */

import { dirname, normalize } from "node:path";
import {
  errorCode,
  type FileHandle,
  type FileInfo,
  fs,
  isNotFound,
  type OpenOptions,
  statOrUndefined,
} from "../_fs.ts";
import { named, quote } from "../format/errors.ts";

/** Mode of a session file, its lock files, temp files and blobs: the owner only. */
export const FILE_MODE = 0o600;
/** Mode of a folder the store makes. */
export const DIR_MODE = 0o700;
/** `"\n"`. */
export const NEWLINE = 10;

/**
 * Make the missing folders of `dir` (mode 0700 whatever the umask),
 * outermost first; folders that exist are left as they are.
 *
 * @param path The file the folders are for (named in errors).
 * @param dir The folder that must exist.
 * @throws {Error} When something on the way is not a folder.
 */
export async function makeFolders(path: string, dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = normalize(dir);;) {
    const info = await statOrUndefined(at);
    if (info?.kind === "directory") break;
    if (info !== undefined) {
      throw new Error(
        `Cannot create ${quote(path)}: ${quote(at)} is not a folder`,
      );
    }
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const folder of missing.reverse()) {
    try {
      await fs().mkdir(folder, DIR_MODE);
    } catch (err) {
      if (errorCode(err) === "EEXIST") continue; // not ours to chmod
      throw err;
    }
    if (!fs().windows) await fs().chmod(folder, DIR_MODE);
  }
}

/**
 * Create `path`, which must not exist, with mode 0600 whatever the umask
 * (the mode is set again after the open, which the umask narrows). When
 * that fails, the file made is closed and removed.
 *
 * @param path The file to make.
 * @param flags How to open it besides.
 * @param action For errors: `Cannot create "a.jsonl"`.
 * @returns The open file.
 * @throws {Error} `EEXIST` when the path is taken.
 */
export async function createFile(
  path: string,
  flags: OpenOptions,
  action: string,
): Promise<FileHandle> {
  const file = await fs().open(path, {
    ...flags,
    createNew: true,
    mode: FILE_MODE,
  });
  try {
    if (!fs().windows) await fs().chmod(path, FILE_MODE);
    return file;
  } catch (err) {
    await file.close();
    await removeAfter(
      path,
      err,
      `${action}: its mode could not be set, nor ${quote(path)} removed`,
    );
    throw err;
  }
}

/**
 * Write all of `bytes`, looping on short writes.
 *
 * @param file An open file.
 * @param bytes What to write.
 * @param position Where (undefined: at the file's cursor, or its end for
 * an append handle).
 * @throws {Error} `EWRITEZERO` when a write makes no progress.
 */
export async function writeAll(
  file: FileHandle,
  bytes: Uint8Array,
  position?: number,
): Promise<void> {
  for (let at = 0; at < bytes.length;) {
    const rest = bytes.subarray(at);
    const n = await (position === undefined
      ? file.write(rest)
      : file.write(rest, position + at));
    if (n <= 0) {
      throw fs().error(
        "EWRITEZERO",
        `Cannot write: the file took 0 bytes at byte ${at} of ${bytes.length}`,
      );
    }
    at += n;
  }
}

/**
 * Read into `buf` from `position` until it is full or the file ends.
 *
 * @param file An open file.
 * @param buf Where to read to.
 * @param position Where to read from.
 * @returns The bytes read: fewer than `buf.length` only at the end.
 */
export async function readFull(
  file: FileHandle,
  buf: Uint8Array,
  position: number,
): Promise<number> {
  let at = 0;
  while (at < buf.length) {
    const n = await file.read(buf.subarray(at), position + at);
    if (n === 0) break;
    at += n;
  }
  return at;
}

/**
 * Flush a folder's entries to disk (nothing on Windows), so a rename or a
 * new file in it survives a crash.
 *
 * @param dir The folder.
 */
export async function syncFolder(dir: string): Promise<void> {
  if (fs().windows) return;
  await using folder = await fs().open(dir, { read: true });
  await folder.syncData();
}

/**
 * Whether two stats name the same file (always true where the platform
 * gives no inode).
 *
 * @param a One file's metadata.
 * @param b The other's.
 * @returns Whether inode and device match.
 */
export function sameFile(a: FileInfo, b: FileInfo): boolean {
  return a.ino === 0 || (a.ino === b.ino && a.dev === b.dev);
}

/**
 * A path's own metadata (a link is a link), or undefined when nothing is
 * there.
 *
 * @param path The path.
 * @returns Its metadata, or undefined.
 */
export async function lstatOrUndefined(
  path: string,
): Promise<FileInfo | undefined> {
  try {
    return await fs().lstat(path);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Remove a file after a failed write, keeping the write's error: a missing
 * file is fine; a failed removal joins both errors.
 *
 * @param path The file to remove.
 * @param cause The write's error.
 * @param message The joined error's message.
 * @throws {AggregateError} When the removal fails.
 */
export async function removeAfter(
  path: string,
  cause: unknown,
  message: string,
): Promise<void> {
  try {
    await fs().remove(path);
  } catch (err) {
    if (!isNotFound(err)) throw new AggregateError([cause, err], message);
  }
}

/**
 * Run `undo` after a failed write; the result is the error to throw: `err`
 * named with `action`, or, when `undo` fails too, both errors in an
 * `AggregateError` with `message`.
 *
 * @param err The write's error.
 * @param undo Takes the write back.
 * @param action What the write was, e.g. `Cannot append to "a.jsonl"`.
 * @param message The joined error's message.
 * @returns The error to throw.
 */
export async function undoAfter(
  err: unknown,
  undo: () => Promise<void>,
  action: string,
  message: string,
): Promise<unknown> {
  try {
    await undo();
    return named(err, action);
  } catch (undoError) {
    return new AggregateError([err, undoError], message);
  }
}
