/**
 * The private filesystem seam: every filesystem call the store makes goes
 * through {@linkcode seam}, so a test can swap in a filesystem that writes
 * short, runs out of space or fails between write and rename.
 *
 * Tests override it with {@linkcode setSeam}, which returns the function that
 * restores the previous one:
 *
 * ```ts ignore
 * const restore = setSeam({ ...realFs, rename: () => Promise.reject(new Error("crash")) });
 * try { ... } finally { restore(); }
 * ```
 *
 * Never exported from `mod.ts`.
 *
 * @module
 */

/** The part of an open file the store uses; `Deno.FsFile` satisfies it. */
export interface FsFile extends Disposable {
  /** Writes some of `p`; returns how many bytes were written (maybe fewer). */
  write(p: Uint8Array): Promise<number>;
  /**
   * The same, synchronously: used where present (a real file), since an
   * asynchronous call costs ~40 µs; a test double leaves it out to have
   * every write go through `write`.
   */
  writeSync?(p: Uint8Array): number;
  /** Flushes the file's data (not necessarily its metadata) to disk. */
  syncData(): Promise<void>;
  /** Closes the handle. */
  close(): void;
}

/**
 * An open file that can also be read, positioned, cut and locked (the session
 * writer's needs); `Deno.FsFile` satisfies it.
 */
export interface FsHandle extends FsFile {
  /** Reads into `p` from the current position; null at end of file. */
  read(p: Uint8Array): Promise<number | null>;
  /** Moves the position; returns the new position from the start. */
  seek(offset: number, whence: Deno.SeekMode): Promise<number>;
  /** Cuts (or extends with zeros) the file to `len` bytes. */
  truncate(len?: number): Promise<void>;
  /** The open file's metadata (`fstat`). */
  stat(): Promise<Deno.FileInfo>;
  /** The same, synchronously: used where present, as `writeSync` is. */
  statSync?(): Deno.FileInfo;
  /** Reads synchronously from the current position: used where present. */
  readSync?(p: Uint8Array): number | null;
  /** Moves the position synchronously: used where present. */
  seekSync?(offset: number, whence: Deno.SeekMode): number;
  /** Takes an advisory lock (`flock` on Unix) without blocking; false when held. */
  tryLock(exclusive?: boolean): Promise<boolean>;
  /** Releases the advisory lock. */
  unlock(): Promise<void>;
}

/**
 * An open file for the lock's short synchronous calls; `Deno.FsFile`
 * satisfies it.
 */
export interface FsSyncFile extends Disposable {
  /** Writes some of `p` synchronously. */
  writeSync(p: Uint8Array): number;
  /** The open file's metadata (`fstat`). */
  statSync(): Deno.FileInfo;
  /** Takes an advisory lock without blocking; false when held. */
  tryLockSync(exclusive?: boolean): boolean;
  /** Releases the advisory lock. */
  unlockSync(): void;
  /** Reads from the current position (a real file has it: a many-file read opens each synchronously). */
  readSync?(p: Uint8Array): number | null;
  /** Moves the position (a real file has it). */
  seekSync?(offset: number, whence: Deno.SeekMode): number;
  /** Closes the handle. */
  close(): void;
}

/** The filesystem operations the store uses, each as `Deno.*` defines it. */
export interface Fs {
  open(path: string, options: Deno.OpenOptions): Promise<FsFile>;
  /** `Deno.open`, typed for the calls in {@linkcode FsHandle}. */
  openHandle(path: string, options: Deno.OpenOptions): Promise<FsHandle>;
  mkdir(path: string, options?: Deno.MkdirOptions): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  stat(path: string): Promise<Deno.FileInfo>;
  lstat(path: string): Promise<Deno.FileInfo>;
  readFile(path: string): Promise<Uint8Array>;
  rename(oldPath: string, newPath: string): Promise<void>;
  link(oldPath: string, newPath: string): Promise<void>;
  remove(path: string): Promise<void>;
  realPath(path: string): Promise<string>;
  /**
   * Synchronous calls for the lock taken around every append: a handful of
   * tiny operations where each asynchronous call would cost ~40 µs.
   */
  openSync(path: string, options: Deno.OpenOptions): FsSyncFile;
  readFileSync(path: string): Uint8Array;
  removeSync(path: string): void;
  statSync(path: string): Deno.FileInfo;
  lstatSync(path: string): Deno.FileInfo;
  chmodSync(path: string, mode: number): void;
  /**
   * A folder's entries, read at once: listing 100 folders of 10,000
   * sessions took 100–240 ms through `Deno.readDir`, 14–41 ms this way.
   */
  readDirSync(path: string): Iterable<Deno.DirEntry>;
}

/** The real filesystem, backed by the `Deno` namespace. */
export const realFs: Fs = {
  open: (path, options) => Deno.open(path, options),
  openHandle: (path, options) => Deno.open(path, options),
  mkdir: (path, options) => Deno.mkdir(path, options),
  chmod: (path, mode) => Deno.chmod(path, mode),
  stat: (path) => Deno.stat(path),
  lstat: (path) => Deno.lstat(path),
  readFile: (path) => Deno.readFile(path),
  rename: (oldPath, newPath) => Deno.rename(oldPath, newPath),
  link: (oldPath, newPath) => Deno.link(oldPath, newPath),
  remove: (path) => Deno.remove(path),
  realPath: (path) => Deno.realPath(path),
  openSync: (path, options) => Deno.openSync(path, options),
  readFileSync: (path) => Deno.readFileSync(path),
  removeSync: (path) => Deno.removeSync(path),
  statSync: (path) => Deno.statSync(path),
  lstatSync: (path) => Deno.lstatSync(path),
  chmodSync: (path, mode) => Deno.chmodSync(path, mode),
  readDirSync: (path) => Deno.readDirSync(path),
};

let current: Fs = realFs;

/** The filesystem in use: {@linkcode realFs} unless a test swapped it. */
export function seam(): Fs {
  return current;
}

/**
 * Uses `fs` for every filesystem call until the returned function is called.
 *
 * @param fs The replacement, typically `{ ...realFs, <one faulty call> }`.
 * @returns A function that restores the filesystem in use before this call.
 */
export function setSeam(fs: Fs): () => void {
  const previous = current;
  current = fs;
  return () => {
    current = previous;
  };
}

/**
 * Writes all of `bytes`, looping on short writes.
 *
 * @param file An open file.
 * @param bytes What to write.
 * @throws {Deno.errors.WriteZero} When a write makes no progress.
 */
export async function writeAll(
  file: FsFile,
  bytes: Uint8Array,
): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const rest = bytes.subarray(offset);
    const n = file.writeSync === undefined
      ? await file.write(rest)
      : file.writeSync(rest);
    if (n <= 0) {
      throw new Deno.errors.WriteZero(
        `Cannot write: the file took 0 bytes at byte ${offset} of ${bytes.length}`,
      );
    }
    offset += n;
  }
}

/** Whether running on Windows, where POSIX modes and directory fsync do not apply. */
export const IS_WINDOWS: boolean = Deno.build.os === "windows";
