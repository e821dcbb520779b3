/**
 * What decides a hit: a search query (its terms, and how a text matches
 * them) or a regular expression. Every path (the index, the scan) decides a hit with the
 * matcher's `match`; the index only narrows down the candidates, so both
 * give the same hits.
 *
 * @module
 */

import type { RE2JS } from "re2js";
import { fold } from "./_fold.ts";

/** What decides whether a text matches: a query, or a regular expression. */
export interface Matcher {
  /** Where `text` matches, or undefined. */
  match(text: string): MatchSpan | undefined;
}

/** One term: every term must match (AND). */
export interface SearchTerm {
  /** `word`: anywhere; `prefix` (`word*`): at a word's start; `phrase` (`"a b"`): the words in order, apart only by white space. */
  kind: "word" | "prefix" | "phrase";
  /** The folded words (one, except in a phrase). */
  words: string[];
}

/** Where a text matches: the first match of the earliest term. */
export interface MatchSpan {
  /** Its first UTF-16 code unit. */
  start: number;
  /** After its last. */
  end: number;
}

/** Text that is not a letter, number or mark ends a word; so does a character of a script written without spaces. */
const _WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;
const _SPACELESS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** A parsed query. */
export class SearchQuery implements Matcher {
  /** The terms. */
  readonly terms: readonly SearchTerm[];
  readonly #phrases: (RegExp | undefined)[];

  private constructor(terms: SearchTerm[]) {
    this.terms = terms;
    this.#phrases = terms.map((t) =>
      t.kind === "phrase"
        ? new RegExp(t.words.map(_escape).join("\\s+"), "gu")
        : undefined
    );
  }

  /**
   * Parse a query: words (all must match, case-insensitively, anywhere in
   * a text), `"a phrase"`, `word*` (at a word's start). Nothing in a query
   * is an operator: `OR`, `NOT`, `-`, `(` are words like any other.
   *
   * @param query The query.
   * @returns The query.
   * @throws {TypeError} When it is empty or holds a NUL character.
   */
  static parse(query: string): SearchQuery {
    if (query.includes("\0")) {
      throw new TypeError("Cannot search: the query holds a NUL character");
    }
    const terms: SearchTerm[] = [];
    const re = /"([^"]*)"?|(\S+)/gu;
    for (const m of query.matchAll(re)) {
      if (m[1] !== undefined) {
        const words = fold(m[1]).split(/\s+/u).filter((w) => w !== "");
        if (words.length === 1) terms.push({ kind: "word", words });
        else if (words.length > 1) terms.push({ kind: "phrase", words });
        continue;
      }
      const word = fold(m[2]!);
      const stem = word.replace(/\*+$/u, "");
      if (stem !== "" && stem !== word) {
        terms.push({ kind: "prefix", words: [stem] });
      } else terms.push({ kind: "word", words: [word] });
    }
    if (terms.length === 0) {
      throw new TypeError("Cannot search: the query is empty");
    }
    return new SearchQuery(terms);
  }

  /**
   * Where `text` matches every term, or undefined.
   *
   * @param text The text.
   * @returns The earliest term's first match.
   */
  match(text: string): MatchSpan | undefined {
    const folded = fold(text);
    let best: MatchSpan | undefined;
    for (let i = 0; i < this.terms.length; i++) {
      const span = this.#matchTerm(i, folded);
      if (span === undefined) return undefined;
      if (best === undefined || span.start < best.start) best = span;
    }
    return best;
  }

  #matchTerm(i: number, folded: string): MatchSpan | undefined {
    const term = this.terms[i]!;
    const phrase = this.#phrases[i];
    if (phrase !== undefined) {
      phrase.lastIndex = 0;
      const m = phrase.exec(folded);
      return m === null
        ? undefined
        : { start: m.index, end: m.index + m[0].length };
    }
    const word = term.words[0]!;
    for (let at = folded.indexOf(word); at !== -1;) {
      if (term.kind === "word" || _wordStart(folded, at)) {
        return { start: at, end: at + word.length };
      }
      at = folded.indexOf(word, at + 1);
    }
    return undefined;
  }
}

/** Whether a word starts at `at`: the text's start, or after a character that ends a word. */
function _wordStart(text: string, at: number): boolean {
  if (at === 0) return true;
  let before = at - 1;
  const low = text.charCodeAt(before);
  if (low >= 0xdc00 && low <= 0xdfff && before > 0) before--;
  const ch = String.fromCodePoint(text.codePointAt(before)!);
  return !_WORD_CHAR.test(ch) || _SPACELESS.test(ch);
}

function _escape(word: string): string {
  return word.replace(/[\\^$.*+?()[\]{}|/]/gu, "\\$&");
}

/**
 * A matcher for a regular expression in RE2's syntax, case-insensitive:
 * the `re2js` engine (a pure JavaScript port of RE2) matches in time
 * linear in the text, whatever the pattern, so no pattern can hang a
 * search. RE2 has no backreferences and no lookaround; `\d`, `\w`, `\s`
 * and `\b` are ASCII, `\p{L}` and the like Unicode; `.` is any character
 * but a newline, `^` and `$` the text's ends. The engine loads with the
 * first regular expression, not with the library.
 *
 * @param pattern The pattern.
 * @returns The matcher.
 * @throws {TypeError} When the pattern is empty, holds a NUL or is not
 * valid RE2 syntax (a backreference, a lookaround, a repeat over 1,000).
 */
export async function regexMatcher(pattern: string): Promise<Matcher> {
  if (pattern === "") throw new TypeError("Cannot search: the query is empty");
  if (pattern.includes("\0")) {
    throw new TypeError("Cannot search: the query holds a NUL character");
  }
  const { RE2JS, RE2JSException } = await import("re2js");
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    if (!(err instanceof RE2JSException)) throw err;
    throw new TypeError(
      `Cannot search: the pattern "${pattern}" is not a regular expression in RE2 syntax (no backreferences or lookaround): ${
        err.message.replace(/^error parsing regexp: /, "")
      }`,
    );
  }
  return {
    match(text: string): MatchSpan | undefined {
      const m = re.matcher(text);
      return m.find() ? { start: m.start(), end: m.end() } : undefined;
    },
  };
}
