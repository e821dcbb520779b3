/**
 * Turns of the event loop during long passes over many files. A pass reads
 * a small file with synchronous calls, and every `await` between its files
 * then settles at once, as a microtask: without a turn of the event loop,
 * a refresh of 10,000 sessions would hold the host's timers and I/O for
 * seconds.
 *
 * @module
 */

/** Milliseconds of work between two turns. */
const _EVERY_MS = 20;

/**
 * Gives the event loop a turn once ~20 ms of work went by since the last
 * one: a `setTimeout(0)`, which Deno runs after ~1 ms, polling the loop's
 * I/O meanwhile. A `setImmediate` costs ~0.1 ms but runs only the timers:
 * with it, a pipe to a child process or an HTTP client of the host made no
 * progress at all during a pass (Deno 2.9), and a host's file reads 8×
 * fewer. A message through a `MessageChannel` does the same. The ~1 ms per
 * 20 ms is the time the host gets: a usage pass over 10,000 sessions took
 * ~8 % longer. A `setTimeout` only every third turn cost ~0 but let a pipe
 * to a child process go 4× slower than every turn does.
 */
export class EventLoopTurns {
  #last = performance.now();
  /** The turn due, which every worker that asks waits for. */
  #turn: Promise<void> | undefined;

  /**
   * A turn of the event loop, if it is time for one. Workers sharing these
   * turns wait for the same one while it is due: it comes once every
   * worker waits, and the ~20 ms of work after it are theirs together
   * (with a turn each, 4 workers held the loop 4 times as long).
   *
   * @returns What settles after the turn, or undefined when it is not time.
   */
  give(): Promise<void> | undefined {
    if (this.#turn !== undefined) return this.#turn;
    if (performance.now() - this.#last < _EVERY_MS) return undefined;
    this.#turn = new Promise<void>((resolve) => {
      setTimeout(() => {
        this.#last = performance.now();
        this.#turn = undefined;
        resolve();
      });
    });
    return this.#turn;
  }
}
