/**
 * A regular expression as a search's matcher. It runs on each entry's text
 * (at most 64 Ki characters, see `SEARCH_TEXT_CHARS`), which bounds what a
 * slow pattern costs per entry, though not a pattern that backtracks
 * exponentially: that is the caller's to avoid.
 *
 * @module
 */

import type { Matcher } from "./_hits.ts";
import type { MatchSpan } from "./_query.ts";

/**
 * A matcher for a JavaScript regular expression, case-insensitive and
 * Unicode-aware (flags `iu`).
 *
 * @param pattern The pattern.
 * @returns The matcher.
 * @throws {TypeError} When the pattern is empty, holds a NUL or is not valid.
 */
export function regexMatcher(pattern: string): Matcher {
  if (pattern === "") throw new TypeError("Cannot search: the query is empty");
  if (pattern.includes("\0")) {
    throw new TypeError("Cannot search: the query holds a NUL character");
  }
  let re: RegExp;
  try {
    re = new RegExp(pattern, "iu");
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new TypeError(
      `Cannot search: the pattern is not a valid regular expression (${why})`,
    );
  }
  return {
    match(text: string): MatchSpan | undefined {
      const m = re.exec(text);
      return m === null
        ? undefined
        : { start: m.index, end: m.index + m[0].length };
    },
  };
}
