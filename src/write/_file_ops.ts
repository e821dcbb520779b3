/**
 * File operations of the session writers that hold no writer state:
 * reading the tail and line 1, cutting back a failed append, putting back a
 * slot, copying a file under a new slot through a temp file, making folders
 * with the right modes, and removing a partial file after a failure.
 * `SessionWriter`, `rewriteWithSlot` and `forkSession` share them.
 *
 * Never exported from `mod.ts`.
 *
 * @module
 */

import { basename, dirname, join, normalize } from "node:path";
import {
  _fs,
  type _FsFile,
  type _FsHandle,
  _IS_WINDOWS,
  _writeAll,
} from "../fs/_seam.ts";
import { _readFull } from "../read/_head.ts";

/** Mode of a session file, its lock files and temp files: the owner only. */
export const _FILE_MODE = 0o600;
/** Mode of a folder the writer makes. */
const _DIR_MODE = 0o700;
/** Copy buffer of {@linkcode _replaceWithSlot}: memory stays bounded whatever the file size. */
const _COPY_BUFFER_BYTES = 1 << 20;
/** How much of line 1 {@linkcode _replaceWithSlot} reads to tell a title record. */
const _TITLE_PREFIX = new TextEncoder().encode('{"type":"title"');
/** `"\n"`. */
export const _NEWLINE = 10;

/** Whether a file of `size` bytes ends in anything but `"\n"`. */
export async function _endsTorn(
  file: _FsHandle,
  size: number,
): Promise<boolean> {
  if (size === 0) return false;
  await file.seek(size - 1, Deno.SeekMode.Start);
  const last = await _readUpTo(file, 1);
  return last[0] !== _NEWLINE;
}

/** Reads up to `n` bytes from the current position (fewer only at the end). */
export async function _readUpTo(
  file: _FsHandle,
  n: number,
): Promise<Uint8Array> {
  const buf = new Uint8Array(n);
  return buf.subarray(0, await _readFull(file, buf));
}

export function _withNewline(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out[0] = _NEWLINE;
  out.set(bytes, 1);
  return out;
}

/**
 * `err` with a message that names the action and the file
 * (`Cannot append to "a.jsonl": No space left on device`), keeping `err` as
 * its `cause` and its `code` (`ENOSPC` …); an error already named is kept.
 */
export function _named(err: unknown, action: string): unknown {
  // Our own errors already say what they could not do.
  if (!(err instanceof Error) || err.message.startsWith("Cannot ")) return err;
  const named = new Error(`${action}: ${err.message}`, { cause: err });
  const code = (err as { code?: unknown }).code;
  if (code !== undefined) Object.assign(named, { code });
  named.name = err.name;
  return named;
}

/** Cuts the file back to `size` after `err`; the result is the error to keep. */
export function _rollBack(
  file: _FsHandle,
  size: number,
  err: unknown,
  action: string,
): Promise<unknown> {
  return _undoAfter(
    err,
    () => file.truncate(size),
    `${action}: the write failed and its partial bytes could not be cut off`,
  ).then((kept) => kept === err ? _named(err, action) : kept);
}

/** Puts the old slot back after `err`; the result is the error to keep. */
export function _restoreSlot(
  file: _FsHandle,
  old: Uint8Array,
  err: unknown,
  action: string,
): Promise<unknown> {
  return _undoAfter(err, async () => {
    await file.seek(0, Deno.SeekMode.Start);
    await _writeAll(file, old);
  }, `${action}: the write failed and the old slot could not be put back`)
    .then((kept) => kept === err ? _named(err, action) : kept);
}

/**
 * Runs `undo` after `err`; the result is the error to keep: `err`, or, when
 * `undo` fails too, both in an `AggregateError` with `message`.
 */
async function _undoAfter(
  err: unknown,
  undo: () => Promise<void>,
  message: string,
): Promise<unknown> {
  try {
    await undo();
    return err;
  } catch (undoError) {
    return new AggregateError([err, undoError], message);
  }
}

/**
 * The body of `rewriteWithSlot`, run under the lock: writes `slot`, then the
 * file from line 1 (or, with `dropFirstLine`, line 2) to its end, to
 * `.<basename>.<random>.tmp` (mode 0600) beside `path`, and renames that over
 * `path`. Fails, removing the temp file, when the file changed during the
 * copy.
 */
export async function _replaceWithSlot(
  path: string,
  slot: Uint8Array,
  options: { dropFirstLine: boolean; sync: boolean },
  action: string,
): Promise<void> {
  const fs = _fs();
  using source = await fs.openHandle(path, { read: true });
  const before = await source.stat();
  const start = await _copyStart(source, options.dropFirstLine, action);
  const { temp, out } = await _createTemp(path);
  try {
    try {
      if (!_IS_WINDOWS) await fs.chmod(temp, _FILE_MODE);
      await _writeAll(out, slot);
      const copied = await _copyFrom(source, start, out);
      const now = await fs.stat(path);
      if (
        !_sameFile(now, before) || now.size !== before.size ||
        start + copied !== before.size
      ) {
        throw new Error(
          `${action}: the file changed during the copy (${before.size} bytes, then ${now.size})`,
        );
      }
      if (options.sync) await out.syncData();
    } finally {
      out.close();
    }
    await fs.rename(temp, path);
  } catch (err) {
    await _removeAfter(temp, err, action);
    throw _named(err, action);
  }
  if (options.sync) await _syncFolder(dirname(path));
}

/**
 * Where the copy of {@linkcode _replaceWithSlot} starts: after line 1 when it
 * is a title record to drop, else 0. Refuses when `dropFirstLine` disagrees
 * with line 1, since either mistake breaks the file for omp (a dropped header,
 * or a second title line where the header should be).
 */
async function _copyStart(
  source: _FsHandle,
  dropFirstLine: boolean,
  action: string,
): Promise<number> {
  const head = await _readUpTo(source, _TITLE_PREFIX.length);
  const isTitle = head.length === _TITLE_PREFIX.length &&
    head.every((byte, i) => byte === _TITLE_PREFIX[i]);
  if (isTitle !== dropFirstLine) {
    throw new Error(
      `${action}: line 1 ${
        isTitle ? "is" : "is not"
      } a title record, but dropFirstLine is ${dropFirstLine}`,
    );
  }
  if (!dropFirstLine) return 0;
  await source.seek(0, Deno.SeekMode.Start);
  const buf = new Uint8Array(64 * 1024);
  let offset = 0;
  for (;;) {
    const n = await source.read(buf);
    if (n === null || n === 0) return offset; // line 1 is the whole file
    const end = buf.subarray(0, n).indexOf(_NEWLINE);
    if (end >= 0) return offset + end + 1;
    offset += n;
  }
}

/** Copies `source` from `start` to its end into `out`; returns the bytes copied. */
async function _copyFrom(
  source: _FsHandle,
  start: number,
  out: _FsFile,
): Promise<number> {
  await source.seek(start, Deno.SeekMode.Start);
  const buf = new Uint8Array(_COPY_BUFFER_BYTES);
  let copied = 0;
  for (;;) {
    const n = await source.read(buf);
    if (n === null || n === 0) return copied;
    await _writeAll(out, buf.subarray(0, n));
    copied += n;
  }
}

/**
 * Creates `.<basename>.<random>.tmp` beside `target` with mode 0600 (the
 * caller still sets the mode against the umask, then removes the file when
 * writing it fails).
 */
export async function _createTemp(
  target: string,
): Promise<{ temp: string; out: _FsFile }> {
  const random = crypto.getRandomValues(new Uint8Array(6)).toHex();
  const temp = join(dirname(target), `.${basename(target)}.${random}.tmp`);
  const out = await _fs().open(temp, {
    write: true,
    createNew: true,
    mode: _FILE_MODE,
  });
  return { temp, out };
}

/** Whether two stats name one file (true where the OS gives no inode). */
export function _sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.ino === null || (a.ino === b.ino && a.dev === b.dev);
}

/** Makes the missing folders of `dir` (mode 0700), outermost first. */
export async function _makeFolders(path: string, dir: string): Promise<void> {
  const fs = _fs();
  const missing: string[] = [];
  for (let at = normalize(dir);;) {
    const info = await _statOrUndefined(at);
    if (info?.isDirectory) break;
    if (info !== undefined) {
      throw new Error(
        `Cannot create ${_quote(path)}: ${_quote(at)} is not a folder`,
      );
    }
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const folder of missing.reverse()) {
    try {
      await fs.mkdir(folder, { mode: _DIR_MODE });
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) continue; // not ours to chmod
      throw err;
    }
    if (!_IS_WINDOWS) await fs.chmod(folder, _DIR_MODE);
  }
}

async function _statOrUndefined(
  path: string,
): Promise<Deno.FileInfo | undefined> {
  try {
    return await _fs().stat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/** Flushes a folder's entries to disk (nothing on Windows). */
export async function _syncFolder(dir: string): Promise<void> {
  if (_IS_WINDOWS) return;
  using folder = await _fs().open(dir, { read: true });
  await folder.syncData();
}

/** Removes `path` after `cause`; a second failure is thrown with it. */
export function _removeAfter(
  path: string,
  cause: unknown,
  action: string,
): Promise<void> {
  return _removeAfterFailure(
    path,
    cause,
    `${action}: the write failed and ${_quote(path)} could not be removed`,
  );
}

/**
 * Removes `path` after `cause`. A file already gone is fine; any other
 * failure is thrown with `cause` in an `AggregateError` with `message`.
 */
export async function _removeAfterFailure(
  path: string,
  cause: unknown,
  message: string,
): Promise<void> {
  try {
    await _fs().remove(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw new AggregateError([cause, err], message);
  }
}

/** A path for an error message, JSON-quoted. */
export function _quote(path: unknown): string {
  return JSON.stringify(String(path));
}
