/**
 * Searching every session of a data dir by scanning the files in bounded
 * memory; the session index (`SessionIndex.search`) answers through its
 * full-text index instead, and scans only the files it does not hold
 * whole. Both ways decide a hit with the same matcher over the same text,
 * so they give the same hits.
 *
 * @module
 */

import { join, resolve, sep } from "node:path";
import { byPlace } from "../format/issues.ts";
import { canonicalCwdSlug, sessionsDir } from "../store/places.ts";
import { sessionFiles } from "../store/_session_files.ts";
import { type Found, type HitFilter, HitList, newerFirst } from "./_hits.ts";
import { ByteNeedle } from "./_needle.ts";
import { regexMatcher, SearchQuery } from "./_query.ts";
import { scanFiles } from "./_scan.ts";
import { SEARCH_ROLES, type SearchRole } from "./_text.ts";

/** Options for {@linkcode searchSessions}. */
export interface SearchOptions {
  /**
   * The query is a regular expression in RE2's syntax (no backreferences
   * or lookaround), case-insensitive, matched in time linear in the text;
   * always a scan.
   */
  regex?: boolean;
  /** Only text of this role: `tool` covers tool results and omp's shell and Python runs; `custom`, harness messages. */
  role?: "user" | "assistant" | "tool" | "custom";
  /** Only the sessions started in this folder. */
  cwd?: string;
  /** Only entries from this day on (`YYYY-MM-DD`, UTC) or time; files last modified earlier are not opened. */
  since?: string | Date;
  /** The most hits given, newest first. Default 50. */
  limit?: number;
  /** Called after each file refreshed or scanned: how many of how many. */
  onProgress?: (done: number, total: number) => void;
  /** Called for each file that cannot be searched, with path and reason. */
  onSkip?: (path: string, reason: string) => void;
}

/** What a search asks of an index: the files in scope (a folder, a day). */
export interface SearchScope {
  /** Only files under this path prefix (a cwd's folder, ending in a separator). */
  prefix?: string | undefined;
  /** Only files modified at or after this time (ms since the epoch). */
  sinceMs?: number | undefined;
}

/** What an index's half of a search gives. */
export interface IndexedHits {
  /** Its hits (the newest `limit`) and the matching skipped lines. */
  hits: HitList;
  /** The files in scope it does not hold whole: to scan. */
  toScan: string[];
}

/**
 * An index's half of a search (the session index supplies it): the hits
 * among the files it holds whole, and the files in scope it does not,
 * which are scanned; undefined when it cannot answer (everything is then
 * scanned).
 */
export type IndexedSearch = (
  query: SearchQuery,
  plan: { limit: number; filter: HitFilter; scope: SearchScope },
) => Promise<IndexedHits | undefined>;

/** One match. */
export interface SearchHit {
  /** The session file. */
  path: string;
  /** The session's id. */
  sessionId: string;
  /** The session's title, when it has one. */
  title?: string;
  /** The entry's id. */
  entryId: string;
  /** Who wrote the text. */
  role: "user" | "assistant" | "tool" | "custom";
  /** The entry's timestamp. */
  timestamp: string;
  /** About 80 characters around the first match, white space as single spaces. */
  snippet: string;
  /** Where the match is in the snippet (UTF-16 offsets). */
  match: { start: number; end: number };
  /** Whether the entry is on the session's active path (else on an abandoned branch). */
  onActivePath: boolean;
}

/** What a search found. */
export interface SearchResult {
  /** The hits, newest first. */
  hits: SearchHit[];
  /** Lines that could not be read as entries (or are too long to parse) and whose text matches: skipped. */
  skipped: { path: string; offset: number; reason: "damaged" | "too-long" }[];
  /**
   * Lines longer than the loader's limit (64 MiB), by file then offset,
   * whatever they hold: no reader parses such a line (`Session.open`
   * reports it as `oversized-line` and skips it), so its text is not
   * searched. Through the index too: a refresh records them.
   */
  oversizedLines: { path: string; offset: number; length: number }[];
  /** Whether the session index answered (files it does not hold whole are scanned). */
  indexed: boolean;
  /** Files scanned. */
  scanned: number;
}

/** Hits given by default. */
const _LIMIT = 50;

/**
 * Search the text of every session in a data dir: user and assistant
 * text, tool results and harness messages (not thinking, tool-call
 * arguments or images), the first 64 Ki characters of each entry.
 *
 * A query's words must all appear, case-insensitively, anywhere (inside
 * CJK text written without spaces too); `"a phrase"` matches its words in
 * order; `word*` matches at a word's start. Nothing is an operator. With
 * `regex`, the query is a regular expression in RE2's syntax (no
 * backreferences or lookaround; linear in the text, so no pattern hangs a
 * search), and the files are scanned.
 *
 * @example Finding a word in a session
 * ```ts
 * import { searchSessions, Session } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using s = await Session.create({ cwd: "/home/dev/app", dataDir });
 *   await s.appendMessage({ role: "user", content: "Where is 検索テストabc123の結果?" });
 *   await s.ensureOnDisk();
 *   const { hits } = await searchSessions(dataDir, "abc123");
 *   equal(hits.length, 1);
 *   equal(hits[0]!.role, "user");
 *   equal(hits[0]!.onActivePath, true);
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 *
 * @param dataDir The data dir.
 * @param query The words, or a regular expression.
 * @param options Filters, the limit, progress.
 * @returns The hits, newest first, and the matching lines skipped.
 * @throws {TypeError} For an empty query, a NUL in it, a pattern that is
 * not RE2 syntax, an unknown role or a date that does not parse.
 * @throws {RangeError} For a limit that is not a positive integer.
 */
export function searchSessions(
  dataDir: string,
  query: string,
  options: SearchOptions = {},
): Promise<SearchResult> {
  return runSearch(dataDir, query, options, undefined);
}

/**
 * {@linkcode searchSessions}, with an index's half of the search when
 * `indexed` is given (never for a regular expression).
 *
 * @param dataDir The data dir.
 * @param query The words, or a regular expression.
 * @param options Filters, the limit, progress.
 * @param indexed The index's half, if any.
 * @returns The hits, newest first, and the matching lines skipped.
 */
export async function runSearch(
  dataDir: string,
  query: string,
  options: SearchOptions,
  indexed: IndexedSearch | undefined,
): Promise<SearchResult> {
  dataDir = resolve(dataDir); // the index keeps absolute paths
  const regex = options.regex === true;
  const matcher = regex ? await regexMatcher(query) : SearchQuery.parse(query);
  const limit = _limit(options.limit);
  const since = _since(options.since);
  const filter = { role: _role(options.role), since: since?.toISOString() };
  const prefix = options.cwd === undefined
    ? undefined
    : join(sessionsDir(dataDir), await canonicalCwdSlug(options.cwd)) + sep;
  const scope = { prefix, sinceMs: since?.getTime() };
  const fromIndex = regex || indexed === undefined
    ? undefined
    : await indexed(matcher as SearchQuery, { limit, filter, scope });
  const toScan = fromIndex?.toScan ?? (await sessionFiles(dataDir, {
    cwd: options.cwd,
    includeSubagents: true,
  })).map((f) => f.path);
  const hits = new HitList(matcher, limit, filter);
  let done = 0;
  const scanned = await scanFiles(toScan, hits, {
    needle: regex ? undefined : ByteNeedle.of(matcher as SearchQuery),
    sinceMs: since?.getTime(),
    onSkip: options.onSkip,
    onFile: () => options.onProgress?.(++done, toScan.length),
  });
  if (fromIndex !== undefined) hits.merge(fromIndex.hits);
  return {
    hits: hits.hits.sort(newerFirst).map(_hit),
    skipped: hits.skipped.sort(byPlace),
    oversizedLines: hits.oversized.sort(byPlace),
    indexed: fromIndex !== undefined,
    scanned,
  };
}

function _hit(f: Found): SearchHit {
  const hit: SearchHit = {
    path: f.path,
    sessionId: f.session?.id ?? "",
    entryId: f.entryId,
    role: f.role,
    timestamp: f.timestamp,
    snippet: f.snippet,
    match: f.match,
    onActivePath: f.onActivePath === true,
  };
  if (f.session?.title !== undefined) hit.title = f.session.title;
  return hit;
}

function _role(role: SearchRole | undefined): SearchRole | undefined {
  if (role !== undefined && !SEARCH_ROLES.includes(role)) {
    throw new TypeError(
      `Cannot search: the role must be one of ${SEARCH_ROLES.join(", ")}`,
    );
  }
  return role;
}

function _limit(limit: number | undefined): number {
  if (limit === undefined) return _LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(
      `Cannot search: the limit must be a positive integer, got ${limit}`,
    );
  }
  return limit;
}

function _since(since: string | Date | undefined): Date | undefined {
  if (since === undefined) return undefined;
  const date = typeof since === "string"
    ? new Date(/^\d{4}-\d{2}-\d{2}$/.test(since) ? `${since}T00:00:00Z` : since)
    : since;
  if (Number.isNaN(date.getTime())) {
    throw new TypeError(`Cannot search: the date "${since}" does not parse`);
  }
  return date;
}
