/**
 * The helper threads of a usage pass, seen from the calling thread: started
 * where a pass has more work left than it is worth starting a thread for
 * (a Web Worker takes ~15–25 ms to start), each reading the pieces of work
 * it claims (files, or parts of large ones: `_usage_helper.ts`) and
 * posting their calls. A helper that fails to start or dies leaves the
 * pieces it claimed and did not post to the calling thread, which reads
 * them itself.
 *
 * @module
 */

import type { CallLogMessage } from "./_call_log.ts";

/** Whether this runtime can run helpers: Web Workers and shared memory. */
export const THREADS: boolean = typeof Worker === "function" &&
  typeof SharedArrayBuffer === "function";

/**
 * Which pieces of a pass's work (files, or parts of large ones) are
 * claimed, shared by its threads: the caller claims from the front and
 * counts as it reads (no call of its pieces is held), helpers claim from
 * the back, and the two meet.
 */
export class FileClaims {
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

/** What a helper is sent: the pass's pieces of work, and the shared claims. */
export interface HelperStart {
  /** The files and parts of files, in the pass's order; a piece's number is its index. */
  items: { path: string; from: number; to: number }[];
  /** {@linkcode FileClaims.buffer}. */
  claims: SharedArrayBuffer;
  /** Bytes read at a time. */
  chunk: number;
}

/** What a helper posts: the calls of the pieces it read since its last post. */
export interface HelperReply {
  /** The pieces and their calls. */
  log: CallLogMessage;
  /** Whether the helper is done (no piece left to claim). */
  done: boolean;
}

/** Helper threads at work on one pass. */
export class UsageHelpers {
  readonly #workers: Worker[] = [];
  #running = 0;
  #finished = Promise.withResolvers<void>();

  /**
   * Start `count` helpers; they wait for {@linkcode UsageHelpers.begin}.
   *
   * @param count How many.
   * @param module Their module (`_usage_helper.ts`).
   * @param onLog Where their posts go (on this thread's event loop).
   * @returns The helpers, or undefined where no thread could be started.
   */
  static start(
    count: number,
    module: URL,
    onLog: (log: CallLogMessage) => void,
  ): UsageHelpers | undefined {
    const helpers = new UsageHelpers();
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
        // A failed helper posts nothing more: the files it claimed and did
        // not post are read by the caller, once.
        if (failed) worker.terminate();
        if (--helpers.#running === 0) helpers.#finished.resolve();
      };
      worker.onmessage = (e: MessageEvent<HelperReply>) => {
        if (done) return;
        onLog(e.data.log);
        if (e.data.done) end(false);
      };
      worker.onerror = (e) => {
        e.preventDefault(); // its files are read by the caller
        end(true);
      };
      worker.onmessageerror = () => end(true);
    }
    if (helpers.#workers.length === 0) return undefined;
    return helpers;
  }

  /**
   * Give the helpers the pass's files: they claim and read them.
   *
   * @param start The files and the claims.
   */
  begin(start: HelperStart): void {
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
