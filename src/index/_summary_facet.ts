/**
 * The `summary` facet: what a session picker shows of each file besides
 * its head (`SessionInfo.firstMessage`, `messageCount`, `lastActivity`),
 * kept so that a list through a fresh index reads no file's body. The
 * lines are folded by {@linkcode SummaryTally}, the fold the list without
 * the index runs over the files, a batch at a time: counts add up, the
 * first message is the first batch's that has one, the last activity the
 * last batch's that has one. An append costs its own lines only.
 *
 * A last line without "\n" counts as the list without the index counts it,
 * kept in columns of its own (`tail*`): each read of the file replaces
 * them, and once the line ends it comes again as a whole line, folded in.
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import { prepared } from "./_prepared.ts";
import type { FacetFile, FacetLine, IndexFacet } from "./_facets.ts";
import { type SessionSummary, SummaryTally } from "../context/summary.ts";
import type { SessionEntry } from "../format/entries.ts";

/** The facet's name: its progress in the `facets` table is under it. */
const _NAME = "summary";
/** Its version: a change of the fold raises it, and every file is read again. */
const _VERSION = 1;

/** The summaries of the whole lines read, and of the last line without "\n". */
export const SUMMARY_FACET: IndexFacet = {
  name: _NAME,
  version: _VERSION,
  schema: [
    `CREATE TABLE IF NOT EXISTS summaries (
      path TEXT PRIMARY KEY,
      firstMessage TEXT,
      messageCount INTEGER NOT NULL,
      lastActivity TEXT,
      tailMessages INTEGER NOT NULL DEFAULT 0,
      tailFirst TEXT,
      tailActivity TEXT
    )`,
  ],
  update(db: IndexDb, file: FacetFile, lines: readonly FacetLine[]): void {
    const tally = new SummaryTally();
    for (const line of lines) {
      const entry = line.entry();
      if (entry !== undefined) tally.take(entry);
    }
    const s = tally.summary;
    prepared(
      db,
      `INSERT INTO summaries (path, firstMessage, messageCount, lastActivity)
       VALUES (?, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET
         messageCount = messageCount + excluded.messageCount,
         firstMessage = coalesce(firstMessage, excluded.firstMessage),
         lastActivity = coalesce(excluded.lastActivity, lastActivity)`,
    ).run(
      file.path,
      s.firstMessage ?? null,
      s.messageCount,
      s.lastActivity ?? null,
    );
  },
  lastLine(db: IndexDb, file: FacetFile, line: FacetLine | undefined): void {
    const entry = line === undefined ? undefined : _lastEntry(line);
    const tally = new SummaryTally();
    if (entry !== undefined) tally.take(entry);
    const s = tally.summary;
    prepared(
      db,
      `INSERT INTO summaries (path, messageCount, tailMessages, tailFirst, tailActivity)
       VALUES (?, 0, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET tailMessages = excluded.tailMessages,
         tailFirst = excluded.tailFirst, tailActivity = excluded.tailActivity`,
    ).run(
      file.path,
      s.messageCount,
      s.firstMessage ?? null,
      s.lastActivity ?? null,
    );
  },
  forgetAll(db: IndexDb): void {
    db.exec("DELETE FROM summaries");
  },
  forget(db: IndexDb, path: string): void {
    prepared(db, "DELETE FROM summaries WHERE path = ?").run(path);
  },
};

/**
 * The entry of a last line without "\n". A version 1 or 2 file's is not
 * made by the lines (its id is minted from the lines before it); the fold
 * reads only its type, time and message, which migration leaves as they
 * are, so the object itself is folded.
 */
function _lastEntry(line: FacetLine): SessionEntry | undefined {
  const entry = line.entry();
  if (entry !== undefined) return entry;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(line.bytes));
  } catch {
    return undefined; // wholeLastLine parsed it already: not reached
  }
  const type = (value as { type?: unknown } | null)?.type;
  return typeof type === "string" ? value as SessionEntry : undefined;
}

/** A summary the index holds, and how far into its file it was read. */
export interface StoredSummary {
  summary: SessionSummary;
  /** The facet's progress: the end of the whole lines folded. */
  offset: number;
  dev: number;
  ino: number;
  /** The file's row's offset (null: the row keeps no state, or none). */
  rowOffset: number | null;
}

interface _Row {
  path: string;
  firstMessage: string | null;
  messageCount: number;
  lastActivity: string | null;
  tailMessages: number;
  tailFirst: string | null;
  tailActivity: string | null;
  offset: number;
  dev: number;
  ino: number;
  rowOffset: number | null;
}

/**
 * The summaries the index holds, read by this version of the facet: of
 * every file, or of `path` only.
 *
 * @param db The index.
 * @param path One file only.
 * @returns The summaries by path.
 */
export function storedSummaries(
  db: IndexDb,
  path?: string,
): Map<string, StoredSummary> {
  const rows = prepared(
    db,
    `SELECT m.path AS path, firstMessage, messageCount, lastActivity,
       tailMessages, tailFirst, tailActivity, f.offset AS offset, f.dev AS dev,
       f.ino AS ino, s.offset AS rowOffset
     FROM summaries m
     JOIN facets f ON f.path = m.path AND f.facet = ? AND f.version = ?
     LEFT JOIN sessions s ON s.path = m.path
     ${path === undefined ? "" : "WHERE m.path = ?"}`,
  ).all(
    ...(path === undefined ? [_NAME, _VERSION] : [_NAME, _VERSION, path]),
  ) as unknown as _Row[];
  const out = new Map<string, StoredSummary>();
  for (const r of rows) {
    const summary: SessionSummary = {
      messageCount: r.messageCount + r.tailMessages,
    };
    const first = r.firstMessage ?? r.tailFirst;
    if (first !== null) summary.firstMessage = first;
    const last = r.tailActivity ?? r.lastActivity;
    if (last !== null) summary.lastActivity = last;
    out.set(r.path, {
      summary,
      offset: r.offset,
      dev: r.dev,
      ino: r.ino,
      rowOffset: r.rowOffset,
    });
  }
  return out;
}
