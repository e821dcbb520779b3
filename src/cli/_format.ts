/**
 * Terminal output shared by the CLI's commands: a table sized to the
 * terminal, a progress bar, byte sizes.
 *
 * @module
 */

/** One column of {@linkcode formatTable}. */
export interface TableColumn {
  /** The heading. */
  header: string;
  /** Right-align the cells (numbers). Default false. */
  right?: boolean;
  /**
   * How the column gives way when the table is wider than the terminal:
   * `end` cuts a cell's end, `start` its start (paths keep their tail).
   * Columns without it never shrink.
   */
  shrink?: "end" | "start";
  /** Shrink order: lower gives way first. Default 0. */
  priority?: number;
  /** Narrowest the column shrinks to, in cells. Default 8. */
  min?: number;
  /** Leave the column out when the table cannot fit otherwise. */
  optional?: boolean;
}

/** Cells between two columns. */
const _GAP = 2;
const _ELLIPSIS = "…";
const _segmenter = new Intl.Segmenter();

/**
 * A table that fits `width` terminal cells: optional columns are left out
 * (the last first) while even the narrowest table would not fit, then the
 * shrinkable columns give way (cells cut with `…`) in priority order, and a
 * line that still does not fit is cut at `width`, so no line ever wraps. With an infinite width (output
 * that is not a terminal) every row is printed in full. Control characters in
 * cells become spaces, so a hostile title cannot move the cursor.
 *
 * @param columns The columns.
 * @param rows The cells, one array per row, as many as `columns`.
 * @param width The terminal's width in cells.
 * @returns The lines, joined by `"\n"`, without a final newline.
 */
export function formatTable(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
  width: number,
): string {
  const all = [columns.map((c) => c.header), ...rows].map((r) =>
    r.map(sanitize)
  );
  const natural = columns.map((_, i) =>
    Math.max(...all.map((r) => textWidth(r[i] ?? "")))
  );
  const least = (i: number): number =>
    columns[i]!.shrink === undefined
      ? natural[i]!
      : Math.min(natural[i]!, columns[i]!.min ?? 8);
  // Drop optional columns, last first, while even the narrowest table is too wide.
  let keep = columns.map((_, i) => i);
  const span = (cols: number[], w: (i: number) => number): number =>
    cols.reduce((n, i) => n + w(i), 0) + _GAP * (cols.length - 1);
  for (let i = columns.length - 1; i >= 0; i--) {
    if (span(keep, least) <= width) break;
    if (columns[i]!.optional === true) keep = keep.filter((k) => k !== i);
  }
  const widths = [...natural];
  let excess = span(keep, (i) => natural[i]!) - width;
  const order = keep.filter((i) => columns[i]!.shrink !== undefined)
    .sort((a, b) => (columns[a]!.priority ?? 0) - (columns[b]!.priority ?? 0));
  for (const i of order) {
    if (excess <= 0) break;
    const give = Math.min(excess, natural[i]! - least(i));
    widths[i]! -= give;
    excess -= give;
  }
  const lines = all.map((r) =>
    keep.map((i, k) => {
      const c = columns[i]!;
      const w = widths[i]!;
      const fitted = truncate(r[i] ?? "", w, c.shrink ?? "end");
      const pad = " ".repeat(Math.max(0, w - textWidth(fitted)));
      if (c.right === true) return pad + fitted;
      return k === keep.length - 1 ? fitted : fitted + pad;
    }).join(" ".repeat(_GAP))
  );
  return lines.map((l) => truncate(l, width, "end")).join("\n");
}

/**
 * Text safe to print on a terminal: control characters (C0, C1, the line and
 * paragraph separators) become spaces.
 *
 * @param text Any text.
 * @returns The text without control characters.
 */
export function sanitize(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, " ");
}

/**
 * {@linkcode sanitize} for each line of a text: its line breaks are kept.
 *
 * @param text Lines joined by `"\n"`.
 * @returns The text without other control characters.
 */
export function sanitizeLines(text: string): string {
  return text.split("\n").map(sanitize).join("\n");
}

/**
 * The terminal cells `text` takes: wide East Asian characters and emoji take
 * two, combining marks and joiners none, everything else one.
 *
 * @param text Text without control characters.
 * @returns Its width in cells.
 */
export function textWidth(text: string): number {
  // deno-lint-ignore no-control-regex
  if (/^[\x00-\x7e]*$/.test(text)) return text.length;
  let n = 0;
  for (const { segment } of _segmenter.segment(text)) n += _cells(segment);
  return n;
}

/**
 * `text` cut to at most `width` cells, `…` marking the cut.
 *
 * @param text The text.
 * @param width The cells available.
 * @param from Which end is cut: `end` keeps the start, `start` the end.
 * @returns The text, whole when it fits.
 */
export function truncate(
  text: string,
  width: number,
  from: "start" | "end" = "end",
): string {
  if (textWidth(text) <= width) return text;
  if (width <= 0) return "";
  const graphemes = Array.from(_segmenter.segment(text), (s) => s.segment);
  if (from === "start") graphemes.reverse();
  const kept: string[] = [];
  let used = 1; // the ellipsis
  for (const g of graphemes) {
    const w = _cells(g);
    if (used + w > width) break;
    kept.push(g);
    used += w;
  }
  if (from === "start") return _ELLIPSIS + kept.reverse().join("");
  return kept.join("") + _ELLIPSIS;
}

const _WIDE: readonly [number, number][] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x20000, 0x3fffd],
];

function _cells(grapheme: string): number {
  if (/^[\p{Mn}\p{Me}\p{Cf}]+$/u.test(grapheme)) return 0;
  if (
    /\p{Extended_Pictographic}/u.test(grapheme) &&
    (/\p{Emoji_Presentation}|\uFE0F/u.test(grapheme))
  ) {
    return 2;
  }
  const cp = grapheme.codePointAt(0)!;
  return _WIDE.some(([lo, hi]) => cp >= lo && cp <= hi) ? 2 : 1;
}

/** Binary units, labelled as `gen --size` reads them (`M` = 1024²). */
const _UNITS = ["B", "KB", "MB", "GB", "TB"] as const;

/**
 * A byte count for people: `512 B`, `1.5 KB`, `45.0 MB` (binary units, as
 * `gen --size` reads them).
 *
 * @param bytes A count.
 * @param unit Force this unit's power of 1024 (for `45.0/100.0 MB`).
 * @returns The text.
 */
export function formatBytes(bytes: number, unit?: number): string {
  const power = unit ?? _unitOf(bytes);
  if (power === 0) return `${bytes} B`;
  return `${(bytes / 1024 ** power).toFixed(1)} ${_UNITS[power]}`;
}

function _unitOf(bytes: number): number {
  let power = 0;
  while (power < _UNITS.length - 1 && Math.abs(bytes) >= 1024 ** (power + 1)) {
    power++;
  }
  return power;
}

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
    let amount: string;
    if (this.#unit === "bytes") {
      const power = _unitOf(this.#total);
      const [d, t] = [done, this.#total].map((n) =>
        power === 0 ? String(n) : (n / 1024 ** power).toFixed(1)
      );
      amount = `${d}/${t} ${_UNITS[power]}`;
    } else {
      amount = `${done}/${this.#total} ${this.#unit}`;
    }
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
