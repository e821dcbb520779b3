/**
 * The filesystem seam on Node and Bun ({@linkcode nodeFs}), over
 * `node:fs/promises` alone, and the read-only handle every runtime uses
 * ({@linkcode reader}). Errors are Node's own: an `Error` with its POSIX
 * `code` (`ENOENT`, ...), which `isNotFound` in `_fs.ts` reads on every
 * runtime.
 *
 * What Node and Bun lack, and what stands in: `node:fs` has no `flock`, so
 * {@linkcode FileHandle.tryLock} always takes the lock gate here; the
 * lock file (an exclusive create, omp's own layer) then orders writers,
 * across runtimes and against omp, as omp orders them on Linux. Folder
 * events come from `fs.watch`, whose names are relative: each is joined to
 * its folder, as Deno's are.
 *
 * @module
 */

import {
  chmod,
  constants,
  type FileHandle as NodeFileHandle,
  link,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  realpath,
  rename,
  rmdir,
  stat,
  unlink,
  utimes,
  watch,
} from "node:fs/promises";
import type { Stats } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type {
  FileHandle,
  FileInfo,
  Fs,
  FsEvents,
  OpenOptions,
} from "./_fs_types.ts";

/** An error's `code` (`_fs.ts` has the same; imported, it would make a cycle). */
const _code = (err: unknown) => (err as { code?: unknown } | null)?.code;

/**
 * A file opened only to read, through `node:fs/promises`: its positional
 * reads run on the runtime's I/O threads while JavaScript works on the
 * bytes read before, so a read issued ahead overlaps that work (a
 * `Deno.FsFile` read does its work only once awaited). Readers take no
 * lock and write nothing; such calls fail as on any read-only file.
 */
export function reader(file: NodeFileHandle): FileHandle {
  const close = () => file.close();
  const readOnly = () =>
    Promise.reject(
      Object.assign(new Error("Cannot write to a file opened only to read"), {
        code: "EBADF",
      }),
    );
  return {
    read: async (p, position) =>
      p.length === 0
        ? 0
        : (await file.read(p, 0, p.length, position)).bytesRead,
    write: readOnly,
    stat: async () => _nodeInfo(await file.stat()),
    truncate: readOnly,
    syncData: () => file.datasync(),
    tryLock: readOnly,
    unlock: readOnly,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** `node:fs`'s stat, in the seam's form (the times as Deno's, whole ms). */
function _nodeInfo(s: Stats): FileInfo {
  const kind = s.isFile()
    ? "file"
    : s.isDirectory()
    ? "directory"
    : s.isSymbolicLink()
    ? "symlink"
    : s.isFIFO()
    ? "fifo"
    : s.isSocket()
    ? "socket"
    : s.isCharacterDevice()
    ? "char-device"
    : "block-device";
  const birth = s.birthtime?.getTime();
  return {
    kind,
    size: s.size,
    mtimeMs: s.mtime?.getTime() ?? 0,
    birthtimeMs: birth === undefined || Number.isNaN(birth) ? null : birth,
    ino: s.ino ?? 0,
    dev: s.dev ?? 0,
    mode: s.mode ?? 0,
  };
}

/**
 * Whether an open is only to read (no write, append, create or cut).
 *
 * @param o How the file is to be opened.
 * @returns True when {@linkcode reader} serves it.
 */
export function readOnly(o: OpenOptions): boolean {
  return o.read === true && !o.write && !o.append && !o.create &&
    !o.createNew && !o.truncate;
}

/** `open(2)` flags for the seam's options, as Deno maps them. */
function _flags(o: OpenOptions): number {
  const c = constants;
  const writes = o.write === true || o.append === true;
  let flags = writes ? (o.read ? c.O_RDWR : c.O_WRONLY) : c.O_RDONLY;
  if (o.append) flags |= c.O_APPEND;
  if (o.createNew) flags |= c.O_CREAT | c.O_EXCL;
  else if (o.create) flags |= c.O_CREAT;
  if (o.truncate) flags |= c.O_TRUNC;
  return flags;
}

/**
 * An open file for writing: `pread`/`pwrite` through the handle (an append
 * handle's writes land at the end whatever the position, by `O_APPEND`).
 * There is no `flock` in `node:fs`: the gate is always had (see the module
 * note).
 */
function _writer(file: NodeFileHandle, append: boolean): FileHandle {
  const close = () => file.close();
  return {
    read: async (p, position) =>
      p.length === 0
        ? 0
        : (await file.read(p, 0, p.length, position)).bytesRead,
    write: async (p, position) =>
      (await file.write(
        p,
        0,
        p.length,
        append || position === undefined ? null : position,
      )).bytesWritten,
    stat: async () => _nodeInfo(await file.stat()),
    truncate: (size) => file.truncate(size),
    syncData: () => file.datasync(),
    tryLock: () => Promise.resolve(true),
    unlock: () => Promise.resolve(),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A folder's events through `fs.watch`, its names made paths. */
function _watch(path: string): FsEvents {
  const stop = new AbortController();
  const events = watch(path, { signal: stop.signal });
  return {
    close: () => stop.abort(),
    async *[Symbol.asyncIterator]() {
      try {
        for await (const { filename } of events) {
          yield { paths: filename === null ? [] : [join(path, filename)] };
        }
      } catch (err) {
        if (!stop.signal.aborted) throw err; // closed: the events just end
      }
    },
  };
}

/**
 * `kill(pid, 0)`: only "no such process" (`ESRCH`) counts as gone; a
 * process of another user (`EPERM`) is alive.
 */
function _isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
    return Promise.resolve(true);
  } catch (err) {
    return Promise.resolve(_code(err) !== "ESRCH");
  }
}

/** A file's or an empty folder's removal, as `Deno.remove` does both. */
async function _remove(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    const code = _code(err);
    if (code !== "EISDIR" && code !== "EPERM") throw err;
    await rmdir(path);
  }
}

/** The real filesystem through `node:fs/promises`: the seam on Node and Bun. */
export const nodeFs: Fs = {
  open: async (path, o) =>
    readOnly(o)
      ? reader(await open(path, "r"))
      : _writer(await open(path, _flags(o), o.mode), o.append === true),
  stat: async (path) => _nodeInfo(await stat(path)),
  lstat: async (path) => _nodeInfo(await lstat(path)),
  readFile: async (path) => new Uint8Array(await readFile(path)),
  readDir: async (path) =>
    (await readdir(path, { withFileTypes: true })).map((d) => ({
      name: d.name,
      isFile: d.isFile(),
      isDirectory: d.isDirectory(),
      isSymlink: d.isSymbolicLink(),
    })),
  mkdir: (path, mode) => mkdir(path, { mode }).then(() => {}),
  chmod: (path, mode) => chmod(path, mode),
  rename: (from, to) => rename(from, to),
  link: (from, to) => link(from, to),
  utime: (path, atimeMs, mtimeMs) =>
    utimes(path, new Date(atimeMs), new Date(mtimeMs)),
  remove: _remove,
  realPath: (path) => realpath(path),
  watch: _watch,
  windows: process.platform === "win32",
  pid: process.pid,
  isAlive: _isAlive,
  error: (code, message, options) =>
    Object.assign(new Error(message, options), { code }),
};
