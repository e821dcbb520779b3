/**
 * A search query: its terms, how a text matches them, and the same
 * question asked of the full-text index. Every path (the index, the scan)
 * decides a hit with {@linkcode SearchQuery.match}; the index only narrows
 * down the candidates, so both give the same hits.
 *
 * @module
 */

import { caseVariants, fold } from "./_fold.ts";

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

/** Words shorter than this are not in the trigram index's reach. */
export const TRIGRAM_CHARS = 3;

/** Text that is not a letter, number or mark ends a word; so does a character of a script written without spaces. */
const _WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;
const _SPACELESS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** A parsed query. */
export class SearchQuery {
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

  /**
   * The full-text index's `MATCH` expression for candidates: every word of
   * three or more characters, quoted (never an operator), or undefined
   * when no word has three.
   *
   * @returns The expression.
   */
  ftsMatch(): string | undefined {
    const words = this.#words().filter((w) => _chars(w) >= TRIGRAM_CHARS);
    if (words.length === 0) return undefined;
    return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(" AND ");
  }

  /**
   * For each word shorter than three characters, every way a text can
   * spell it (its case variants combined), when there are at most `max`.
   *
   * @param max The most spellings kept for one word.
   * @returns The spellings, a list per word.
   */
  shortSpellings(max = 16): string[][] {
    const out: string[][] = [];
    for (const word of this.#words()) {
      if (_chars(word) >= TRIGRAM_CHARS) continue;
      let spellings = [""];
      for (const ch of word) {
        const variants = caseVariants(ch.codePointAt(0)!);
        spellings = spellings.flatMap((s) =>
          variants.map((v) => s + String.fromCodePoint(v))
        );
      }
      if (spellings.length <= max) out.push(spellings);
    }
    return out;
  }

  /** Every word of every term. */
  #words(): string[] {
    return this.terms.flatMap((t) => t.words);
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

function _chars(word: string): number {
  let n = 0;
  for (const _ of word) n++;
  return n;
}

function _escape(word: string): string {
  return word.replace(/[\\^$.*+?()[\]{}|/]/gu, "\\$&");
}
