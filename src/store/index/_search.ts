/**
 * The `search` facet: the text of every entry (`search_entries`, one row
 * per entry with text, and per skipped line, with its offset) and a
 * full-text index over it (`search_fts`, SQLite FTS5 with the trigram
 * tokenizer: any substring of three or more characters, CJK included, is
 * found through it). The index holds the text folded (see `_fold.ts`), so
 * the trigram search can only widen what the search's own matcher then
 * decides; a deleted file's rows go with it.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { headerVersion, SESSION_VERSION } from "../../format/header.ts";
import { fold } from "../search/_fold.ts";
import {
  entryLineText,
  type LineText,
  lineText,
  textlessType,
} from "../search/_line.ts";
import type { FacetFile, FacetLine, IndexFacet } from "./_facets.ts";
import { prepared } from "./_prepared.ts";

/** Entries' text, and the full-text index over it. */
export const SEARCH_FACET: IndexFacet = {
  name: "search",
  version: 1,
  schema: [
    `CREATE TABLE IF NOT EXISTS search_entries (
      rowid INTEGER PRIMARY KEY,
      path TEXT NOT NULL,
      offset INTEGER NOT NULL,
      entryId TEXT,
      role TEXT,
      timestamp TEXT NOT NULL,
      skip TEXT,
      text TEXT NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS search_entries_path ON search_entries (path)`,
    // The hits' order, walked when a word is in too many rows to sort.
    `CREATE INDEX IF NOT EXISTS search_entries_time
      ON search_entries (timestamp DESC, path, offset DESC)`,
    `CREATE INDEX IF NOT EXISTS search_entries_skip ON search_entries (path)
      WHERE skip IS NOT NULL`,
    `CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(
      text, content='', contentless_delete=1, tokenize='trigram'
    )`,
  ],
  update(
    db: DatabaseSync,
    file: FacetFile,
    lines: readonly FacetLine[],
  ): void {
    const row = prepared(
      db,
      `INSERT INTO search_entries (path, offset, entryId, role, timestamp, skip, text)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const fts = prepared(
      db,
      "INSERT INTO search_fts (rowid, text) VALUES (?, ?)",
    );
    const legacy = headerVersion(file.header) < SESSION_VERSION;
    for (const line of lines) {
      let found: LineText | undefined;
      if (!legacy) found = lineText(line.bytes);
      else if (!textlessType(line.bytes)) {
        found = entryLineText(line.bytes, line.entry());
      }
      if (found === undefined) continue;
      const { lastInsertRowid } = row.run(
        file.path,
        line.offset,
        found.skip === undefined ? found.entryId : null,
        found.skip === undefined ? found.role : null,
        found.skip === undefined ? found.timestamp : "",
        found.skip ?? null,
        found.text,
      );
      fts.run(lastInsertRowid, fold(found.text));
    }
  },
  forget(db: DatabaseSync, path: string): void {
    prepared(
      db,
      `DELETE FROM search_fts WHERE rowid IN
         (SELECT rowid FROM search_entries WHERE path = ?)`,
    ).run(path);
    prepared(db, "DELETE FROM search_entries WHERE path = ?").run(path);
  },
};
