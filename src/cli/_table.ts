/**
 * A table sized to the terminal: columns give way, in an order the caller
 * sets, so that no line ever wraps.
 *
 * @module
 */

import { sanitize, textWidth, truncate } from "./_format.ts";

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
  shrink?: "end" | "start" | "middle";
  /** Shrink order: lower gives way first. Default 0. */
  priority?: number;
  /** Narrowest the column shrinks to, in cells. Default 8. */
  min?: number;
  /** Leave the column out when the table cannot fit otherwise. */
  optional?: boolean;
}

/** Cells between two columns. */
const _GAP = 2;

/**
 * A table that fits `width` terminal cells: optional columns are left out
 * (the last first) while even the narrowest table would not fit, then the
 * shrinkable columns give way (cells cut with `…`) in priority order, and a
 * line that still does not fit is cut at `width`, so no line ever wraps.
 * With an infinite width (output that is not a terminal) every row is
 * printed in full. Control characters in cells become spaces, so a hostile
 * title cannot move the cursor.
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
  const cells = all.map((r) => columns.map((_, i) => textWidth(r[i] ?? "")));
  const natural = columns.map((_, i) =>
    cells.reduce((most, r) => Math.max(most, r[i]!), 0)
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
  const lines = all.map((r, row) =>
    keep.map((i, k) => {
      const c = columns[i]!;
      const w = widths[i]!;
      const whole = cells[row]![i]!;
      const fitted = whole <= w
        ? r[i] ?? ""
        : truncate(r[i] ?? "", w, c.shrink ?? "end");
      const used = whole <= w ? whole : textWidth(fitted);
      const pad = " ".repeat(Math.max(0, w - used));
      if (c.right === true) return pad + fitted;
      return k === keep.length - 1 ? fitted : fitted + pad;
    }).join(" ".repeat(_GAP))
  );
  // Each line is at most the columns' widths and gaps: cut only if over.
  if (span(keep, (i) => widths[i]!) <= width) return lines.join("\n");
  return lines.map((l) => truncate(l, width, "end")).join("\n");
}
