/**
 * The hits a search keeps: the newest `limit` (by the entry's timestamp,
 * then path, then the later line first), whichever way they were found,
 * and the snippet shown for each.
 *
 * @module
 */

import type { OversizedLine } from "../format/issues.ts";
import type { Matcher, MatchSpan } from "./_query.ts";
import type { LineText, SearchRole, SkipReason } from "./_text.ts";

/** A match before it is given its session and snippet. */
export interface Found {
  /** The file. */
  path: string;
  /** The line's offset. */
  offset: number;
  /** The entry's id. */
  entryId: string;
  /** Who wrote the text. */
  role: SearchRole;
  /** The entry's timestamp. */
  timestamp: string;
  /** About 80 characters around the match (the text itself is not kept). */
  snippet: string;
  /** Where the match is in the snippet. */
  match: MatchSpan;
  /** Whether the entry is on its session's active path, once known. */
  onActivePath?: boolean;
  /** Its session's id and title, once known. */
  session?: SessionLabel;
}

/** A session's id and title, for its hits. */
export interface SessionLabel {
  /** The header's id. */
  id: string;
  /** The title, when it has one. */
  title?: string;
}

/** A line skipped whose text matches the query. */
export interface SkippedLine {
  /** The file. */
  path: string;
  /** The line's offset. */
  offset: number;
  /** Why it was skipped: not an entry (`damaged`), or longer than the search parses (`too-long`). */
  reason: SkipReason;
}

/** Which entries a search takes, besides the query. */
export interface HitFilter {
  /** Only this role. */
  role?: SearchRole | undefined;
  /** Only entries from this timestamp on. */
  since?: string | undefined;
}

/** Characters of context on each side of a match in a snippet. */
const _BEFORE = 30;
const _SNIPPET = 80;

/**
 * Order of hits: newest timestamp first, then path (in code point order,
 * as SQLite sorts), then the later line first.
 */
export function newerFirst(
  a: Pick<Found, "timestamp" | "path" | "offset">,
  b: Pick<Found, "timestamp" | "path" | "offset">,
): number {
  if (a.timestamp !== b.timestamp) return a.timestamp > b.timestamp ? -1 : 1;
  if (a.path !== b.path) return _codePointOrder(a.path, b.path);
  return b.offset - a.offset;
}

/** The newest `limit` hits, the skipped lines that match, and the lines too long to read. */
export class HitList {
  readonly hits: Found[] = [];
  readonly skipped: SkippedLine[] = [];
  /** Lines longer than the loader's limit: not searched, whatever they hold. */
  readonly oversized: OversizedLine[] = [];
  readonly #limit: number;
  readonly #query: Matcher;
  readonly #filter: HitFilter;
  /** The list this one is merged into: what it will not keep is not matched here either. */
  readonly #parent: HitList | undefined;

  constructor(
    query: Matcher,
    limit: number,
    filter: HitFilter,
    parent?: HitList,
  ) {
    this.#query = query;
    this.#limit = limit;
    this.#filter = filter;
    this.#parent = parent;
  }

  /** Whether `limit` hits are held. */
  get full(): boolean {
    return this.hits.length >= this.#limit;
  }

  /**
   * Take a line's text: a hit when it matches and passes the filter, a
   * skipped line when it could not be read as an entry and its text
   * matches. Once the list is full, a line older than every hit kept is
   * not matched at all.
   *
   * @param path The file.
   * @param offset The line's offset.
   * @param found What the line gave.
   */
  take(path: string, offset: number, found: LineText): void {
    if (found.skip !== undefined) {
      if (this.#query.match(found.text) !== undefined) {
        this.skipped.push({ path, offset, reason: found.skip });
      }
      return;
    }
    const { role, since } = this.#filter;
    if (role !== undefined && found.role !== role) return;
    if (since !== undefined && found.timestamp < since) return;
    const hit = { path, offset, timestamp: found.timestamp };
    const parent = this.#parent;
    if (this.#older(hit) || (parent !== undefined && parent.#older(hit))) {
      return;
    }
    const span = this.#query.match(found.text);
    if (span === undefined) return;
    const { snippet, start, end } = _snippet(found.text, span);
    const { entryId, timestamp } = found;
    const match = { start, end };
    this.add({
      path,
      offset,
      entryId,
      role: found.role,
      timestamp,
      snippet,
      match,
    });
  }

  /** Whether the list is full and `hit` older than every hit it holds. */
  #older(hit: Pick<Found, "timestamp" | "path" | "offset">): boolean {
    return this.full && newerFirst(hit, this.hits[this.hits.length - 1]!) >= 0;
  }

  /**
   * An empty list that takes lines as this one does: a file's own, merged
   * once the file is read whole (a file that fails midway gives none).
   *
   * @returns The list.
   */
  fork(): HitList {
    return new HitList(this.#query, this.#limit, this.#filter, this);
  }

  /**
   * Take the hits and skipped lines of another list.
   *
   * @param other The list, from {@linkcode HitList.fork}.
   */
  merge(other: HitList): void {
    for (const hit of other.hits) this.add(hit);
    for (const line of other.skipped) this.skipped.push(line);
    for (const line of other.oversized) this.oversized.push(line);
  }

  /** Keep a hit if it is among the newest `limit`. */
  add(hit: Found): void {
    const hits = this.hits;
    if (this.#older(hit)) return;
    let lo = 0;
    let hi = hits.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newerFirst(hits[mid]!, hit) <= 0) lo = mid + 1;
      else hi = mid;
    }
    hits.splice(lo, 0, hit);
    if (hits.length > this.#limit) hits.pop();
  }
}

/**
 * About 80 characters of `text` around a match, white space runs as one
 * space, `…` where it was cut, and where the match is in it.
 *
 * @param text The text.
 * @param span The match.
 * @returns The snippet and the match's place in it.
 */
function _snippet(
  text: string,
  span: MatchSpan,
): { snippet: string; start: number; end: number } {
  let from = Math.max(0, span.start - _BEFORE);
  let to = Math.min(text.length, Math.max(span.end, from + _SNIPPET));
  from = Math.max(0, Math.min(from, to - _SNIPPET));
  if (_low(text, from)) from--;
  if (_low(text, to)) to++;
  const squeeze = (s: string): string => s.replace(/\s+/gu, " ");
  const lead = (from > 0 ? "…" : "") + squeeze(text.slice(from, span.start));
  const match = squeeze(text.slice(span.start, span.end));
  const tail = squeeze(text.slice(span.end, to)) +
    (to < text.length ? "…" : "");
  // A copy, so the snippet does not keep the whole text alive.
  const snippet = [...`${lead}${match}${tail}`].join("");
  return {
    snippet,
    start: lead.length,
    end: lead.length + match.length,
  };
}

/** Whether `text[i]` is the second half of a surrogate pair. */
function _low(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return i > 0 && c >= 0xdc00 && c <= 0xdfff;
}

function _codePointOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
