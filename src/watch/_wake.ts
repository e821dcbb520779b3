/**
 * Waiting, at no cost while nothing happens, for a file to change: the
 * file system's events for its folder, a slow poll where they do not come
 * (network file systems, a watcher limit reached), an abort.
 *
 * @module
 */

import { basename, dirname } from "node:path";
import { fs, type FsEvents } from "../_fs.ts";

/** A waiter for changes to one file; close it to release the watcher. */
export class Wake {
  readonly #name: string;
  readonly #pollMs: number;
  readonly #signal: AbortSignal | undefined;
  #watcher: FsEvents | undefined;
  #pump: Promise<void> = Promise.resolve();
  /** A change came while nobody waited. */
  #dirty = false;
  #wake: (() => void) | undefined;
  readonly #onAbort = (): void => this.#ring();

  /**
   * Start watching.
   *
   * @param path The file.
   * @param pollMs The poll's period, for changes the events miss.
   * @param signal Ends every wait when aborted.
   */
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

  /** Whether file-system events are coming (else only the poll). */
  get watching(): boolean {
    return this.#watcher !== undefined;
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
