/**
 * A usage pass over the files themselves (no index): each file is read
 * once, in chunks into one reused buffer, and only the lines holding
 * `"usage"` are parsed (`_file_pass.ts`). Memory: the buffer (1 MiB), the
 * longest such line, and a key per counted call (to count a copied entry
 * once).
 *
 * @module
 */

import { realFs, seam } from "../../fs/_seam.ts";
import { sessionFiles } from "../_session_files.ts";
import { type CallLogMessage, LoggedCall } from "./_call_log.ts";
import { type FileSink, passPath } from "./_file_pass.ts";
import { FileClaims, THREADS, UsageHelpers } from "./_helpers.ts";
import { usageFinder } from "./_finder.ts";
import { SeenCalls } from "./_seen.ts";
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
  /** Helper threads at most (default: one per other core, at most 2); 0 for none. */
  helpers?: number | undefined;
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
 * Files are claimed one at a time, in order, by this thread and (when
 * many are left after a few milliseconds) by helper threads; calls are
 * counted in the files' order whoever read them, so the result is the
 * same with any number of helpers.
 *
 * @param dataDir The data dir.
 * @param tally Where calls are counted.
 * @param options The first day; progress; skipped files; helpers.
 * @returns How many files were read.
 */
export async function tallyFiles(
  dataDir: string,
  tally: UsageTally,
  options: FilesPassOptions,
): Promise<number> {
  // A test's filesystem is this thread's alone.
  let wanted = THREADS && seam() === realFs
    ? options.helpers ?? defaultHelpers()
    : 0;
  let pass: _Pass | undefined;
  let helpers: UsageHelpers | undefined;
  const startHelpers = () => {
    helpers = UsageHelpers.start(wanted, _helping.module, (log) => {
      pass!.logged(log); // posted only once they begin, below
    });
    wanted = 0;
  };
  try {
    // Helpers start as the files are listed where there are so many that
    // they will surely help: they get ready while this thread stats and
    // sorts; else once this thread has read for a while.
    const files = await _files(dataDir, options, (listed) => {
      if (wanted > 0 && listed >= _helping.eagerFiles) startHelpers();
    });
    pass = new _Pass(files, tally, options);
    _helping.posted = 0;
    const claims = new FileClaims(files.length);
    const begin = async () => {
      if (helpers === undefined) return;
      helpers.begin({
        files: files.map((f) => f.path),
        claims: claims.buffer,
        chunk: _CHUNK,
      });
      await _helping.started?.();
    };
    const began = performance.now();
    const turns = new EventLoopTurns(); // the files are read synchronously
    await begin();
    for (let i = 0; i < files.length; i++) {
      await turns.give();
      if (
        wanted > 0 && _worthHelping(performance.now() - began, i, files.length)
      ) {
        startHelpers();
        await begin();
      }
      if (!claims.front(i)) break; // the rest is the helpers'
      await pass.read(i);
    }
    if (helpers !== undefined) await helpers.finished();
    await pass.readRest();
    return files.length;
  } finally {
    helpers?.close();
  }
}

/**
 * Helpers a pass starts: one per core besides this one's, at most 2 (each
 * is a V8 isolate of its own: ~25 MB more of the process's memory).
 */
function defaultHelpers(): number {
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  return Math.max(0, Math.min(2, cores - 1));
}

/**
 * When helpers start (after this thread read alone for `afterMs`, while
 * the files left would take it `leftMs` more), their module, and what
 * they read.
 */
const _helping = {
  /** Files listed from which helpers start at once. */
  eagerFiles: 2500,
  afterMs: 20,
  leftMs: 100,
  module: new URL("./_usage_helper.ts", import.meta.url),
  /** Awaited once helpers are started (tests: time for them to claim files). */
  started: undefined as (() => Promise<void>) | undefined,
  /** Files the helpers of the last pass posted. */
  posted: 0,
};

/**
 * Whether to start helpers, `ms` into a pass that read `done` of `count`
 * files: a helper costs this thread ~10 ms to start (Deno makes a
 * Worker's isolate on the thread that asks) and reads nothing for ~20 ms,
 * so only where this thread has ~60 ms of reading left, judged by the
 * files read so far.
 */
function _worthHelping(ms: number, done: number, count: number): boolean {
  if (ms < _helping.afterMs) return false;
  const left = count - done;
  return left > 0 && (done === 0 ? 0 : ms / done) * left >= _helping.leftMs;
}

/**
 * Change when helpers start, or their module, or wait once they are
 * started (tests: helpers at once, for a few files, given time to claim
 * some; a helper that dies).
 *
 * @param change What to change.
 * @returns What restores the defaults; and the files the helpers of the last pass posted.
 */
export function helperSettings(
  change: {
    eagerFiles?: number;
    afterMs?: number;
    leftMs?: number;
    module?: URL;
    started?: () => Promise<void>;
  },
): { restore(): void; posted(): number } {
  const before = { ..._helping };
  Object.assign(_helping, change);
  return {
    restore: () => Object.assign(_helping, before),
    posted: () => _helping.posted,
  };
}

/** The counting side of a pass: the files' calls, counted in order. */
class _Pass {
  readonly #files: readonly _File[];
  readonly #tally: UsageTally;
  readonly #options: FilesPassOptions;
  readonly #seen = new SeenCalls();
  readonly #finder = usageFinder(_CHUNK);
  readonly #scratch = new Uint8Array(_CHUNK);
  readonly #total: number;
  /** Files read but not counted yet (a later one than the next): their log and place in it. */
  readonly #held = new Map<number, { log: CallLogMessage; k: number }>();
  readonly #call = new LoggedCall();
  /** The next file to count. */
  #next = 0;
  /** Bytes of the files counted, and of those held. */
  #done = 0;
  #heldBytes = 0;

  constructor(
    files: readonly _File[],
    tally: UsageTally,
    options: FilesPassOptions,
  ) {
    this.#files = files;
    this.#tally = tally;
    this.#options = options;
    this.#total = files.reduce((n, f) => n + f.size, 0);
  }

  /** Read file `i` on this thread and count its calls (every file before it is counted). */
  async read(i: number): Promise<void> {
    const file = this.#files[i]!;
    let where: CountedIn = { sessionId: "", cwd: "" };
    const sink: FileSink = {
      head: (w) => where = w,
      request: (u) => {
        if (this.#seen.add(u.entryId, u.timestamp, i)) {
          this.#tally.add(u, where);
        }
      },
      progress: (n) => this.#options.onProgress?.(this.#done + n, this.#total),
    };
    const skip = await passPath(
      seam(),
      file.path,
      this.#finder,
      this.#scratch,
      sink,
    );
    if (skip !== undefined) this.#options.onSkip?.(file.path, skip);
    this.#counted(i);
  }

  /** Files a helper read: held until the files before them are counted. */
  logged(log: CallLogMessage): void {
    for (let k = 0; k < log.fileIndex.length; k++) {
      const i = log.fileIndex[k]!;
      if (i < this.#next) continue;
      this.#held.set(i, { log, k });
      _helping.posted++;
      this.#heldBytes += this.#files[i]!.size;
    }
    this.#options.onProgress?.(this.#done + this.#heldBytes, this.#total);
  }

  /** Count the files after this thread's, read by helpers, in order; read those no helper posted (one died). */
  async readRest(): Promise<void> {
    this.#countHeld();
    while (this.#next < this.#files.length) {
      await this.read(this.#next);
      this.#countHeld();
    }
  }

  #countHeld(): void {
    for (
      let h = this.#held.get(this.#next);
      h !== undefined;
      h = this.#held.get(this.#next)
    ) {
      const i = this.#next;
      this.#held.delete(i);
      const { log, k } = h;
      const head = log.fileHead[k]!;
      const where = { sessionId: head.sessionId, cwd: head.cwd };
      for (
        let j = k === 0 ? 0 : log.fileEnd[k - 1]!;
        j < log.fileEnd[k]!;
        j++
      ) {
        const u = this.#call.at(log, j);
        if (this.#seen.add(u.entryId, u.timestamp, i)) {
          this.#tally.add(u, where);
        }
      }
      if (head.skip !== undefined) {
        this.#options.onSkip?.(this.#files[i]!.path, head.skip);
      }
      this.#counted(i);
    }
  }

  #counted(i: number): void {
    this.#next = i + 1;
    this.#done += this.#files[i]!.size;
    this.#options.onProgress?.(this.#done, this.#total);
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
  listed: (count: number) => void,
): Promise<_File[]> {
  const fs = seam();
  const stat = options.since !== undefined || options.onProgress !== undefined;
  const files: _File[] = [];
  const found = await sessionFiles(dataDir, { includeSubagents: true });
  listed(found.length);
  for (const { path } of found) {
    let size = 0;
    if (stat) {
      let info: Deno.FileInfo;
      try {
        info = fs.statSync(path);
      } catch (err) {
        options.onSkip?.(
          path,
          `cannot read it: ${err instanceof Error ? err.message : String(err)}`,
        );
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
