/**
 * Reading files through the seam: whole buffers, and positional reads.
 *
 * @module
 */

import { EventLoopTurns } from "./_turns.ts";
import { named } from "./_errors.ts";
import { type FsHandle, seam } from "./_seam.ts";

/** Sequential reads, as `Deno.FsFile` offers: `null` at the end. */
export interface Reader {
  /** Read up to `p.length` bytes into `p`; the count, or `null` at the end. */
  read(p: Uint8Array): Promise<number | null>;
}

/** Positional reads over a source of known size. */
export interface ReaderAt {
  /** The source's size in bytes. */
  size: number;
  /** Read up to `p.length` bytes at `position` into `p`; the count, 0 at the end. */
  readAt(p: Uint8Array, position: number): Promise<number>;
}

/**
 * Read into `buffer` until it is full or the file ends.
 *
 * @param file An open file.
 * @param buffer Where the bytes go.
 * @returns The bytes read, fewer than `buffer.length` only at the end.
 */
export async function readFull(
  file: Pick<FsHandle, "read">,
  buffer: Uint8Array,
): Promise<number> {
  let n = 0;
  while (n < buffer.length) {
    const got = await file.read(buffer.subarray(n));
    if (got === null || got === 0) break;
    n += got;
  }
  return n;
}

/**
 * {@linkcode readFull} through a file's synchronous reads.
 *
 * @param readSync The file's `readSync`, bound to it.
 * @param buffer Where the bytes go.
 * @returns The bytes read, fewer than `buffer.length` only at the end.
 */
export function readFullSync(
  readSync: (p: Uint8Array) => number | null,
  buffer: Uint8Array,
): number {
  let n = 0;
  while (n < buffer.length) {
    const got = readSync(buffer.subarray(n));
    if (got === null || got === 0) break;
    n += got;
  }
  return n;
}

/**
 * Read into `p` at `position` until it is full or the source ends.
 *
 * @param reader A positional reader.
 * @param p Where the bytes go.
 * @param position Where to read from.
 * @returns The bytes read, fewer than `p.length` only at the end.
 */
export async function readFullAt(
  reader: Pick<ReaderAt, "readAt">,
  p: Uint8Array,
  position: number,
): Promise<number> {
  let n = 0;
  while (n < p.length) {
    const got = await reader.readAt(p.subarray(n), position + n);
    if (got === 0) break;
    n += got;
  }
  return n;
}

/**
 * Positional reads over an open file, for a backward read.
 * Each read seeks then reads, so calls must not overlap (they do not in
 * `readLinesBackward`) and the file's cursor moves. The file is not closed.
 *
 * @param file An open file.
 * @param size The bytes to expose, usually `(await file.stat()).size`.
 * @param ownsCursor Whether only this reader moves the file's cursor while
 * it is used: a read where the last one ended then skips the seek (a
 * system call, ~5 µs here: ~0.5 ms of a 100 MB forward scan's 1 MiB reads).
 * @returns A {@linkcode ReaderAt} over the file ({@linkcode readAheadAt}'s
 * reads).
 *
 * @example Reading the first bytes of a file
 * ```ts
 * import { fileReaderAt } from "./_read.ts";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello\n");
 * using file = await Deno.open(path);
 * const source = fileReaderAt(file, 6);
 * const p = new Uint8Array(4);
 * assert.equal(await source.readAt(p, 1), 4);
 * assert.equal(new TextDecoder().decode(p), "ello");
 * await Deno.remove(path);
 * ```
 */
export function fileReaderAt(
  file: FsHandle,
  size: number,
  ownsCursor = false,
): ReaderAt {
  return readAheadAt(file, size, { ownsCursor });
}

/**
 * A {@linkcode ReaderAt} that can also start a read and let its caller go
 * on (reading ahead in a large file).
 */
export interface ReadAheadAt extends ReaderAt {
  /**
   * Start reading into `p` at `position`; the {@linkcode ReaderAt.readAt}
   * with the same `p` and `position` gives its count. `p` is not to be
   * touched before that. Any other read waits for it first, as they share
   * the file's cursor; a read ahead not taken is dropped by the next one.
   */
  readAhead(p: Uint8Array, position: number): void;
  /** Wait for a read still under way, as the file must not be closed under it. */
  settle(): Promise<void>;
}

/** What {@linkcode readAheadAt} reads with. */
export interface ReadAheadOptions {
  /** Whether only this reader moves the file's cursor (default true): see {@linkcode fileReaderAt}. */
  ownsCursor?: boolean;
  /** False to give the event loop no turns (the caller gives them). */
  turns?: boolean;
  /** Where the file's cursor is, when known (0 for a file just opened: its first read needs no seek). */
  position?: number;
}

interface _Ahead {
  p: Uint8Array;
  position: number;
  read: Promise<number>;
}

/**
 * Positional reads over an open file, and reads ahead. A read is
 * synchronous where the file offers it: a read from the page cache takes
 * less time than the two asynchronous round trips it would cost (~40 µs
 * each). A synchronous read gives the event loop no turn, so one is given
 * every ~20 ms of reading (without, an open of a 1 GB file held the loop
 * 1.3 s).
 *
 * A synchronous read is also a copy the calling thread makes itself: a
 * pass over a 512 MB file spends ~40 % of its time there. A read ahead is
 * asynchronous, so the runtime makes the copy on its I/O thread, and a
 * pass that asks for its next chunk before it works on this one pays only
 * for whichever is slower, the reads or its work. Each costs a round trip
 * between threads (~40 µs), which a small file does not repay: passes read
 * ahead only in large files, in large chunks.
 *
 * @param file An open file.
 * @param size The bytes to expose.
 * @param options Whether it owns the cursor, where it is, turns.
 * @returns The reader; the file is not closed by it (call `settle` first).
 *
 * @example A read ahead, then taken
 * ```ts
 * import { readAheadAt } from "./_read.ts";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello, world\n");
 * using file = await Deno.open(path);
 * const source = readAheadAt(file, 13);
 * const p = new Uint8Array(5);
 * source.readAhead(p, 7);
 * assert.equal(await source.readAt(p, 7), 5);
 * assert.equal(new TextDecoder().decode(p), "world");
 * await source.settle();
 * await Deno.remove(path);
 * ```
 */
export function readAheadAt(
  file: FsHandle,
  size: number,
  options: ReadAheadOptions = {},
): ReadAheadAt {
  const owns = options.ownsCursor ?? true;
  // Where the last read ended, when this reader owns the cursor; else -1.
  let cursor = owns ? options.position ?? -1 : -1;
  let ahead: _Ahead | undefined;
  const turns = options.turns === false ? undefined : new EventLoopTurns();
  const ended = (position: number, got: number) => {
    cursor = owns ? position + got : -1;
    return got;
  };
  return {
    size,
    readAhead(p, position) {
      // The read must start now, not after a microtask: those run only
      // once the caller's work (which it is to overlap) is done.
      const start = (): Promise<number> => {
        let read: Promise<number | null>;
        if (position === cursor) read = file.read(p);
        else if (file.seekSync !== undefined) {
          file.seekSync(position, Deno.SeekMode.Start);
          read = file.read(p);
        } else {
          read = file.seek(position, Deno.SeekMode.Start).then(() =>
            file.read(p)
          );
        }
        cursor = -1;
        return read.then((got) => ended(position, got ?? 0));
      };
      const before = ahead?.read; // not taken: dropped, once it is done
      const read = before === undefined
        ? start()
        : before.catch(() => 0).then(start);
      read.catch(() => {}); // its error goes to the read that takes it
      ahead = { p, position, read };
    },
    async readAt(p, position) {
      const a = ahead;
      if (a !== undefined) {
        if (
          a.position === position && a.p.buffer === p.buffer &&
          a.p.byteOffset === p.byteOffset && a.p.length === p.length
        ) {
          ahead = undefined;
          return await a.read;
        }
        await a.read.catch(() => {}); // its bytes stay for whoever takes them
      }
      if (file.seekSync !== undefined && file.readSync !== undefined) {
        const turn = turns?.give(); // undefined until ~20 ms went by
        if (turn !== undefined) await turn;
        if (position !== cursor) file.seekSync(position, Deno.SeekMode.Start);
        return ended(position, file.readSync(p) ?? 0);
      }
      if (position !== cursor) {
        await file.seek(position, Deno.SeekMode.Start);
      }
      return ended(position, (await file.read(p)) ?? 0);
    },
    async settle() {
      const a = ahead;
      ahead = undefined;
      await a?.read.catch(() => {});
    },
  };
}

/**
 * What a path holds, in words, when it is not a regular file.
 *
 * @param info The path's metadata.
 * @returns `a folder`, `a FIFO`, … or undefined for a regular file.
 */
export function notAFile(info: Deno.FileInfo): string | undefined {
  if (info.isFile) return undefined;
  if (info.isDirectory) return "a folder";
  if (info.isFifo) return "a FIFO (named pipe)";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (info.isSocket) return "a socket";
  return "not a regular file";
}

/**
 * Open a regular file for reading, failing fast on anything else: opening a
 * FIFO blocks until a writer comes, and a device such as `/dev/zero` never
 * ends. The type is checked before the open and again on the open handle
 * (the path may have been swapped in between).
 *
 * @param path The file.
 * @param action What the caller does, for errors: `Cannot open "a.jsonl"`.
 * @returns The open file; the caller closes it.
 * @throws {Error} Naming the action and the file when it is not a regular
 * file (the OS error as `cause` when it cannot be opened at all).
 */
export async function openRegular(
  path: string,
  action: string,
): Promise<FsHandle> {
  const fs = seam();
  const what = notAFile(
    await fs.stat(path).catch((err) => {
      throw _cannot(err, action);
    }),
  );
  if (what !== undefined) throw new Error(`${action}: it is ${what}`);
  const file = await fs.openHandle(path, { read: true });
  try {
    const again = notAFile(await file.stat());
    if (again !== undefined) throw new Error(`${action}: it is ${again}`);
  } catch (err) {
    file.close();
    throw err;
  }
  return file;
}

/** OS errors in the words people use, keeping the class and the cause. */
const _PLAIN: [
  new (message: string, options?: ErrorOptions) => Error,
  string,
][] = [
  [Deno.errors.NotFound, "no such file or directory"],
  [Deno.errors.PermissionDenied, "permission denied"],
  [Deno.errors.NotADirectory, "a part of the path is not a folder"],
];

function _cannot(err: unknown, action: string): unknown {
  for (const [Class, words] of _PLAIN) {
    if (err instanceof Class) {
      return new Class(`${action}: ${words}`, { cause: err });
    }
  }
  return named(err, action);
}
