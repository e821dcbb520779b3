/**
 * Progress bars on standard error, drawn in place when it is a terminal
 * (never when it is a file or a pipe): one of a known total, or one per
 * phase of work that reports its own. A bar says how long is left, from
 * how fast the work has gone so far, and is wiped when the work ends: the
 * terminal keeps the command's output, not its bars.
 *
 * @module
 */

import { formatBytesOf } from "./_format.ts";

/** Options for {@linkcode ProgressBar}. */
export interface ProgressBarOptions {
  /** The amount at 100 %. */
  total: number;
  /** `bytes` (`45.0/100.0 MB`) or a noun for counts (`9/20 files`). */
  unit: "bytes" | string;
  /** Cells of the bar. Default 10. */
  width?: number;
  /** Milliseconds between redraws. Default 80. */
  interval?: number;
  /** The clock, in milliseconds (tests pass their own). Default `performance.now`. */
  now?: () => number;
}

/**
 * How long a bar runs before it guesses how long is left: the first
 * moments (opening files, a cold cache) say little about the rate.
 */
export const ETA_AFTER_MS = 1000;

/**
 * A one-line progress bar, `\r[#####     ] 45% 45.0/100.0 MB · 12s left`,
 * redrawn in place at most every `interval` ms and wiped by
 * {@linkcode ProgressBar.finish} (spaces over it, with no escape sequence:
 * `NO_COLOR` terminals get none). The time left is the time so far scaled
 * by the work left, once the bar has run {@linkcode ETA_AFTER_MS}. Draw it
 * only on a terminal (see {@linkcode progressBar}).
 */
export class ProgressBar {
  readonly #write: (text: string) => void;
  readonly #total: number;
  readonly #unit: string;
  readonly #width: number;
  readonly #interval: number;
  readonly #now: () => number;
  readonly #startedAt: number;
  #last = "";
  #lastAt = Number.NEGATIVE_INFINITY;

  /**
   * A bar that writes to `write`.
   *
   * @param write Where the bar goes (standard error).
   * @param options Total, unit, width.
   */
  constructor(write: (text: string) => void, options: ProgressBarOptions) {
    this.#write = write;
    this.#total = options.total;
    this.#unit = options.unit;
    this.#width = options.width ?? 10;
    this.#interval = options.interval ?? 80;
    this.#now = options.now ?? (() => performance.now());
    this.#startedAt = this.#now();
  }

  /**
   * Show `done` of the total (throttled; 100 % is always drawn).
   *
   * @param done The amount done.
   */
  update(done: number): void {
    const now = this.#now();
    const final = done >= this.#total;
    if (!final && now - this.#lastAt < this.#interval) return;
    const text = this.render(done, now - this.#startedAt);
    if (text === this.#last) return;
    const pad = " ".repeat(Math.max(0, this.#last.length - text.length));
    this.#write(`\r${text}${pad}`);
    this.#last = text;
    this.#lastAt = now;
  }

  /**
   * Draw `done`, then wipe the bar: the cursor is left at the start of an
   * empty line, where the command's next words go.
   *
   * @param done The amount done.
   */
  finish(done: number): void {
    this.#lastAt = Number.NEGATIVE_INFINITY;
    this.update(done);
    if (this.#last !== "") this.#write(clearLine(this.#last.length));
    this.#last = "";
  }

  /**
   * The bar's text for `done`, without `\r`.
   *
   * @param done The amount done.
   * @param elapsed Milliseconds since the bar began; the time left is shown
   *   from {@linkcode ETA_AFTER_MS} on, until the work is done.
   * @returns e.g. `[#####     ] 45% 45.0/100.0 MB · 12s left`.
   */
  render(done: number, elapsed = 0): string {
    const fraction = this.#total > 0
      ? Math.min(1, Math.max(0, done / this.#total))
      : 1;
    const filled = Math.round(fraction * this.#width);
    const bar = "#".repeat(filled) + " ".repeat(this.#width - filled);
    const percent = `${Math.floor(fraction * 100)}%`;
    const amount = this.#unit === "bytes"
      ? formatBytesOf(done, this.#total)
      : `${done}/${this.#total} ${this.#unit}`;
    const left = elapsed >= ETA_AFTER_MS && done > 0 && fraction < 1
      ? ` · ${_timeLeft(elapsed * (this.#total - done) / done)} left`
      : "";
    return `[${bar}] ${percent} ${amount}${left}`;
  }
}

/**
 * What wipes a bar of `width` cells: back to its start, spaces over it,
 * back again. Plain characters, not an erase sequence: it holds on any
 * terminal and prints no escape.
 *
 * @example Wipe a 5-cell bar
 * ```ts
 * import { clearLine } from "./_progress.ts";
 * console.assert(clearLine(5) === "\r     \r");
 * ```
 *
 * @param width The bar's width.
 * @returns The text to write.
 */
export function clearLine(width: number): string {
  return `\r${" ".repeat(width)}\r`;
}

/** A time left as people read it: `8s`, `1m05s`, `2h03m` (rounded up to a second). */
function _timeLeft(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

/** What the commands call: a bar, or nothing when stderr is no terminal. */
export interface Progress {
  /** Show progress. */
  update(done: number): void;
  /** Show the end, then wipe the bar. */
  finish(done: number): void;
}

/**
 * A progress bar on standard error when it is a terminal (and there is
 * enough work to show: `total >= minimum`), else a bar that draws nothing.
 *
 * @param io Where the bar goes, and whether it is a terminal.
 * @param options Total and unit, and the least total worth a bar.
 * @returns The bar.
 */
export function progressBar(
  io: { stderr(text: string): void; stderrIsTerminal?: boolean },
  options: ProgressBarOptions & { minimum?: number },
): Progress {
  if (io.stderrIsTerminal !== true || options.total < (options.minimum ?? 0)) {
    return { update: () => {}, finish: () => {} };
  }
  const bar = new ProgressBar((s) => io.stderr(s), options);
  return { update: (d) => bar.update(d), finish: (d) => bar.finish(d) };
}

/** Work that reports its progress in phases, each with its total and unit. */
export interface Phases {
  /** Show `done` of `total`; a new total or unit begins a new bar. */
  update(done: number, total: number, unit: string): void;
  /** Show the last phase's end, then wipe its bar; again, nothing. */
  finish(): void;
}

/**
 * A bar per phase of work (refreshing an index, then reading files), each
 * made on its phase's first report, when it is worth one.
 *
 * @param io Where the bars go, and whether it is a terminal.
 * @param minimum By unit, the least total worth a bar. Default 0.
 * @param now The bars' clock (tests pass their own).
 * @returns The phases' bars.
 */
export function progressPhases(
  io: { stderr(text: string): void; stderrIsTerminal?: boolean },
  minimum: Readonly<Record<string, number>> = {},
  now?: () => number,
): Phases {
  let bar: Progress | undefined;
  let phase = "";
  let last = 0;
  return {
    update: (done, total, unit) => {
      if (`${total} ${unit}` !== phase) {
        bar?.finish(last);
        phase = `${total} ${unit}`;
        bar = progressBar(io, {
          total,
          unit,
          minimum: minimum[unit] ?? 0,
          ...(now === undefined ? {} : { now }),
        });
      }
      last = done;
      bar!.update(done);
    },
    // Once: a second call (a command's finally after its own) draws nothing.
    finish: () => {
      bar?.finish(last);
      bar = undefined;
      phase = "";
    },
  };
}
