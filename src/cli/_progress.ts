/**
 * Progress bars on standard error, drawn in place when it is a terminal:
 * one of a known total, or one per phase of work that reports its own.
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
}

/**
 * A one-line progress bar, `\r[#####     ] 45% 45.0/100.0 MB`, redrawn in
 * place at most every `interval` ms. Draw it only on a terminal (see
 * {@linkcode progressBar}).
 */
export class ProgressBar {
  readonly #write: (text: string) => void;
  readonly #total: number;
  readonly #unit: string;
  readonly #width: number;
  readonly #interval: number;
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
  }

  /**
   * Show `done` of the total (throttled; 100 % is always drawn).
   *
   * @param done The amount done.
   */
  update(done: number): void {
    const now = performance.now();
    const final = done >= this.#total;
    if (!final && now - this.#lastAt < this.#interval) return;
    const text = this.render(done);
    if (text === this.#last) return;
    const pad = " ".repeat(Math.max(0, this.#last.length - text.length));
    this.#write(`\r${text}${pad}`);
    this.#last = text;
    this.#lastAt = now;
  }

  /**
   * Draw `done` and end the line.
   *
   * @param done The amount done.
   */
  finish(done: number): void {
    this.#lastAt = Number.NEGATIVE_INFINITY;
    this.update(done);
    if (this.#last !== "") this.#write("\n");
  }

  /**
   * The bar's text for `done`, without `\r`.
   *
   * @param done The amount done.
   * @returns e.g. `[#####     ] 45% 45.0/100.0 MB`.
   */
  render(done: number): string {
    const fraction = this.#total > 0
      ? Math.min(1, Math.max(0, done / this.#total))
      : 1;
    const filled = Math.round(fraction * this.#width);
    const bar = "#".repeat(filled) + " ".repeat(this.#width - filled);
    const percent = `${Math.floor(fraction * 100)}%`;
    const amount = this.#unit === "bytes"
      ? formatBytesOf(done, this.#total)
      : `${done}/${this.#total} ${this.#unit}`;
    return `[${bar}] ${percent} ${amount}`;
  }
}

/** What the commands call: a bar, or nothing when stderr is no terminal. */
export interface Progress {
  /** Show progress. */
  update(done: number): void;
  /** Show the end and finish the line. */
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
  /** Show the last phase's end and finish the line. */
  finish(): void;
}

/**
 * A bar per phase of work (refreshing an index, then reading files), each
 * made on its phase's first report, when it is worth one.
 *
 * @param io Where the bars go, and whether it is a terminal.
 * @param minimum By unit, the least total worth a bar. Default 0.
 * @returns The phases' bars.
 */
export function progressPhases(
  io: { stderr(text: string): void; stderrIsTerminal?: boolean },
  minimum: Readonly<Record<string, number>> = {},
): Phases {
  let bar: Progress | undefined;
  let phase = "";
  let last = 0;
  return {
    update: (done, total, unit) => {
      if (`${total} ${unit}` !== phase) {
        bar?.finish(last);
        phase = `${total} ${unit}`;
        bar = progressBar(io, { total, unit, minimum: minimum[unit] ?? 0 });
      }
      last = done;
      bar!.update(done);
    },
    finish: () => bar?.finish(last),
  };
}
