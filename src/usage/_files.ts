/**
 * A usage pass over the files themselves (no index): every session file of
 * a data dir (subagents included) read once, a bounded number at a time,
 * and their calls counted in the files' rank order, so that a copied call
 * is counted in the file that ranks first whichever read finished first.
 * Memory: a read buffer and the longest line per file in flight, and a
 * key per counted call (to count a copy once).
 *
 * @module
 */

import { type FileInfo, fs, notAFile } from "../_fs.ts";
import type { RequestUsage } from "../format/usage.ts";
import type { Head } from "../read/_head.ts";
import { sessionFiles } from "../store/_session_files.ts";
import { compareRank, createdOf, type FileRank, SeenCalls } from "./_copies.ts";
import { type CallSink, fileCalls } from "./_file_calls.ts";
import type { OversizedLine } from "../format/issues.ts";
import type { CountedIn, UsageTally } from "./_tally.ts";

/**
 * Files read at once: enough that the runtime's I/O threads always have a
 * read to do while this thread splits and parses, few enough that the
 * buffers in flight stay small.
 */
const _IN_FLIGHT = 16;

/** Options of {@linkcode tallyFiles}. */
export interface FilesPassOptions {
  /** Files last modified before this moment (ms) are not opened. */
  since?: number | undefined;
  /** Bytes done of bytes to read. */
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** A file that is not read (on), and why. */
  onSkip?: ((path: string, reason: string) => void) | undefined;
}

/** A file of the pass, and its size when it was stat'ed. */
interface _File extends FileRank {
  size: number;
}

/**
 * Count every model call of a data dir's session files into `tally`: the
 * files in {@linkcode compareRank} order, a call whose id and time an
 * earlier file gave passed over (a fork's copy), an id the same file gave
 * before passed over.
 *
 * @param dataDir The data dir.
 * @param tally Where calls are counted.
 * @param options The first moment; progress; skipped files.
 * @returns How many files were read.
 */
export async function tallyFiles(
  dataDir: string,
  tally: UsageTally,
  options: FilesPassOptions,
): Promise<number> {
  const files = await _files(dataDir, options);
  const total = files.reduce((n, f) => n + f.size, 0);
  const progress = options.onProgress;
  let done = 0;
  // The reads run at once and must not fail: a progress callback that
  // throws is held, and its error thrown here in the caller's order.
  let failed: { err: unknown } | undefined;
  const read = async (f: _File): Promise<_Read> => {
    let mine = 0; // bytes of this file counted in `done`
    const bytes = (n: number) => {
      done += Math.min(n, f.size) - mine;
      mine = Math.min(n, f.size);
      if (progress === undefined || failed !== undefined) return;
      try {
        progress(done, total);
      } catch (err) {
        failed = { err };
      }
    };
    const out: _Read = {
      where: { sessionId: "", cwd: "" },
      calls: [],
      oversized: [],
    };
    out.skip = await _read(f, {
      head: (head) => out.where = _session(head),
      call: (u) => out.calls.push(u),
      bytes,
      oversized: (offset, length) =>
        out.oversized.push({ path: f.path, offset, length }),
    });
    bytes(f.size);
    return out;
  };
  const seen = new SeenCalls();
  let file = 0;
  for await (const { where, calls, skip, oversized } of _inOrder(files, read)) {
    if (failed !== undefined) throw failed.err;
    for (const u of calls) {
      if (seen.add(u.entryId, u.timestamp, file)) tally.add(u, where);
    }
    for (const line of oversized) tally.oversized(line);
    if (skip !== undefined) options.onSkip?.(files[file]!.path, skip);
    file++;
  }
  return files.length;
}

/** What a file gave: its session, its calls, its lines too long to read, and why it was not read (on), if it was not. */
interface _Read {
  where: CountedIn;
  calls: RequestUsage[];
  oversized: OversizedLine[];
  skip?: string | undefined;
}

/** The session a file's calls are counted in. */
function _session(head: Head): CountedIn {
  const cwd = head.header.cwd;
  return { sessionId: head.header.id, cwd: typeof cwd === "string" ? cwd : "" };
}

/**
 * One file's head and calls, given to `sink`; why it was not read (on),
 * if it was not. A read that fails midway has given the calls before it
 * (a pass counts what it read, and says what it could not).
 */
async function _read(
  f: _File,
  sink: CallSink,
): Promise<string | undefined> {
  try {
    return await fileCalls(f.path, f.size, sink);
  } catch (err) {
    return `cannot read it: ${_message(err)}`;
  }
}

function _message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * `work` of each item, at most {@linkcode _IN_FLIGHT} at once, given in
 * the items' order. `work` must not reject (a rejection not yet waited
 * for would be unhandled).
 */
async function* _inOrder<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const pending: Promise<R>[] = [];
  let next = 0;
  for (let i = 0; i < items.length; i++) {
    while (next < items.length && next < i + _IN_FLIGHT) {
      pending.push(work(items[next++]!));
    }
    yield await pending.shift()!;
  }
}

/**
 * The session files in {@linkcode compareRank} order, stat'ed (a bounded
 * number at a time: the size says how a file is read), those last
 * modified before the first moment left out (never opened). A path that
 * is no longer a regular file is skipped before it is opened (a FIFO's
 * open would wait for a writer).
 */
async function _files(
  dataDir: string,
  options: FilesPassOptions,
): Promise<_File[]> {
  const found = await sessionFiles(dataDir, { includeSubagents: true });
  const files: _File[] = found.map(({ path }) => ({
    path,
    created: createdOf(path),
    size: 0,
  }));
  const kept: _File[] = [];
  for await (const [f, stat] of _inOrder(files, _stat)) {
    if (typeof stat === "string") {
      options.onSkip?.(f.path, stat);
      continue;
    }
    if (options.since !== undefined && stat.mtimeMs < options.since) continue;
    kept.push({ ...f, size: stat.size });
  }
  return kept.sort(compareRank);
}

/** A file's size and time, or why it is not read. */
async function _stat(f: _File): Promise<[_File, FileInfo | string]> {
  let info: FileInfo;
  try {
    info = await fs().stat(f.path);
  } catch (err) {
    return [f, `cannot read it: ${_message(err)}`];
  }
  const what = notAFile(info);
  return [f, what === undefined ? info : `cannot read it: it is ${what}`];
}
