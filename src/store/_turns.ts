/**
 * Turns of the event loop during long passes over many files. A pass reads
 * a small file with synchronous calls, and every `await` between its files
 * then settles at once, as a microtask: without a turn of the event loop,
 * a refresh of 10,000 sessions would hold the host's timers and I/O for
 * seconds.
 *
 * @module
 */

import { setImmediate } from "node:timers";

/** Milliseconds of work between two turns. */
const _EVERY_MS = 20;

/**
 * Gives the event loop a turn once ~20 ms of work went by since the last
 * one: `setImmediate`, after the loop's timers and I/O (~0.2 ms here; a
 * `setTimeout(0)` from a loop is clamped to ~2–4 ms, and a message through
 * a `MessageChannel` was delivered without running the timers once Node's
 * modules were loaded).
 */
export class EventLoopTurns {
  #last = performance.now();

  /**
   * A turn of the event loop, if it is time for one. Workers sharing these
   * turns each wait for one while it is due (the time is reset only once a
   * turn ran): the turn comes when every worker waits, and not before.
   *
   * @returns What settles after the turn, or undefined when it is not time.
   */
  give(): Promise<void> | undefined {
    const now = performance.now();
    if (now - this.#last < _EVERY_MS) return undefined;
    return new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#last = performance.now();
        resolve();
      });
    });
  }
}
