/**
 * Helper threads for the passes over many files (the usage report, the
 * search scan): Web Workers that claim pieces of a pass's work from the
 * back while the calling thread claims from the front, and post what they
 * found. A helper that fails to start or dies leaves the pieces it claimed
 * and did not post to the calling thread, which reads them itself.
 *
 * @module
 */

/** Whether this runtime can run helpers: Web Workers and shared memory. */
export const THREADS: boolean = typeof Worker === "function" &&
  typeof SharedArrayBuffer === "function";

/**
 * Helpers a pass starts: one per core besides this one's, at most 2 (each
 * is a V8 isolate of its own: ~25 MB more of the process's memory).
 *
 * @returns How many.
 */
export function defaultHelpers(): number {
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  return Math.max(0, Math.min(2, cores - 1));
}

/**
 * The helpers a caller asked for: the default where it did not ask.
 *
 * @param asked The `helpers` option.
 * @returns How many.
 * @throws {RangeError} For a number that is not a whole number from 0 to 64.
 */
export function helperCount(asked: number | undefined): number {
  if (asked === undefined) return defaultHelpers();
  if (!Number.isInteger(asked) || asked < 0 || asked > 64) {
    throw new RangeError(
      `helpers must be a whole number from 0 to 64, not ${asked}`,
    );
  }
  return asked;
}

/** When helpers pay for themselves. */
export interface HelperTiming {
  /** Pieces listed from which helpers start at once. */
  eagerFiles: number;
  /** Else after this thread read alone for this long... */
  afterMs: number;
  /** ...where what is left would take it this long. */
  leftMs: number;
}

/**
 * The passes' thresholds: helpers at once for 2,500 files or more, else
 * after 20 ms of reading alone where ~100 ms of it is left.
 */
export const HELPER_TIMING: Readonly<HelperTiming> = {
  eagerFiles: 2500,
  afterMs: 20,
  leftMs: 100,
};

/**
 * Whether to start helpers, `ms` into a pass that read `done` of `count`
 * pieces: a helper costs this thread 7–12 ms to start (Deno makes a
 * Worker's isolate on the thread that asks, even for a `data:` module)
 * and reads nothing for ~20 ms more, so only where this thread has
 * `leftMs` of reading left, judged by the pieces read so far.
 *
 * @param timing The pass's thresholds.
 * @param ms Milliseconds into the pass.
 * @param done Pieces read.
 * @param count Pieces in all.
 * @returns True when helpers should start now.
 */
export function worthHelping(
  timing: HelperTiming,
  ms: number,
  done: number,
  count: number,
): boolean {
  if (ms < timing.afterMs) return false;
  const left = count - done;
  return left > 0 && (done === 0 ? 0 : ms / done) * left >= timing.leftMs;
}

/** A pass's helper settings: when they start, their module, what they did (tests read and change them). */
export interface HelperSettings extends HelperTiming {
  /** The helpers' module. */
  module: URL;
  /** Awaited once helpers are started (tests: time for them to claim pieces). */
  started: (() => Promise<void>) | undefined;
  /** Pieces the helpers of the last pass posted. */
  posted: number;
}

/**
 * Change a pass's helper settings until the returned function is called
 * (tests).
 *
 * @param settings The pass's settings.
 * @param change What to change.
 * @returns What restores them.
 */
export function changeSettings<T extends HelperSettings>(
  settings: T,
  change: Partial<T>,
): () => void {
  const before = { ...settings };
  Object.assign(settings, change);
  return () => Object.assign(settings, before);
}

/**
 * Which pieces of a pass's work are claimed, shared by its threads: the
 * caller claims from the front (and may count as it reads: every piece
 * before its own is its own), helpers claim from the back, and the two
 * meet.
 */
export class PieceClaims {
  /**
   * The shared memory: the back's next piece (an `Int32`), then a byte
   * per piece; not shared where the runtime has no `SharedArrayBuffer`
   * (then no helper starts).
   */
  readonly buffer: SharedArrayBuffer;
  readonly #back: Int32Array;
  readonly #taken: Uint8Array;

  /**
   * Claims over `count` pieces, none taken, or over a shared buffer.
   *
   * @param count The pieces.
   * @param buffer The memory of the claims made by another thread.
   */
  constructor(count: number, buffer?: SharedArrayBuffer) {
    this.buffer = buffer ??
      (THREADS
        ? new SharedArrayBuffer(4 + count)
        : new ArrayBuffer(4 + count) as unknown as SharedArrayBuffer);
    this.#back = new Int32Array(this.buffer, 0, 1);
    this.#taken = new Uint8Array(this.buffer, 4, count);
    if (buffer === undefined) this.#back[0] = count - 1;
  }

  /** Claim piece `i` from the front: false when a helper took it. */
  front(i: number): boolean {
    return Atomics.compareExchange(this.#taken, i, 0, 1) === 0;
  }

  /** Claim the last piece not claimed, from the back; -1 when the front reached it. */
  back(): number {
    const j = Atomics.sub(this.#back, 0, 1);
    if (j < 0) return -1;
    return Atomics.compareExchange(this.#taken, j, 0, 1) === 0 ? j : -1;
  }
}

/** Helper threads at work on one pass: they are sent `S` and post `R`s, the last one `done`. */
export class HelperThreads<S, R extends { done: boolean }> {
  readonly #workers: Worker[] = [];
  #running = 0;
  #finished = Promise.withResolvers<void>();

  /**
   * Start `count` helpers; they wait for {@linkcode HelperThreads.begin}.
   *
   * @param count How many.
   * @param module Their module.
   * @param onReply Where their posts go (on this thread's event loop).
   * @returns The helpers, or undefined where no thread could be started.
   */
  static start<S, R extends { done: boolean }>(
    count: number,
    module: URL,
    onReply: (reply: R) => void,
  ): HelperThreads<S, R> | undefined {
    const helpers = new HelperThreads<S, R>();
    for (let k = 0; k < count; k++) {
      let worker: Worker;
      try {
        worker = new Worker(module.href, { type: "module" });
      } catch {
        break; // no threads here (or not allowed): the caller reads alone
      }
      helpers.#workers.push(worker);
      helpers.#running++;
      let done = false;
      const end = (failed: boolean) => {
        if (done) return;
        done = true;
        // A failed helper posts nothing more: the pieces it claimed and
        // did not post are read by the caller, once.
        if (failed) worker.terminate();
        if (--helpers.#running === 0) helpers.#finished.resolve();
      };
      worker.onmessage = (e: MessageEvent<R>) => {
        if (done) return;
        onReply(e.data);
        if (e.data.done) end(false);
      };
      worker.onerror = (e) => {
        e.preventDefault(); // its pieces are read by the caller
        end(true);
      };
      worker.onmessageerror = () => end(true);
    }
    if (helpers.#workers.length === 0) return undefined;
    return helpers;
  }

  /**
   * Give the helpers the pass's work: they claim and read it.
   *
   * @param start The pieces and the claims.
   */
  begin(start: S): void {
    for (const w of this.#workers) w.postMessage(start);
  }

  /** Settles once every helper is done or dead. */
  finished(): Promise<void> {
    return this.#finished.promise;
  }

  /** Stop every helper (done or not). */
  close(): void {
    for (const w of this.#workers) w.terminate();
    this.#finished.resolve();
  }
}
