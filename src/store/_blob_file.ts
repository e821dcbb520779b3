/**
 * A blob's file on disk, as {@linkcode BlobStore} looks at it: whether it is
 * there as the file (or the folder) it should be, never a symbolic link, and
 * the touch that tells `cli blobs gc` a stored blob is in use again.
 *
 * @module
 */

import {
  errorCode,
  fs,
  isDenied,
  isNotFound,
  lstatOrUndefined,
} from "../_fs.ts";

/**
 * Sets a stored blob's modification time to now: what tells gc that it is
 * in use again. False when it is gone (gc moved it away in between: the
 * caller writes it anew); true when it is there, its time set or not (a
 * read-only store or another user's file: the blob is stored all the same).
 */
export async function touch(path: string): Promise<boolean> {
  const now = Date.now();
  try {
    await fs().utime(path, now, now);
  } catch (err) {
    if (isNotFound(err)) return false;
    if (!isDenied(err) && errorCode(err) !== "EROFS") throw err;
  }
  return true;
}

/**
 * Whether `path` is there as a `kind`; throws when it is a symbolic link
 * (a hostile data dir's way to point reads or writes elsewhere) or
 * anything else.
 */
export async function isThere(
  path: string,
  kind: "file" | "directory",
): Promise<boolean> {
  const info = await lstatOrUndefined(path);
  if (info === undefined) return false;
  const what = kind === "file" ? "blob" : "blob folder";
  if (info.kind === "symlink") {
    throw new Error(`Cannot use ${what} "${path}": it is a symbolic link`);
  }
  if (info.kind !== kind) {
    const not = kind === "file" ? "not a regular file" : "not a folder";
    throw new Error(`Cannot use ${what} "${path}": ${not}`);
  }
  return true;
}
