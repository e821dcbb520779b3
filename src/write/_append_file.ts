/**
 * The session file a writer appends to: its append handle, what the writer
 * knows of it (identity, size, a torn tail), opening and creating it,
 * catching up, under the lock, with what other writers did to it, and
 * appending a batch of lines in one write, cut back when it fails.
 *
 * Lines are written whole: a batch is one write call (looping on short
 * writes) through the append handle; after a torn last line (a crash mid
 * append, or another writer's) a `"\n"` goes first, so the torn bytes stay
 * alone on their line and nothing new is lost (omp does not check, and
 * glues its next line to the torn one).
 *
 * @module
 */

import { dirname } from "node:path";
import { errorCode, type FileHandle, type FileInfo, fs } from "../_fs.ts";
import { named, quote } from "../format/errors.ts";
import {
  createFile,
  NEWLINE,
  removeAfter,
  sameFile,
  syncFolder,
  undoAfter,
  writeAll,
} from "./_files.ts";

const _encoder = new TextEncoder();

/** An open session file, appended to through an append-mode handle. */
export class AppendFile {
  readonly path: string;
  /** Bytes in the file as far as the writer knows; -1 when unknown. */
  size: number;
  /** Whether the file ends in anything but `"\n"`. */
  tornTail: boolean;
  #handle: FileHandle;
  /** The open file's identity (inode and device), from `fstat` at open. */
  #info: FileInfo;

  private constructor(path: string, opened: _Opened) {
    this.path = path;
    this.#handle = opened.handle;
    this.#info = opened.info;
    this.size = opened.info.size;
    this.tornTail = opened.tornTail;
  }

  /**
   * Open an existing regular file for appending and read its last byte.
   *
   * @param path The session file.
   * @returns The open file.
   * @throws {Error} `ENOENT` when the file does not exist; an `Error` when
   * it is not a regular file.
   */
  static async open(path: string): Promise<AppendFile> {
    return new AppendFile(path, await _open(path));
  }

  /**
   * Create `path` (mode 0600 whatever the umask), which must not exist,
   * and write `body`; the caller holds the lock. A failed write removes
   * the file.
   *
   * @param path The session file.
   * @param body Its whole first content.
   * @param sync Flush the file and its folder.
   * @returns The open file.
   * @throws {Error} `EEXIST`: `Cannot create "<path>": it already exists`.
   */
  static async create(
    path: string,
    body: Uint8Array,
    sync: boolean,
  ): Promise<AppendFile> {
    const action = `Cannot create ${quote(path)}`;
    let handle: FileHandle;
    try {
      handle = await createFile(path, { read: true, append: true }, action);
    } catch (err) {
      if (errorCode(err) !== "EEXIST") throw named(err, action);
      const message = `${action}: it already exists`;
      throw fs().error("EEXIST", message, { cause: err });
    }
    try {
      await writeAll(handle, body);
      if (sync) {
        await handle.syncData();
        await syncFolder(dirname(path));
      }
      const info = await handle.stat();
      return new AppendFile(path, { handle, info, tornTail: false });
    } catch (err) {
      await handle.close();
      const why = `the write failed and ${quote(path)} could not be removed`;
      await removeAfter(path, err, `${action}: ${why}`);
      throw named(err, action);
    }
  }

  /**
   * The file's size now; the caller holds the lock. When another writer
   * renamed a new file over the path (omp's `#reopenIfReplaced`), the path
   * is opened again; when another writer changed its size, its last byte is
   * read again. One `stat` of the path when nothing changed.
   *
   * @returns The size.
   */
  async current(): Promise<number> {
    let live: FileInfo;
    try {
      live = await fs().stat(this.path);
    } catch (err) {
      if (errorCode(err) !== "ENOENT") throw err;
      live = await this.#handle.stat(); // removed: omp keeps its handle too
    }
    if (!sameFile(live, this.#info)) {
      await this.reopen();
      live = this.#info;
    }
    if (live.size !== this.size) {
      this.tornTail = await _endsTorn(this.#handle, live.size);
    }
    return live.size;
  }

  /**
   * Open the path again (a new file was renamed over it). The old handle
   * is closed only once the new one is open and read.
   */
  async reopen(): Promise<void> {
    const next = await _open(this.path);
    await this.#handle.close();
    this.#handle = next.handle;
    this.#info = next.info;
    this.size = next.info.size;
    this.tornTail = next.tornTail;
  }

  /**
   * Append `bytes` to the file of `old` bytes ({@linkcode current}), after
   * a `"\n"` when its last line is torn; in one write call (looping on short
   * writes), flushed with `sync`. A failed write is cut back to `old` bytes.
   *
   * @param bytes Whole lines, each ending in `"\n"`.
   * @param old The file's size under the lock.
   * @param sync Flush before returning.
   * @param action For errors: `Cannot append to "a.jsonl"`.
   * @throws {Error} The write's error named with `action` (the cut back
   * done), or an `AggregateError` of both when the cut fails too.
   */
  async append(
    bytes: Uint8Array,
    old: number,
    sync: boolean,
    action: string,
  ): Promise<void> {
    if (bytes.length === 0) return;
    const payload = this.payload(bytes);
    try {
      await writeAll(this.#handle, payload);
      if (sync) await this.#handle.syncData();
    } catch (err) {
      throw await undoAfter(
        err,
        () => this.#handle.truncate(old),
        action,
        `${action}: the write failed and its partial bytes could not be cut off`,
      );
    }
    this.size = old + payload.length;
    this.tornTail = false;
  }

  /**
   * Open the file for positional writes (not in append mode: positional
   * writes through an append handle land at the end on Linux), checking it
   * is the file appended to.
   *
   * @param action For errors: `Cannot rename "a.jsonl"`.
   * @returns The open file; the caller closes it.
   */
  async openPositional(action: string): Promise<FileHandle> {
    const file = await fs().open(this.path, { read: true, write: true })
      .catch((err) => {
        throw named(err, action);
      });
    try {
      if (!sameFile(await file.stat(), this.#info)) {
        throw new Error(`${action}: the file was replaced during the rename`);
      }
      return file;
    } catch (err) {
      await file.close();
      throw named(err, action);
    }
  }

  /**
   * `bytes` as the next append writes them: after a `"\n"` when the file's
   * last line is torn.
   *
   * @param bytes Whole lines, or nothing.
   * @returns The bytes to write.
   */
  payload(bytes: Uint8Array): Uint8Array {
    if (!this.tornTail || bytes.length === 0) return bytes;
    const out = new Uint8Array(bytes.length + 1);
    out[0] = NEWLINE;
    out.set(bytes, 1);
    return out;
  }

  /** Close the handle. */
  async close(): Promise<void> {
    await this.#handle.close();
  }
}

/** An append handle, its stat at open, and whether its last line is torn. */
interface _Opened {
  handle: FileHandle;
  info: FileInfo;
  tornTail: boolean;
}

/** Open a regular file for appending and read its last byte. */
async function _open(path: string): Promise<_Opened> {
  const handle = await fs().open(path, { read: true, append: true });
  try {
    const info = await handle.stat();
    if (info.kind !== "file") {
      throw new Error(`Cannot open ${quote(path)}: not a regular file`);
    }
    return { handle, info, tornTail: await _endsTorn(handle, info.size) };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * Encode a batch as `line\n…` into one buffer (`encodeInto`: no joined
 * string, no second copy).
 *
 * @param lines The lines, each without its `"\n"`.
 * @param action What the caller does, for errors.
 * @returns The bytes; undefined for an empty batch.
 * @throws {TypeError} When `lines` is not an array of strings or a line
 * contains `"\n"` (the message names the line's index, never its content).
 */
export function encodeLines(
  lines: readonly string[],
  action: string,
): Uint8Array | undefined {
  if (!Array.isArray(lines)) {
    throw new TypeError(`${action}: lines is not an array`);
  }
  let chars = 0;
  let longest = 0;
  for (const [i, line] of lines.entries()) {
    if (typeof line !== "string") {
      throw new TypeError(`${action}: line ${i} of the batch is not a string`);
    }
    if (line.includes("\n")) {
      throw new TypeError(`${action}: line ${i} of the batch contains "\\n"`);
    }
    chars += line.length + 1;
    longest = Math.max(longest, line.length);
  }
  if (lines.length === 0) return undefined;
  // Room for mostly ASCII text, plus the worst case (3 bytes per UTF-16
  // unit) of one line; grown when the text is not mostly ASCII.
  let buf = new Uint8Array(Math.ceil(chars * 1.1) + 3 * longest + 1);
  let at = 0;
  for (const line of lines) {
    const need = at + 3 * line.length + 1;
    if (need > buf.length) {
      const bigger = new Uint8Array(Math.max(need, buf.length * 2));
      bigger.set(buf.subarray(0, at));
      buf = bigger;
    }
    at += _encoder.encodeInto(line, buf.subarray(at)).written;
    buf[at++] = NEWLINE;
  }
  return buf.subarray(0, at);
}

/** Whether a file of `size` bytes ends in anything but `"\n"`. */
async function _endsTorn(file: FileHandle, size: number): Promise<boolean> {
  if (size === 0) return false;
  const last = new Uint8Array(1);
  return await file.read(last, size - 1) !== 1 || last[0] !== NEWLINE;
}
