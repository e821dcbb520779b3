/**
 * How the full-text index narrows a search query's rows: the `MATCH`
 * expression of its trigrams (every trigram of its words of three
 * characters or more, or, when it has none, the index's trigrams that its
 * short words start), quoted so that nothing in a query is an operator.
 * The index keeps no positions; the query's matcher decides each line.
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import type { SearchQuery } from "../search/_query.ts";

/**
 * How the full-text index narrows a query's rows: a `MATCH` expression;
 * null when no row can match; undefined when it cannot narrow them (every
 * row is a candidate).
 */
export type Narrowing = string | null | undefined;

/**
 * The `MATCH` expression that narrows a query's rows: the trigrams of its
 * words of three characters or more; when it has none, for each word
 * (of one or two characters) the trigrams it starts, from the index's own
 * list of trigrams (every character of an indexed text starts one, see
 * `FTS_END`), unless a word starts too many to be worth it.
 *
 * @param db The index.
 * @param query The query.
 * @returns The expression, or null (no row matches), or undefined (no narrowing).
 */
export function narrowing(db: IndexDb, query: SearchQuery): Narrowing {
  const match = ftsMatch(query);
  if (match !== undefined) return match;
  const groups: string[] = [];
  for (const word of shortWords(query)) {
    const terms = _trigramsStarting(db, word);
    if (terms.length === 0) return null;
    if (terms.length > _TERMS) continue;
    groups.push(`(${terms.map(_quoteFts).join(" OR ")})`);
  }
  return groups.length === 0 ? undefined : groups.join(" AND ");
}

/** Trigrams a short word may start, at most, for the index to narrow by them. */
const _TERMS = 256;

/** The last code point: a trigram's characters are all at most this. */
const _LAST = String.fromCodePoint(0x10ffff);

/**
 * The index's trigrams that start with `word` (one or two characters),
 * up to one more than {@linkcode _TERMS}: a range of the list of terms, which
 * the text fills byte for byte (the tokenizer does not fold).
 */
function _trigramsStarting(db: IndexDb, word: string): string[] {
  const rest = _TRIGRAM_CHARS - [...word].length;
  const rows = db.prepare(
    `SELECT term FROM search_vocab WHERE term >= ? AND term <= ?
     LIMIT ${_TERMS + 1}`,
  ).all(word, word + _LAST.repeat(rest)) as { term: string }[];
  return rows.map((r) => r.term);
}

/** Words shorter than this are not in the trigram index's reach. */
const _TRIGRAM_CHARS = 3;

/**
 * The full-text index's `MATCH` expression for a query's candidates:
 * every trigram of every word of three or more characters, quoted (never
 * an operator), joined with `AND`; undefined when no word has three. The
 * index keeps no positions, so a word's trigrams may be apart in a
 * candidate: the matcher decides.
 *
 * @param query The query.
 * @returns The expression.
 */
export function ftsMatch(query: SearchQuery): string | undefined {
  const trigrams = new Set<string>();
  for (const word of _words(query)) {
    const chars = [...word];
    for (let i = 0; i + _TRIGRAM_CHARS <= chars.length; i++) {
      trigrams.add(chars.slice(i, i + _TRIGRAM_CHARS).join(""));
    }
  }
  if (trigrams.size === 0) return undefined;
  return [...trigrams].map(_quoteFts).join(" AND ");
}

/**
 * A query's words shorter than three characters (folded), when no word has
 * three or more: what the index then narrows by (see {@linkcode narrowing}).
 *
 * @param query The query.
 * @returns The words, or an empty list.
 */
export function shortWords(query: SearchQuery): string[] {
  const words = _words(query);
  if (words.some((w) => [...w].length >= _TRIGRAM_CHARS)) return [];
  return [...new Set(words)];
}

/** Every word of every term. */
function _words(query: SearchQuery): string[] {
  return query.terms.flatMap((t) => t.words);
}

/** A string as one FTS5 term: in double quotes, a quote doubled, so nothing in it is an operator. */
function _quoteFts(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}
