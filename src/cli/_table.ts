/**
 * A table sized to the terminal: columns give way, in an order the caller
 * sets, so that no line ever wraps, and no cut ever makes two different
 * cells of a column read the same.
 *
 * @module
 */

import { sanitize, textWidth, truncate } from "./_format.ts";
import { wrapCells, wrapWords } from "./_wrap.ts";

/** How a cell is cut to fit: which part gives way to `…`. */
export type TableShrink = "end" | "start" | "middle";

/** One column of {@linkcode formatTable}. */
export interface TableColumn {
  /** The heading. */
  header: string;
  /** Right-align the cells (numbers). Default false. */
  right?: boolean;
  /**
   * How the column gives way when the table is wider than the terminal:
   * `end` cuts a cell's end, `start` its start (paths keep their tail),
   * `middle` keeps both ends. Columns without it never shrink. When the
   * cut would make two different cells read the same, another cut is
   * tried, then more room, then those cells wrap.
   */
  shrink?: TableShrink;
  /**
   * Only the column's own cut, never another (an id cut at its end is a
   * prefix a command takes; cut in the middle it is nothing): cells it
   * would confuse wrap instead. Default false.
   */
  ownCutOnly?: boolean;
  /** Shrink order: lower gives way first. Default 0. */
  priority?: number;
  /** Narrowest the column shrinks to, in cells. Default 8. */
  min?: number;
  /** Leave the column out when the table cannot fit otherwise. */
  optional?: boolean;
}

/** Options of {@linkcode formatTable}. */
export interface TableOptions {
  /**
   * Where a reader finds the columns left out, for the note under the
   * table (`--json has them`). Without it the note names the columns only.
   */
  leftOutHint?: string;
}

/** Cells between two columns. */
const _GAP = 2;

/** Narrowest a shrinkable column gets when even the `min`s do not fit. */
const _NARROWEST = 4;

/** The cuts tried, after the column's own, to keep cells apart. */
const _CUTS: readonly TableShrink[] = ["middle", "start", "end"];

/**
 * A table that fits `width` terminal cells. Each shrinkable column has a
 * floor: the narrowest width at which some cut (its own first, then the
 * middle, the start, the end) still tells every two different cells apart,
 * never below its `min`. Optional columns are left out (the last first)
 * while the floors do not fit, and a line under the table names them; then
 * the shrinkable columns give way in priority order. Should even the
 * floors not fit, the columns go down to their `min` and a cell whose cut
 * would read like another's wraps over more lines instead; a line that
 * still does not fit is cut at `width`. So no line wraps on the terminal
 * and no two different values print alike. With an infinite width (output
 * that is not a terminal) every row is printed in full. Control characters
 * in cells become spaces, so a hostile title cannot move the cursor.
 *
 * @param columns The columns.
 * @param rows The cells, one array per row, as many as `columns`.
 * @param width The terminal's width in cells.
 * @param options Where the columns left out can be found.
 * @returns The lines, joined by `"\n"`, without a final newline.
 */
export function formatTable(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
  width: number,
  options: TableOptions = {},
): string {
  const all = [columns.map((c) => c.header), ...rows].map((r) =>
    columns.map((_, i) => sanitize(r[i] ?? ""))
  );
  const cells = all.map((r) => r.map(textWidth));
  const natural = columns.map((_, i) =>
    cells.reduce((most, r) => Math.max(most, r[i]!), 0)
  );
  const least = (i: number): number =>
    columns[i]!.shrink === undefined
      ? natural[i]!
      : Math.min(natural[i]!, columns[i]!.min ?? 8);
  const values = (i: number): string[] => all.slice(1).map((r) => r[i]!);
  const span = (cols: number[], w: (i: number) => number): number =>
    cols.reduce((n, i) => n + w(i), 0) + _GAP * (cols.length - 1);
  const fits = span(columns.map((_, i) => i), (i) => natural[i]!) <= width;
  const apart = columns.map((c, i) =>
    c.shrink === undefined || fits
      ? natural[i]!
      : _apartFloor(values(i), _cutsOf(c), least(i), natural[i]!)
  );
  // Drop optional columns, last first, while even the narrowest table is too wide.
  let keep = columns.map((_, i) => i);
  for (let i = columns.length - 1; i >= 0; i--) {
    if (span(keep, (k) => apart[k]!) <= width) break;
    if (columns[i]!.optional === true) keep = keep.filter((k) => k !== i);
  }
  const floor = span(keep, (k) => apart[k]!) <= width ? apart : natural.map((
    _,
    i,
  ) => least(i));
  const widths = [...natural];
  let excess = span(keep, (i) => natural[i]!) - width;
  const order = keep.filter((i) => columns[i]!.shrink !== undefined)
    .sort((a, b) => (columns[a]!.priority ?? 0) - (columns[b]!.priority ?? 0));
  for (const i of order) {
    if (excess <= 0) break;
    const give = Math.min(excess, natural[i]! - floor[i]!);
    widths[i]! -= give;
    excess -= give;
  }
  // Still too wide at every min: the widest shrinkable column gives a cell
  // at a time, down to _NARROWEST (cells a cut would confuse then wrap).
  while (excess > 0) {
    const widest = order.reduce<number | undefined>(
      (w, i) =>
        (widths[i]! > _NARROWEST &&
            (w === undefined || widths[i]! > widths[w]!))
          ? i
          : w,
      undefined,
    );
    if (widest === undefined) break;
    widths[widest]! -= 1;
    excess -= 1;
  }
  // Each column's cells, as lines: cut the way that keeps them apart, or wrapped.
  const fitted = keep.map((i) =>
    _fit(values(i), _cutsOf(columns[i]!), widths[i]!)
  );
  const lines: string[] = [];
  for (const [row, r] of all.entries()) {
    const parts = keep.map((i, k) =>
      row === 0 ? [truncate(r[i]!, widths[i]!, "end")] : fitted[k]![row - 1]!
    );
    const height = Math.max(...parts.map((p) => p.length));
    for (let line = 0; line < height; line++) {
      lines.push(
        keep.map((i, k) => {
          const text = parts[k]![line] ?? "";
          const pad = " ".repeat(Math.max(0, widths[i]! - textWidth(text)));
          if (columns[i]!.right === true) return pad + text;
          return k === keep.length - 1 ? text : text + pad;
        }).join(" ".repeat(_GAP)).trimEnd(),
      );
    }
  }
  const over = span(keep, (i) => widths[i]!) > width;
  const out = over ? lines.map((l) => truncate(l, width, "end")) : lines;
  const left = columns.filter((_, i) => !keep.includes(i)).map((c) => c.header);
  if (left.length > 0) {
    const hint = options.leftOutHint === undefined
      ? ""
      : `; ${options.leftOutHint}`;
    const note = `(${left.join(", ")} left out at ${width} columns${hint})`;
    out.push(...wrapWords(sanitize(note), width));
  }
  return out.join("\n");
}

/** Whether cutting every value the way `shrink` says to `w` cells keeps different values apart. */
function _keepsApart(
  values: readonly string[],
  shrink: TableShrink,
  w: number,
): boolean {
  const seen = new Map<string, string>();
  for (const v of values) {
    const cut = truncate(v, w, shrink);
    const before = seen.get(cut);
    if (before !== undefined && before !== v) return false;
    seen.set(cut, v);
  }
  return true;
}

/** The cuts a column may take, its own first. */
function _cutsOf(c: TableColumn): TableShrink[] {
  const own = c.shrink ?? "end";
  return c.ownCutOnly === true
    ? [own]
    : [own, ..._CUTS.filter((x) => x !== own)];
}

/** The first of `cuts` that keeps the values apart at `w` cells. */
function _cutAt(
  values: readonly string[],
  cuts: readonly TableShrink[],
  w: number,
): TableShrink | undefined {
  return cuts.find((c) => _keepsApart(values, c, w));
}

/** The narrowest width from `least` up at which some cut keeps the values apart. */
function _apartFloor(
  values: readonly string[],
  cuts: readonly TableShrink[],
  least: number,
  natural: number,
): number {
  // A binary search: wider cuts keep values apart at least as often, all but
  // always (a middle cut can move its seam); `_fit` wraps where they do not.
  let [lo, hi] = [least, natural];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (_cutAt(values, cuts, mid) !== undefined) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * A column's cells at `w` cells, each as its lines: whole when they fit,
 * else cut the first way that keeps different values apart; when no cut
 * does, the cells a cut would confuse wrap over as many lines as they need.
 */
function _fit(
  values: readonly string[],
  cuts: readonly TableShrink[],
  w: number,
): string[][] {
  const cut = _cutAt(values, cuts, w);
  const shrink = cuts[0]!;
  if (cut !== undefined) return values.map((v) => [truncate(v, w, cut)]);
  const byCut = new Map<string, Set<string>>();
  for (const v of values) {
    const c = truncate(v, w, shrink);
    byCut.set(c, (byCut.get(c) ?? new Set()).add(v));
  }
  return values.map((v) => {
    const c = truncate(v, w, shrink);
    return byCut.get(c)!.size > 1 ? wrapCells(v, w) : [c];
  });
}
