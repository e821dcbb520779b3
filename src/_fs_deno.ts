/**
 * The filesystem seam on Deno ({@linkcode denoFs}): writes through the
 * `Deno` namespace, whose files take a `flock` (the lock's OS gate), and
 * reads through `node:fs/promises` ({@linkcode reader}). Nothing here
 * touches `Deno` until {@linkcode denoFs} is called, so this module loads
 * on every runtime; `src/_fs.ts` calls it only where Deno is the runtime.
 *
 * @module
 */

import { open } from "node:fs/promises";
import type { FileHandle, FileInfo, Fs } from "./_fs_types.ts";
import { reader, readOnly } from "./_fs_node.ts";

/** Deno's stat, in the seam's form. */
function _info(i: Deno.FileInfo): FileInfo {
  const kind = i.isFile
    ? "file"
    : i.isDirectory
    ? "directory"
    : i.isSymlink
    ? "symlink"
    : i.isFifo
    ? "fifo"
    : i.isSocket
    ? "socket"
    : i.isCharDevice
    ? "char-device"
    : "block-device";
  return {
    kind,
    size: i.size,
    mtimeMs: i.mtime?.getTime() ?? 0,
    birthtimeMs: i.birthtime?.getTime() ?? null,
    ino: i.ino ?? 0,
    dev: i.dev ?? 0,
    mode: i.mode ?? 0,
  };
}

/**
 * An open Deno file as a {@linkcode FileHandle}. Deno reads and writes at a
 * cursor, so a positional call seeks first, unless the cursor is already
 * there (a sequential read pays no seek). The seek and the read (or write)
 * of one call run before the next call's start, so calls made while one is
 * under way cannot interleave: positional calls overlap safely, as `pread`
 * and `pwrite` do. (Files opened only to read use {@linkcode reader}.)
 */
function _handle(file: Deno.FsFile, append: boolean): FileHandle {
  let cursor = 0; // -1: unknown
  let last: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = last.then(work, work);
    last = run.catch(() => {}); // the error is the caller's, from `run`
    return run;
  };
  const at = async (position: number) => {
    if (position !== cursor) {
      cursor = -1;
      await file.seek(position, Deno.SeekMode.Start);
      cursor = position;
    }
  };
  const close = () => {
    file.close();
    return Promise.resolve();
  };
  return {
    read: (p, position) =>
      serial(async () => {
        await at(position);
        cursor = -1;
        const n = (await file.read(p)) ?? 0;
        cursor = position + n;
        return n;
      }),
    write: (p, position) =>
      serial(async () => {
        if (append || position === undefined) cursor = -1;
        else await at(position);
        const from = cursor;
        cursor = -1;
        const n = await file.write(p);
        if (from >= 0) cursor = from + n;
        return n;
      }),
    stat: async () => _info(await file.stat()),
    truncate: (size) => serial(() => file.truncate(size)),
    syncData: () => file.syncData(),
    tryLock: () => file.tryLock(true),
    unlock: () => file.unlock(),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Deno's classes for the codes of {@linkcode Fs.error}. */
function _errors() {
  return {
    EEXIST: Deno.errors.AlreadyExists,
    ENOENT: Deno.errors.NotFound,
    ENOTDIR: Deno.errors.NotADirectory,
    ETIMEDOUT: Deno.errors.TimedOut,
    EWRITEZERO: Deno.errors.WriteZero, // not POSIX: a write that took 0 bytes
    EUNEXPECTEDEOF: Deno.errors.UnexpectedEof, // not POSIX: a file ended early
  } as const;
}

function _granted(descriptor: Deno.PermissionDescriptor): boolean {
  return Deno.permissions.querySync(descriptor).state === "granted";
}

/**
 * Asks only what the granted permissions allow (never prompts): `kill(pid,
 * 0)` with `--allow-run`, else `/proc/<pid>` on Linux; else alive (fail
 * closed: the wait for a lock then ends in a timeout).
 */
async function _isAlive(pid: number): Promise<boolean> {
  try {
    if (_granted({ name: "run" })) {
      // Signal 0 checks that the process exists without signalling it.
      Deno.kill(pid, 0 as unknown as Deno.Signal);
    } else if (
      Deno.build.os === "linux" && _granted({ name: "read", path: "/proc" })
    ) await Deno.stat(`/proc/${pid}`);
    return true;
  } catch (err) {
    return !(err instanceof Deno.errors.NotFound); // ESRCH, or no /proc/<pid>
  }
}

/**
 * The real filesystem, through the `Deno` namespace (reads through
 * `node:fs/promises`, see {@linkcode reader}).
 *
 * @returns The seam's Deno implementation; call it only on Deno.
 */
export function denoFs(): Fs {
  const errors = _errors();
  return {
    open: async (path, o) =>
      readOnly(o)
        ? reader(await open(path, "r"))
        : _handle(await Deno.open(path, o), o.append === true),
    stat: async (path) => _info(await Deno.stat(path)),
    lstat: async (path) => _info(await Deno.lstat(path)),
    readFile: (path) => Deno.readFile(path),
    readDir: (path) => Array.fromAsync(Deno.readDir(path)),
    mkdir: (path, mode) => Deno.mkdir(path, { mode }),
    chmod: (path, mode) => Deno.chmod(path, mode),
    rename: (from, to) => Deno.rename(from, to),
    link: (from, to) => Deno.link(from, to),
    utime: (path, atimeMs, mtimeMs) =>
      Deno.utime(path, new Date(atimeMs), new Date(mtimeMs)),
    remove: (path) => Deno.remove(path),
    realPath: (path) => Deno.realPath(path),
    watch: (path) => Deno.watchFs(path, { recursive: false }),
    windows: Deno.build.os === "windows",
    pid: Deno.pid,
    isAlive: _isAlive,
    error: (code, message, options) =>
      Object.assign(new errors[code](message, options), { code }),
  };
}
