/**
 * Opening a file to read it, and reading a range of it whole: what every
 * reader of session files does first.
 *
 * @module
 */

import { errorCode, type FileHandle, fs, notAFile } from "../_fs.ts";
import { named } from "../format/errors.ts";

/** OS errors in the words people use, by code. */
const _PLAIN: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOTDIR: "a part of the path is not a folder",
};

/**
 * Open a regular file for reading, failing fast on anything else: opening a
 * FIFO blocks until a writer comes, and a device such as `/dev/zero` never
 * ends. The type is checked before the open and again on the open handle
 * (the path may have been swapped in between).
 *
 * @param path The file.
 * @param action What the caller does, for errors: `Cannot open "a.jsonl"`.
 * @returns The open file; the caller closes it.
 * @throws {Error} Naming the action and the file: the OS error's class and
 * code kept, the OS error as `cause`.
 *
 * @example Refusing a folder
 * ```ts
 * import { openRegular } from "./_open.ts";
 * import { rejects } from "node:assert/strict";
 * await rejects(openRegular("/tmp", 'Cannot open "/tmp"'), /Cannot open "\/tmp": it is a folder/);
 * ```
 */
export async function openRegular(
  path: string,
  action: string,
): Promise<FileHandle> {
  let what: string | undefined;
  try {
    what = notAFile(await fs().stat(path));
  } catch (err) {
    throw _cannot(err, action);
  }
  if (what !== undefined) throw new Error(`${action}: it is ${what}`);
  const file = await fs().open(path, { read: true });
  try {
    const again = notAFile(await file.stat());
    if (again !== undefined) throw new Error(`${action}: it is ${again}`);
  } catch (err) {
    await file.close();
    throw err;
  }
  return file;
}

/**
 * Read into `p` at `position` until it is full or the file ends.
 *
 * @param file An open file.
 * @param p Where the bytes go.
 * @param position Where to read from.
 * @returns The bytes read: fewer than `p.length` only at the end.
 */
export async function readFull(
  file: Pick<FileHandle, "read">,
  p: Uint8Array,
  position: number,
): Promise<number> {
  let n = 0;
  while (n < p.length) {
    const got = await file.read(p.subarray(n), position + n);
    if (got === 0) break;
    n += got;
  }
  return n;
}

function _cannot(err: unknown, action: string): unknown {
  const words = _PLAIN[errorCode(err) ?? ""];
  if (words === undefined || !(err instanceof Error)) return named(err, action);
  const out = named(new Error(words), action) as Error;
  Object.setPrototypeOf(out, Object.getPrototypeOf(err));
  return Object.assign(out, {
    cause: err,
    code: errorCode(err),
    name: err.name,
  });
}
