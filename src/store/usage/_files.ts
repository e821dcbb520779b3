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
import { sessionFiles } from "../_session_files.ts";
import { passFile } from "./_file_pass.ts";
import { usageFinder } from "./_finder.ts";
import { compareRank, createdOf, type FileRank } from "./_line.ts";
import type { CountedIn, UsageTally } from "./_tally.ts";

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
  for (const file of files) {
    const ids = new Set<string>();
    let where: CountedIn = { sessionId: "", cwd: "" };
    const count = (u: RequestUsage): void => {
      if (ids.has(u.entryId)) return; // an id the file already gave
      ids.add(u.entryId);
      if (!seen.add(u.entryId, u.timestamp)) return; // a copy of an earlier file's call
      tally.add(u, where);
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

/**
 * The calls counted, by entry id and time. Most ids come with one time, so
 * an id maps to the time it first came with, and only an id seen at
 * another time gets a key of both (`id\0time`) in a set: making that key
 * for every call (a 13-digit time written out, then hashed) cost more
 * than counting the call.
 */
class _Seen {
  readonly #first = new Map<string, number>();
  readonly #others = new Set<string>();

  /** Mark (id, time) counted: false when it already was. */
  add(id: string, time: number): boolean {
    const first = this.#first.get(id);
    if (first === undefined) {
      this.#first.set(id, time);
      return true;
    }
    if (first === time) return false;
    const key = `${id}\u0000${time}`;
    if (this.#others.has(key)) return false;
    this.#others.add(key);
    return true;
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
