/**
 * Lines cut to a width in terminal cells: prose between words, a cell
 * between graphemes. Tables wrap the cells a cut would confuse; `stats`
 * wraps its figures under their names.
 *
 * @module
 */

import { textWidth, truncate } from "./_format.ts";

/**
 * Prose in lines of at most `w` cells, broken between words where it can
 * (a word wider than `w` is cut by {@linkcode wrapCells}).
 *
 * @example
 * ```ts
 * import { wrapWords } from "./_wrap.ts";
 * console.assert(wrapWords("a bb ccc", 4).join("|") === "a bb|ccc");
 * ```
 *
 * @param text One line of text, without control characters.
 * @param w The cells a line may take.
 * @returns The lines.
 */
export function wrapWords(text: string, w: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line === "" ? word : `${line} ${word}`;
    if (textWidth(next) <= w || line === "") line = next;
    else {
      lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  return lines.flatMap((l) => wrapCells(l, w));
}

/**
 * `text` in lines of at most `w` cells, cut anywhere between graphemes
 * (for a cell, such as an id, that has no words to break at).
 *
 * @example
 * ```ts
 * import { wrapCells } from "./_wrap.ts";
 * console.assert(wrapCells("0190abcd", 3).join("|") === "019|0ab|cd");
 * ```
 *
 * @param text One line of text, without control characters.
 * @param w The cells a line may take.
 * @returns The lines.
 */
export function wrapCells(text: string, w: number): string[] {
  const lines: string[] = [];
  let rest = text;
  while (textWidth(rest) > w) {
    // Two ellipses past the end make sure truncate cuts: the kept part is
    // at most w cells of `rest`, then one ellipsis, which goes.
    const head = truncate(`${rest}\u2026\u2026`, w + 1, "end").slice(0, -1);
    if (head === "") break; // a grapheme wider than the column
    lines.push(head);
    rest = rest.slice(head.length);
  }
  lines.push(rest);
  return lines;
}
