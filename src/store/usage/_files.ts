/**
 * A usage pass over the files themselves (no index): each file is read
 * once, in chunks into one reused buffer, and only the lines holding
 * `"usage"` are parsed (`_file_pass.ts`). Memory: the buffer (two regions
 * of 2.5 MiB, the second used where a large file is read ahead), the
 * longest such line, and a key per counted call (to count a copied entry
 * once).
 *
 * @module
 */

import { realFs, seam } from "../../fs/_seam.ts";
import { sessionFiles } from "../_session_files.ts";
import { type CallLogMessage, LoggedCall } from "./_call_log.ts";
import { type FileSink, passPath } from "./_file_pass.ts";
import type { HelperReply, HelperStart } from "./_helpers.ts";
import {
  changeSettings,
  HELPER_TIMING,
  helperCount,
  type HelperSettings,
  HelperThreads,
  PieceClaims,
  THREADS,
  worthHelping,
} from "../../fs/_threads.ts";
import { finderModule, usageFinder } from "./_finder.ts";
import { SeenCalls } from "./_seen.ts";
import { compareRank, createdOf, type FileRank } from "./_line.ts";
import type { CountedIn, CountedUsage, UsageTally } from "./_tally.ts";
import { EventLoopTurns } from "../../fs/_turns.ts";

/**
 * Bytes read at a time. A large file is read ahead, into the second of the
 * finder's two regions: with 1 MiB reads a 512 MB session was read at
 * 0.59–0.63× the speed of reading its bytes, with 2 MiB 0.65, with 4 MiB
 * 0.65–0.69 for ~6 MB more per thread.
 */
const _CHUNK = 2 << 20;

/** Options of {@linkcode tallyFiles}. */
export interface FilesPassOptions {
  /** Files last modified before this moment (ms) are not opened. */
  since?: number | undefined;
  /** Bytes done of bytes to read. */
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** A file that is not read, and why. */
  onSkip?: ((path: string, reason: string) => void) | undefined;
  /** Helper threads at most (`helperCount`: the default where undefined); 0 for none. */
  helpers?: number | undefined;
}

interface _File extends FileRank {
  /** Its size, when it was stat'ed (for progress, or to read a large one in parts). */
  size: number;
}

/** A piece of a pass's work: a file, or a part of a large one. */
interface _Item {
  /** The file's number. */
  file: number;
  /** The part: the lines that start in `[from, to)`. */
  from: number;
  /** Where the next part starts (Infinity: the file's end). */
  to: number;
  /** Its bytes (0 where the file was not stat'ed). */
  bytes: number;
}

/**
 * Count every model call of a data dir's session files (subagents
 * included) into `tally`: the files in {@linkcode compareRank} order, an
 * entry id and time already counted in an earlier file passed over (a
 * fork's copy), an id seen earlier in the same file passed over.
 *
 * The work is files, and parts of large files: this thread claims them
 * from the front and counts as it reads; helper threads (where the work
 * is worth them) claim from the back. Calls are counted in the files'
 * order whoever read them, so the result is the same with any number of
 * helpers.
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
  let wanted = THREADS && seam() === realFs ? helperCount(options.helpers) : 0;
  const threads = wanted > 0;
  let pass: _Pass | undefined;
  let helpers: HelperThreads<HelperStart, HelperReply> | undefined;
  const startHelpers = () => {
    helpers = HelperThreads.start(wanted, _helping.module, (reply) => {
      pass!.logged(reply.log); // posted only once they begin, below
    });
    wanted = 0;
  };
  try {
    // Helpers start as the files are listed where there are so many (or
    // so many bytes) that they will surely help: they get ready while
    // this thread stats and sorts; else once this thread has read for a
    // while. A few files are stat'ed to find the large ones.
    const files = await _files(dataDir, options, threads, (listed) => {
      if (wanted > 0 && listed >= _helping.eagerFiles) startHelpers();
    });
    const items = _items(files, threads);
    if (
      wanted > 0 && items.length > 1 && _bytes(items) >= _helping.eagerBytes
    ) startHelpers();
    pass = new _Pass(files, items, tally, options);
    _helping.pieces = items.length;
    _helping.posted = 0;
    const claims = new PieceClaims(items.length);
    const begin = async () => {
      if (helpers === undefined) return;
      helpers.begin({
        paths: items.map((item) => files[item.file]!.path),
        from: Float64Array.from(items, (item) => item.from),
        to: Float64Array.from(items, (item) => item.to),
        claims: claims.buffer,
        chunk: _CHUNK,
        finder: finderModule(),
      });
      await _helping.started?.();
    };
    const began = performance.now();
    const turns = new EventLoopTurns(); // the files are read synchronously
    await begin();
    for (let i = 0; i < items.length; i++) {
      await turns.give();
      if (
        wanted > 0 &&
        worthHelping(_helping, performance.now() - began, i, items.length)
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
 * When helpers start, how large files are cut, their module, and what
 * they read.
 */
const _helping: HelperSettings & {
  /** Bytes (of stat'ed files) from which helpers start at once. */
  eagerBytes: number;
  /** Files stat'ed (to find the large ones) where there are this many or fewer. */
  statFew: number;
  /**
   * A file this large is read in parts (by this thread and helpers)... A
   * 512 MB session of 23,000 calls was read no faster in two halves: the
   * helper's first ~40 MB ran before its code was compiled, and a fresh
   * process read it ~7 % slower; a 1.5 GB image-heavy one, 1.28× faster.
   */
  splitFrom: number;
  /** ...of this many bytes. */
  partBytes: number;
  /** Pieces of work of the last pass. */
  pieces: number;
} = {
  ...HELPER_TIMING,
  eagerBytes: 256 << 20,
  statFew: 256,
  splitFrom: 1 << 30,
  partBytes: 64 << 20,
  module: new URL("./_usage_helper.ts", import.meta.url),
  started: undefined,
  posted: 0,
  pieces: 0,
};

/** The pieces of work: each file, a large one (where threads may help) in parts. */
function _items(files: readonly _File[], split: boolean): _Item[] {
  const items: _Item[] = [];
  const part = _helping.partBytes;
  for (let file = 0; file < files.length; file++) {
    const size = files[file]!.size;
    const parts = split && size >= _helping.splitFrom
      ? Math.ceil(size / part)
      : 1;
    for (let k = 0; k < parts; k++) {
      const from = k * part;
      const to = k === parts - 1 ? Infinity : from + part;
      items.push({ file, from, to, bytes: Math.min(size, to) - from });
    }
  }
  return items;
}

function _bytes(items: readonly _Item[]): number {
  return items.reduce((n, item) => n + item.bytes, 0);
}

/**
 * Change when helpers start, how files are cut, or the helpers' module,
 * or wait once they are started (tests: helpers at once, for a few small
 * files, given time to claim some; a helper that dies).
 *
 * @param change What to change.
 * @returns What restores the defaults; the pieces of work of the last
 * pass, and those its helpers posted.
 */
export function helperSettings(
  change: Partial<Omit<typeof _helping, "pieces" | "posted">>,
): { restore(): void; pieces(): number; posted(): number } {
  return {
    restore: changeSettings(_helping, change),
    pieces: () => _helping.pieces,
    posted: () => _helping.posted,
  };
}

/** The counting side of a pass: the pieces' calls, counted in order. */
class _Pass {
  readonly #files: readonly _File[];
  readonly #items: readonly _Item[];
  readonly #tally: UsageTally;
  readonly #options: FilesPassOptions;
  readonly #seen = new SeenCalls();
  readonly #finder = usageFinder(_CHUNK);
  readonly #scratch = new Uint8Array(_CHUNK);
  readonly #total: number;
  /** Pieces read by helpers, not counted yet: their log and place in it. */
  readonly #held = new Map<number, { log: CallLogMessage; k: number }>();
  readonly #call = new LoggedCall();
  /** The next piece to count. */
  #next = 0;
  /** The session of the file being counted, and whether it was skipped. */
  #where: CountedIn = { sessionId: "", cwd: "" };
  #skipped = false;
  /** Bytes of the pieces counted, and of those held. */
  #done = 0;
  #heldBytes = 0;

  constructor(
    files: readonly _File[],
    items: readonly _Item[],
    tally: UsageTally,
    options: FilesPassOptions,
  ) {
    this.#files = files;
    this.#items = items;
    this.#tally = tally;
    this.#options = options;
    this.#total = _bytes(items);
  }

  /** Read piece `i` on this thread and count its calls (every piece before it is counted). */
  async read(i: number): Promise<void> {
    const item = this.#items[i]!;
    const path = this.#files[item.file]!.path;
    if (item.from === 0) this.#newFile();
    if (!this.#skipped) {
      const sink: FileSink = {
        head: (w) => this.#where = w,
        request: (u) => this.#count(u, item.file),
        // A part's last chunk reads on past its end.
        progress: (n) => this.#progress(Math.min(n, item.bytes)),
      };
      const skip = await passPath(
        seam(),
        path,
        this.#finder,
        this.#scratch,
        sink,
        item,
      );
      if (skip !== undefined) this.#skip(path, skip);
    }
    this.#counted(i);
  }

  /** Pieces a helper read: held until the pieces before them are counted. */
  logged(log: CallLogMessage): void {
    for (let k = 0; k < log.pieceIndex.length; k++) {
      const i = log.pieceIndex[k]!;
      if (i < this.#next) continue;
      this.#held.set(i, { log, k });
      _helping.posted++;
      this.#heldBytes += this.#items[i]!.bytes;
    }
    this.#progress(0);
  }

  /** Count the pieces after this thread's, read by helpers, in order; read those no helper posted (one died). */
  async readRest(): Promise<void> {
    this.#countHeld();
    while (this.#next < this.#items.length) {
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
      const item = this.#items[i]!;
      const { log, k } = h;
      const head = log.pieceHead[k]!;
      if (item.from === 0) {
        this.#newFile();
        this.#where = { sessionId: head.sessionId, cwd: head.cwd };
      }
      if (!this.#skipped) {
        const end = log.pieceEnd[k]!;
        for (let j = k === 0 ? 0 : log.pieceEnd[k - 1]!; j < end; j++) {
          this.#count(this.#call.at(log, j), item.file);
        }
        if (head.skip !== undefined) {
          this.#skip(this.#files[item.file]!.path, head.skip);
        }
      }
      this.#heldBytes -= item.bytes;
      this.#counted(i);
    }
  }

  #newFile(): void {
    this.#where = { sessionId: "", cwd: "" };
    this.#skipped = false;
  }

  /** A file not read on (no session, or a read failed): its later parts are not read. */
  #skip(path: string, why: string): void {
    this.#skipped = true;
    this.#options.onSkip?.(path, why);
  }

  #count(u: CountedUsage & { entryId: string }, file: number): void {
    if (this.#seen.add(u.entryId, u.timestamp, file)) {
      this.#tally.add(u, this.#where);
    }
  }

  #counted(i: number): void {
    this.#next = i + 1;
    this.#done += this.#items[i]!.bytes;
    this.#progress(0);
  }

  /** Bytes done: the pieces counted and held, and `more` of the one being read. */
  #progress(more: number): void {
    this.#options.onProgress?.(
      this.#done + this.#heldBytes + more,
      this.#total,
    );
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
  threads: boolean,
  listed: (count: number) => void,
): Promise<_File[]> {
  const fs = seam();
  const files: _File[] = [];
  const found = await sessionFiles(dataDir, { includeSubagents: true });
  listed(found.length);
  const stat = options.since !== undefined ||
    options.onProgress !== undefined ||
    (threads && found.length <= _helping.statFew);
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
