/**
 * The filesystem seam's types: what `src/_fs.ts` hands out, and what each
 * runtime's implementation (`src/_fs_deno.ts`, `src/_fs_node.ts`) fills.
 * Import them from `src/_fs.ts`, which re-exports them.
 *
 * @module
 */

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
