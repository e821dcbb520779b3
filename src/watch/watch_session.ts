/**
 * `watchSession`: the entries any writer appends to a session file, as
 * they come.
 *
 * @module
 */

import { basename, dirname } from "node:path";
import { fs, type FsEvents } from "../_fs.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { LoadIssue } from "../format/issues.ts";
import { Follower } from "./_follower.ts";

/** Options for {@linkcode watchSession}. */
export interface WatchSessionOptions {
  /** Ends the following (the iteration returns) and releases the watcher. */
  signal?: AbortSignal;
  /**
   * Where to start: `end` (default: the entries completed after the start,
   * a line being written then included), `start` (every entry of the file
   * first), `{ last: N }` (the last N complete entries first, read
   * backwards from the end: the cost is what they weigh, not the file),
   * or the byte offset where a line starts.
   */
  from?: "end" | "start" | number | { last: number };
  /**
   * Whether to wait for new entries (default true); false ends the
   * iteration with the entries already in the file (`tail` without `-f`).
   */
  follow?: boolean;
  /** Called with each line skipped as damage (not JSON, NUL-filled …), as the loader reports it. */
  onIssue?: (issue: LoadIssue) => void;
  /**
   * Called when following went on past a cut (`truncated`) or a
   * replacement (`replaced`) of the file, at `offset`: after the line of
   * the entry `after`, the last one yielded, found again. When none was
   * yielded (`after` absent), a cut goes on from the start of the line
   * being read (the last line boundary before the cut, when it went
   * further back) and a replacement where a new follower would start.
   */
  onResync?: (
    event: { reason: "truncated" | "replaced"; offset: number; after?: string },
  ) => void;
  /**
   * Milliseconds between looks when no file-system event comes (a
   * network file system, a watcher limit reached). Default 1000.
   */
  pollInterval?: number;
}

/** The poll's default period: a look (one `stat`) a second costs nothing measurable. */
const _POLL_MS = 1000;

/**
 * Follow a session file: an async iterator of the entries any writer
 * (this library, omp, pi) appends, in file order, each once.
 *
 * - A line is yielded once it ends in "\n" and parses; a torn line is
 *   never yielded. A complete line that is not an entry is skipped and
 *   reported to `onIssue`, as the loader does.
 * - A rename rewrites the 256-byte title slot in place (no size change):
 *   nothing is re-read; the `title_change` entry appended with it is
 *   yielded.
 * - A cut (the file shorter than what was read, or its bytes before the
 *   read position changed) or a replacement (another file under the name:
 *   omp rewriting a file whole) is re-synced: the follower finds the line
 *   of the last entry it yielded in the file as it now is, calls
 *   `onResync`, and goes on after it, so every entry is still yielded
 *   once. When that entry is no longer there, the iteration ends with an
 *   error: what was yielded no longer matches the file. When none was
 *   yielded yet, a cut goes on from the start of the line being read: a
 *   rolled-back append written again (torn bytes cut back, then a line in
 *   their place) is yielded once. A removed file ends it with the
 *   runtime's not-found error (`code` `ENOENT`).
 * - No lock is taken and nothing is written. While nothing happens it
 *   waits on file-system events for the file's folder (no CPU), with a
 *   slow poll as a fallback. Stop it with `signal`, or by leaving the
 *   loop: either releases the file and the watcher.
 *
 * The start is settled when the iteration begins (the first `next()`).
 * Version 1 files, whose ids are minted from the file's start, cannot be
 * followed (fork them).
 *
 * @example Following a session while it is written
 * ```ts
 * import { Session, watchSession } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using s = await Session.create({ cwd: "/home/dev/app", dataDir });
 *   await s.ensureOnDisk();
 *   const stop = new AbortController();
 *   const seen: string[] = [];
 *   const done = (async () => {
 *     for await (const e of watchSession(s.path!, { signal: stop.signal, from: "start" })) {
 *       seen.push(e.type);
 *       if (e.type === "title_change") stop.abort();
 *     }
 *   })();
 *   await s.appendMessage({ role: "user", content: "hello" });
 *   await s.setTitle("Greeting");
 *   await done;
 *   equal(seen.join(), "message,title_change");
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 *
 * @param path The session file.
 * @param options Where to start, a signal, callbacks, the poll's period.
 * @returns The entries, as they are written.
 * @throws {RangeError} For a `from` offset where no line starts, or a
 * `pollInterval` that is not a positive number.
 * @throws {Error} `Cannot follow "<path>": …` (`Cannot read` with
 * `follow: false`) when the file cannot be read,
 * is a version 1 file, or lost the last entry yielded;
 * {@linkcode SessionSyntaxError} when it has no readable header.
 */
export async function* watchSession(
  path: string,
  options: WatchSessionOptions = {},
): AsyncGenerator<SessionEntry, void, undefined> {
  const pollMs = options.pollInterval ?? _POLL_MS;
  if (!(pollMs > 0 && pollMs < Infinity)) {
    throw new RangeError(
      `Cannot follow "${path}": pollInterval must be a positive number of milliseconds, got ${pollMs}`,
    );
  }
  const signal = options.signal;
  const aborted = (): boolean => signal?.aborted === true;
  if (aborted()) return;
  const follow = options.follow ?? true;
  const follower = await Follower.open(path, {
    from: options.from ?? "end",
    action: `Cannot ${follow ? "follow" : "read"} "${path}"`,
    onIssue: options.onIssue,
    onResync: options.onResync,
  });
  // Watch before the first look, so no change falls between the two.
  const wake = follow ? new _Wake(path, pollMs, signal) : undefined;
  try {
    let batch = follower.backlog;
    for (;;) {
      for (const entry of batch) {
        if (aborted()) return;
        yield entry;
      }
      if (aborted()) return;
      const look = await follower.look();
      batch = look.entries;
      if (look.more || batch.length > 0) continue;
      if (wake === undefined) return;
      await wake.wait();
    }
  } finally {
    await wake?.close();
    await follower.close();
  }
}

/**
 * A waiter for changes to one file, at no cost while nothing happens: the
 * file system's events for its folder, a slow poll where they do not come
 * (network file systems, a watcher limit reached), an abort. Close it to
 * release the watcher.
 */
class _Wake {
  readonly #name: string;
  readonly #pollMs: number;
  readonly #signal: AbortSignal | undefined;
  #watcher: FsEvents | undefined;
  #pump: Promise<void> = Promise.resolve();
  /** A change came while nobody waited. */
  #dirty = false;
  #wake: (() => void) | undefined;
  readonly #onAbort = (): void => this.#ring();

  /** Watch `path`, polling every `pollMs` too; `signal` ends every wait. */
  constructor(path: string, pollMs: number, signal?: AbortSignal) {
    this.#name = basename(path);
    this.#pollMs = pollMs;
    this.#signal = signal;
    signal?.addEventListener("abort", this.#onAbort);
    try {
      this.#watcher = fs().watch(dirname(path));
      this.#pump = this.#listen(this.#watcher);
    } catch {
      // No events here (a watcher limit, a platform without them): the
      // poll alone finds the changes.
      this.#watcher = undefined;
    }
  }

  /**
   * Wait for a change to the file (or its replacement), the poll's period,
   * or the abort; at once when a change came since the last wait.
   */
  async wait(): Promise<void> {
    if (this.#dirty || this.#signal?.aborted === true) {
      this.#dirty = false;
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
      timer = setTimeout(resolve, this.#pollMs);
    });
    clearTimeout(timer);
    this.#wake = undefined;
    this.#dirty = false;
  }

  /** Stop watching; waits for the watcher to wind down. */
  async close(): Promise<void> {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    // Closing a watcher that already ended (its folder went) is harmless.
    this.#watcher?.close();
    this.#watcher = undefined;
    await this.#pump;
    this.#ring();
  }

  #ring(): void {
    this.#dirty = true;
    this.#wake?.();
  }

  async #listen(watcher: FsEvents): Promise<void> {
    try {
      for await (const event of watcher) {
        if (event.paths.some((p) => basename(p) === this.#name)) this.#ring();
      }
    } catch {
      // The watcher failed (its folder went away): the poll goes on.
      this.#watcher = undefined;
    }
  }
}
