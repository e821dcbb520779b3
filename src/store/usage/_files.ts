/**
 * A usage pass over the files themselves (no index): each file is read
 * once, in chunks into one reused buffer, and only the lines holding
 * `"usage"` are parsed (`_file_pass.ts`). Memory: the buffer (1 MiB), the
 * longest such line, and a key per counted call (to count a copied entry
 * once).
 *
 * @module
 */

import type { RequestUsage } from "../../format/usage.ts";
import {
  type Fs,
  type FsHandle,
  type FsSyncFile,
  seam,
} from "../../fs/_seam.ts";
import { hexKey } from "../../format/_entry_id.ts";
import { hashKey } from "../../read/_id_set.ts";
import { sessionFiles } from "../_session_files.ts";
import { passFile } from "./_file_pass.ts";
import { usageFinder } from "./_finder.ts";
import { compareRank, createdOf, type FileRank } from "./_line.ts";
import type { CountedIn, UsageTally } from "./_tally.ts";
import { EventLoopTurns } from "../../fs/_turns.ts";

/** Bytes read at a time. */
const _CHUNK = 1 << 20;

/** Options of {@linkcode tallyFiles}. */
export interface FilesPassOptions {
  /** Files last modified before this moment (ms) are not opened. */
  since?: number | undefined;
  /** Bytes done of bytes to read. */
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** A file that is not read, and why. */
  onSkip?: ((path: string, reason: string) => void) | undefined;
}

interface _File extends FileRank {
  /** Its size, when it was stat'ed (for progress). */
  size: number;
}

/**
 * Count every model call of a data dir's session files (subagents
 * included) into `tally`: the files in {@linkcode compareRank} order, an
 * entry id and time already counted in an earlier file passed over (a
 * fork's copy), an id seen earlier in the same file passed over.
 *
 * @param dataDir The data dir.
 * @param tally Where calls are counted.
 * @param options The first day; progress; skipped files.
 * @returns How many files were read.
 */
export async function tallyFiles(
  dataDir: string,
  tally: UsageTally,
  options: FilesPassOptions,
): Promise<number> {
  const files = await _files(dataDir, options);
  const total = files.reduce((n, f) => n + f.size, 0);
  const seen = new _Seen();
  const finder = usageFinder(_CHUNK);
  const scratch = new Uint8Array(_CHUNK);
  const fs = seam();
  let done = 0;
  let number = 0;
  const turns = new EventLoopTurns(); // the files are read synchronously
  for (const file of files) {
    await turns.give();
    const at = number++;
    let where: CountedIn = { sessionId: "", cwd: "" };
    const count = (u: RequestUsage): void => {
      if (seen.add(u.entryId, u.timestamp, at)) tally.add(u, where);
    };
    try {
      using handle = await _open(fs, file.path);
      const reason = await passFile(handle, file.path, finder, scratch, {
        head: (w) => where = w,
        request: count,
        progress: (n) => options.onProgress?.(done + n, total),
      });
      if (reason !== undefined) options.onSkip?.(file.path, reason);
    } catch (err) {
      options.onSkip?.(file.path, `cannot read it: ${_why(err)}`);
    }
    done += file.size;
    options.onProgress?.(done, total);
  }
  return files.length;
}

/** What {@linkcode _Seen} keeps of an id that is not 8 hex digits. */
interface _Id {
  /** The last file (its number) that gave the id. */
  file: number;
  /** The time of its first counted call. */
  time: number;
  /** The times of its other counted calls (a rare id reused at another time). */
  others: Set<number> | undefined;
}

/**
 * The calls counted, by entry id: which file last gave an id (an id a file
 * already gave is passed over) and at what times it was counted (a copy
 * of an earlier file's call has its id and time). The ids omp and this
 * library mint (8 hex digits) are kept as numbers in an open-addressing
 * table of typed arrays: no id string outlives its line (a `Map` of the
 * strings kept every one past the young generation: ~2.5 µs a call in a
 * 512 MB session, a quarter of the pass); other ids in a `Map`.
 */
class _Seen {
  /** The hex ids, and per slot the file that last gave it (plus 1; 0: empty) and its first time. */
  #keys = new Uint32Array(1 << 12);
  #files = new Int32Array(1 << 12);
  #times = new Float64Array(1 << 12);
  #count = 0;
  /** Other counted times of a hex id, by its key (rare). */
  readonly #moreTimes = new Map<number, Set<number>>();
  readonly #ids = new Map<string, _Id>();

  /**
   * Mark a call of file number `file` counted.
   *
   * @returns False when it is not to be counted: the file already gave
   * its id, or an earlier file gave its id and time.
   */
  add(id: string, time: number, file: number): boolean {
    const key = hexKey(id);
    if (key < 0) return this.#addOther(id, time, file);
    if ((this.#count + 1) * 2 > this.#keys.length) this.#grow();
    const mask = this.#keys.length - 1;
    let i = hashKey(key) & mask;
    for (; this.#files[i] !== 0; i = (i + 1) & mask) {
      if (this.#keys[i] !== key) continue;
      if (this.#files[i] === file + 1) return false;
      this.#files[i] = file + 1;
      if (this.#times[i] === time) return false;
      let more = this.#moreTimes.get(key);
      if (more === undefined) this.#moreTimes.set(key, more = new Set());
      if (more.has(time)) return false;
      more.add(time);
      return true;
    }
    this.#keys[i] = key;
    this.#files[i] = file + 1;
    this.#times[i] = time;
    this.#count++;
    return true;
  }

  #addOther(id: string, time: number, file: number): boolean {
    const seen = this.#ids.get(id);
    if (seen === undefined) {
      this.#ids.set(id, { file, time, others: undefined });
      return true;
    }
    if (seen.file === file) return false;
    seen.file = file;
    if (seen.time === time) return false;
    seen.others ??= new Set();
    if (seen.others.has(time)) return false;
    seen.others.add(time);
    return true;
  }

  #grow(): void {
    const [keys, files, times] = [this.#keys, this.#files, this.#times];
    const size = keys.length * 2;
    this.#keys = new Uint32Array(size);
    this.#files = new Int32Array(size);
    this.#times = new Float64Array(size);
    const mask = size - 1;
    for (let j = 0; j < keys.length; j++) {
      if (files[j] === 0) continue;
      let i = hashKey(keys[j]!) & mask;
      while (this.#files[i] !== 0) i = (i + 1) & mask;
      this.#keys[i] = keys[j]!;
      this.#files[i] = files[j]!;
      this.#times[i] = times[j]!;
    }
  }
}

/**
 * The session files in {@linkcode compareRank} order; stat'ed only when
 * a first moment or progress needs it, and those last modified before the
 * first moment left out.
 */
async function _files(
  dataDir: string,
  options: FilesPassOptions,
): Promise<_File[]> {
  const fs = seam();
  const stat = options.since !== undefined || options.onProgress !== undefined;
  const files: _File[] = [];
  const found = await sessionFiles(dataDir, { includeSubagents: true });
  for (const { path } of found) {
    let size = 0;
    if (stat) {
      let info: Deno.FileInfo;
      try {
        info = fs.statSync(path);
      } catch (err) {
        options.onSkip?.(path, `cannot read it: ${_why(err)}`);
        continue;
      }
      const mtime = info.mtime?.getTime();
      if (
        options.since !== undefined && mtime !== undefined &&
        mtime < options.since
      ) continue; // unopened: nothing in it is that recent
      size = info.size;
    }
    files.push({ path, created: createdOf(path), size });
  }
  return files.sort(compareRank);
}

/**
 * A file opened for reading: synchronously where the filesystem can read
 * so (an asynchronous open is a round trip to another thread, ~40 µs, the
 * most a small session costs), else as a handle.
 */
async function _open(fs: Fs, path: string): Promise<FsHandle | FsSyncFile> {
  const file = fs.openSync(path, { read: true });
  if (file.readSync !== undefined && file.seekSync !== undefined) return file;
  file.close();
  return await fs.openHandle(path, { read: true });
}

function _why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
