/**
 * A small file read whole, once: what several readers of one file (its head,
 * its windowed read, the hash before an offset, the index's facets) read
 * from memory instead of each opening, seeking and reading the file
 * through asynchronous calls. A refresh of 10,000 small sessions made
 * ~14 such calls a file, ~20 µs each here, against a synchronous open, stat,
 * read and close of ~15 µs in all.
 *
 * @module
 */

import { readFullSync } from "./_read.ts";
import { type FsHandle, seam } from "./_seam.ts";

/**
 * The largest file the passes over many files (an index refresh, a search
 * scan) read whole into a snapshot; a larger one is read in blocks, where
 * the calls cost little beside the bytes.
 */
export const SNAPSHOT_BYTES = 1 << 20;

/** Where a file's bytes are read from: the file itself, or a snapshot of it. */
export type ReadFrom = string | FileSnapshot;

/** The bytes and metadata of a file as one read found them. */
export class FileSnapshot {
  /** The file. */
  readonly path: string;
  /** Its bytes. */
  readonly bytes: Uint8Array;
  /** Its metadata when they were read (`size` is theirs). */
  readonly info: Deno.FileInfo;

  /**
   * @param path The file.
   * @param bytes Its bytes.
   * @param info Its metadata.
   */
  constructor(path: string, bytes: Uint8Array, info: Deno.FileInfo) {
    this.path = path;
    this.bytes = bytes;
    this.info = { ...info, size: bytes.length };
  }

  /**
   * A read-only handle over the bytes, with its own position: every read
   * and seek is synchronous (the asynchronous ones settle at once).
   *
   * @returns The handle; closing it does nothing.
   */
  handle(): FsHandle {
    const { bytes, info, path } = this;
    let position = 0;
    const readSync = (p: Uint8Array): number | null => {
      if (p.length === 0) return 0;
      if (position >= bytes.length) return null;
      const n = Math.min(p.length, bytes.length - position);
      p.set(bytes.subarray(position, position + n));
      position += n;
      return n;
    };
    const seekSync = (offset: number, whence: Deno.SeekMode): number => {
      const base = whence === Deno.SeekMode.Current
        ? position
        : whence === Deno.SeekMode.End
        ? bytes.length
        : 0;
      if (base + offset < 0) {
        throw new TypeError(`Cannot seek before the start of "${path}"`);
      }
      return position = base + offset;
    };
    const readOnly = (): never => {
      throw new Deno.errors.PermissionDenied(
        `Cannot write: "${path}" is a snapshot, read-only`,
      );
    };
    return {
      read: (p) => Promise.resolve(readSync(p)),
      readSync,
      seek: (offset, whence) => Promise.resolve(seekSync(offset, whence)),
      seekSync,
      stat: () => Promise.resolve(info),
      statSync: () => info,
      write: readOnly,
      truncate: readOnly,
      syncData: () => Promise.resolve(),
      tryLock: readOnly,
      unlock: readOnly,
      close: () => {},
      [Symbol.dispose]: () => {},
    };
  }
}

/**
 * Read a regular file of at most `maxBytes` whole, synchronously (an open,
 * a stat, a read and a close).
 *
 * @param path The file.
 * @param info Its metadata, from a stat just made: nothing but a regular
 * file is opened (opening a FIFO waits for a writer).
 * @param maxBytes The largest file taken.
 * @param into A buffer to read it into, where it fits (no garbage left per
 * file): the snapshot is then valid until the buffer is used again.
 * @returns The snapshot, or undefined for a larger file, anything but a
 * regular file, a file the seam cannot read synchronously or one that
 * fails to read (its readers then open it and report why).
 */
export function takeSnapshot(
  path: string,
  info: Pick<Deno.FileInfo, "isFile" | "size">,
  maxBytes: number,
  into?: Uint8Array,
): FileSnapshot | undefined {
  if (!info.isFile || info.size > maxBytes) return undefined;
  try {
    using file = seam().openSync(path, { read: true });
    if (file.readSync === undefined) return undefined;
    const now = file.statSync();
    if (!now.isFile || now.size > maxBytes) return undefined;
    const bytes = into !== undefined && now.size <= into.length
      ? into.subarray(0, now.size)
      : new Uint8Array(now.size);
    const n = readFullSync(file.readSync.bind(file), bytes);
    return new FileSnapshot(path, bytes.subarray(0, n), now);
  } catch {
    return undefined;
  }
}

/**
 * The file's path.
 *
 * @param from A path or a snapshot.
 * @returns The path.
 */
export function pathOf(from: ReadFrom): string {
  return typeof from === "string" ? from : from.path;
}

/**
 * Open the file to read it: the file itself, or the snapshot's handle.
 *
 * @param from A path or a snapshot.
 * @returns The handle; the caller closes it.
 */
export async function openToRead(from: ReadFrom): Promise<FsHandle> {
  return typeof from === "string"
    ? await seam().openHandle(from, { read: true })
    : from.handle();
}
