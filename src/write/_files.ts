/**
 * What every writer of the store does to files: the modes of what it
 * creates, the folders made on the way, writing a buffer whole, flushing a
 * folder, telling two stats of one file, and taking a failed write back.
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
 * Make the missing folders of `dir`, outermost first, mode 0700 whatever
 * the umask (the mode is set again after the `mkdir`, which the umask
 * narrows); folders that exist are left as they are.
 *
 * @param path The file the folders are for, named in errors.
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
 * Create `path`, which must not exist, mode 0600 whatever the umask. When
 * the mode cannot be set, the file is closed and removed.
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
    const why = `its mode could not be set, nor ${quote(path)} removed`;
    await removeAfter(path, err, `${action}: ${why}`);
    throw err;
  }
}

/**
 * Write all of `bytes`, looping on short writes.
 *
 * @param file An open file.
 * @param bytes What to write.
 * @param position Where; without it, at the file's cursor (its end for an
 * append handle).
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
 * Flush a folder's entries to disk (nothing on Windows), so a rename or a
 * new file in it survives a crash.
 *
 * @param dir The folder.
 */
export async function syncFolder(dir: string): Promise<void> {
  if (fs().windows) return;
  const folder = await fs().open(dir, { read: true });
  try {
    await folder.syncData();
  } finally {
    await folder[Symbol.asyncDispose]();
  }
}

/**
 * Whether two stats name the same file: inode and device (always true
 * where the platform gives no inode).
 *
 * @param a One file's metadata.
 * @param b The other's.
 * @returns Whether they match.
 */
export function sameFile(a: FileInfo, b: FileInfo): boolean {
  return a.ino === 0 || (a.ino === b.ino && a.dev === b.dev);
}

/**
 * A path's own metadata (a link is a link).
 *
 * @param path The path.
 * @returns Its metadata, or undefined when nothing is there.
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
 * Remove a file after a failed write (a missing file is fine).
 *
 * @param path The file to remove.
 * @param cause The write's error.
 * @param message The message when the removal fails too.
 * @throws {AggregateError} Of both errors, when the removal fails.
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
 * Run `undo` after a failed write.
 *
 * @param err The write's error.
 * @param undo Takes the write back.
 * @param action What the write was: `Cannot append to "a.jsonl"`.
 * @param message The message when `undo` fails too.
 * @returns The error to throw: `err` named with `action`, or both errors
 * in an `AggregateError` when `undo` failed too.
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
