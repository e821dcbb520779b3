/**
 * The filesystem seam: every filesystem call the store makes goes through
 * {@linkcode fs}, and this is the one module that knows the runtime. It is
 * asynchronous only, and small on purpose: an implementation over
 * `node:fs/promises` (for Node and Bun) fills the same {@linkcode Fs} and
 * slots in with {@linkcode setFs}, without touching the rest.
 *
 * Tests swap it the same way to make a write come back short, a disk run
 * full, or a crash fall between a write and a rename:
 *
 * ```ts ignore
 * const restore = setFs({ ...denoFs, rename: () => Promise.reject(new Error("crash")) });
 * try { ... } finally { restore(); }
 * ```
 *
 * Errors are the runtime's own (Deno's `Deno.errors.*`), each with its POSIX
 * `code` (`ENOENT`, `EEXIST`, ...); code elsewhere asks {@linkcode isNotFound}
 * and {@linkcode errorCode}, never a runtime's error class. Never exported
 * from `mod.ts`.
 *
 * @module
 */

import { type FileHandle as NodeFileHandle, open } from "node:fs/promises";
import type { Stats } from "node:fs";

/** What a stat says of a path, in the form every runtime can give. */
export interface FileInfo {
  /** `file`, `directory`, `symlink`, or what else sits there. */
  kind:
    | "file"
    | "directory"
    | "symlink"
    | "fifo"
    | "socket"
    | "char-device"
    | "block-device";
  /** Bytes. */
  size: number;
  /** Last modification, ms since the epoch (0 when unknown). */
  mtimeMs: number;
  /** Creation, ms since the epoch, where the platform records it. */
  birthtimeMs: number | null;
  /** Inode and device (0 where the platform has none). */
  ino: number;
  dev: number;
  /** Permission bits and type, as `st_mode` (0 where unknown). */
  mode: number;
}

/** How to open a file (the flags of `open(2)` the store uses). */
export interface OpenOptions {
  read?: boolean;
  write?: boolean;
  /** Every write lands at the end, whatever its position. */
  append?: boolean;
  /** Create the file when missing. */
  create?: boolean;
  /** Create the file, failing (`EEXIST`) when it exists. */
  createNew?: boolean;
  /** Cut the file to 0 bytes when it is opened. */
  truncate?: boolean;
  /** Permission bits of a file created (before the umask). */
  mode?: number;
}

/** An open file: positional reads and writes, as `node:fs/promises` has them. */
export interface FileHandle extends AsyncDisposable {
  /** Reads up to `p.length` bytes at `position` into `p`; the count, 0 at the end. */
  read(p: Uint8Array, position: number): Promise<number>;
  /**
   * Writes some of `p` at `position` (at the end, for an append handle or
   * without a position); the count, which may be short.
   */
  write(p: Uint8Array, position?: number): Promise<number>;
  /** The open file's metadata (`fstat`). */
  stat(): Promise<FileInfo>;
  /** Cuts (or extends with zeros) the file to `size` bytes. */
  truncate(size: number): Promise<void>;
  /** Flushes the file's data to disk. */
  syncData(): Promise<void>;
  /** Takes an exclusive advisory lock (`flock`) without waiting; false when held. */
  tryLock(): Promise<boolean>;
  /** Releases the advisory lock. */
  unlock(): Promise<void>;
  /** Closes the file. */
  close(): Promise<void>;
}

/** A folder's entry. */
export interface DirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

/** A folder's change events (`close` ends them), as `fs.watch` gives them. */
export interface FsEvents extends AsyncIterable<{ paths: string[] }> {
  close(): void;
}

/** The filesystem operations the store uses. */
export interface Fs {
  open(path: string, options: OpenOptions): Promise<FileHandle>;
  /** Metadata, links followed. */
  stat(path: string): Promise<FileInfo>;
  /** Metadata of the path itself (a link is a link). */
  lstat(path: string): Promise<FileInfo>;
  readFile(path: string): Promise<Uint8Array>;
  readDir(path: string): Promise<DirEntry[]>;
  mkdir(path: string, mode: number): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  link(from: string, to: string): Promise<void>;
  /** Sets a path's access and modification times (ms since the epoch), links followed. */
  utime(path: string, atimeMs: number, mtimeMs: number): Promise<void>;
  remove(path: string): Promise<void>;
  realPath(path: string): Promise<string>;
  /** Events for changes to the entries of a folder (not its subfolders). */
  watch(path: string): FsEvents;
  /** Whether modes and folder syncs are meaningless here (Windows). */
  readonly windows: boolean;
  /** This process's id (a lock file's record names it). */
  readonly pid: number;
  /**
   * Whether a process exists (omp's `isPidAlive`): only "no such process"
   * counts as gone, and where the runtime may not ask, it counts as alive.
   */
  isAlive(pid: number): Promise<boolean>;
  /**
   * An error of the runtime's own kind for `code`, carrying it: what the
   * store throws for a failure it finds itself (a name taken, a lock not
   * had in time, a write that took no bytes, a folder missing, a
   * file that ended early).
   */
  error(code: ErrorCode, message: string, options?: ErrorOptions): Error;
}

/** The codes of the errors the store makes itself ({@linkcode Fs.error}). */
export type ErrorCode =
  | "EEXIST"
  | "ENOENT"
  | "ENOTDIR"
  | "ETIMEDOUT"
  | "EWRITEZERO"
  | "EUNEXPECTEDEOF";

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
 * and `pwrite` do. (Files opened only to read use {@linkcode _reader}.)
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
const _ERRORS = {
  EEXIST: Deno.errors.AlreadyExists,
  ENOENT: Deno.errors.NotFound,
  ENOTDIR: Deno.errors.NotADirectory,
  ETIMEDOUT: Deno.errors.TimedOut,
  EWRITEZERO: Deno.errors.WriteZero, // not POSIX: a write that took 0 bytes
  EUNEXPECTEDEOF: Deno.errors.UnexpectedEof, // not POSIX: a file ended early
} as const;

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
 * A file opened only to read, through `node:fs/promises`: its positional
 * reads run on the runtime's I/O threads while JavaScript works on the
 * bytes read before, so a read issued ahead overlaps that work (a
 * `Deno.FsFile` read does its work only once awaited). Readers take no
 * lock and write nothing; such calls fail as on any read-only file.
 */
function _reader(file: NodeFileHandle): FileHandle {
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

/** Whether an open is only to read (no write, append, create or cut). */
function _readOnly(o: OpenOptions): boolean {
  return o.read === true && !o.write && !o.append && !o.create &&
    !o.createNew && !o.truncate;
}

/** The real filesystem, through the `Deno` namespace (reads through `node:fs/promises`, see {@linkcode _reader}). */
export const denoFs: Fs = {
  open: async (path, o) =>
    _readOnly(o)
      ? _reader(await open(path, "r"))
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
    Object.assign(new _ERRORS[code](message, options), { code }),
};

let _current: Fs = denoFs;

/** The filesystem in use: {@linkcode denoFs} unless it was swapped. */
export function fs(): Fs {
  return _current;
}

/**
 * Use `next` for every filesystem call until the returned function is called.
 *
 * @param next The replacement, typically `{ ...denoFs, <one faulty call> }`.
 * @returns A function that restores the filesystem in use before this call.
 */
export function setFs(next: Fs): () => void {
  const previous = _current;
  _current = next;
  return () => {
    _current = previous;
  };
}

/**
 * The POSIX code of a filesystem error (`ENOENT`, `EEXIST`, ...).
 *
 * @param err What was thrown.
 * @returns Its code, or undefined.
 */
export function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Whether an error says nothing is at the path.
 *
 * @param err What was thrown.
 * @returns True for `ENOENT`.
 */
export function isNotFound(err: unknown): boolean {
  return errorCode(err) === "ENOENT";
}

/**
 * Whether an error says this process may not look at the path: `EACCES`,
 * `EPERM`, or a runtime's sandbox refusing (Deno's permissions throw a
 * `NotCapable` that carries no code).
 *
 * @param err What was thrown.
 * @returns True for a refusal.
 */
export function isDenied(err: unknown): boolean {
  const code = errorCode(err);
  return code === "EACCES" || code === "EPERM" ||
    (err instanceof Error && err.name === "NotCapable");
}

/**
 * A path's metadata, or undefined when nothing is there.
 *
 * @param path The path.
 * @returns Its metadata (links followed), or undefined.
 */
export async function statOrUndefined(
  path: string,
): Promise<FileInfo | undefined> {
  try {
    return await fs().stat(path);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * A path's own metadata (a link is a link, a dangling one too), or
 * undefined when nothing is there.
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
 * What a path holds, in words, when it is not a regular file: the reason
 * a reader refuses it (opening a FIFO waits for a writer; a device may never
 * end).
 *
 * @param info The path's metadata.
 * @returns `a folder`, `a FIFO (named pipe)`, ..., or undefined for a file.
 */
export function notAFile(info: FileInfo): string | undefined {
  switch (info.kind) {
    case "file":
      return undefined;
    case "directory":
      return "a folder";
    case "symlink":
      return "a symbolic link";
    case "fifo":
      return "a FIFO (named pipe)";
    case "socket":
      return "a socket";
    case "char-device":
      return "a character device";
    default:
      return "a block device";
  }
}
