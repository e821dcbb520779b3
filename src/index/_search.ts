/**
 * The `search` facet: where each entry with text is (`search_entries`,
 * one row per entry, and per skipped line: its file, offset and size, and
 * the entry's id, role and timestamp; never its text) and a full-text
 * index of the text (`search_fts`, SQLite FTS5 with the trigram tokenizer:
 * the text's trigrams, with no positions and no copy of the text). The
 * index holds the text folded (see `_fold.ts`), so it can only narrow the
 * rows down to candidates; a search reads each candidate's line from its
 * file and its matcher decides. A deleted file's rows go with it.
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import { headerVersion, SESSION_VERSION } from "../format/header.ts";
import { fold } from "../search/_fold.ts";
import { storedLineText } from "../search/_text.ts";
import type { FacetFile, FacetLine, IndexFacet } from "./_facets.ts";
import { prepared } from "./_prepared.ts";

/**
 * What ends every text in the full-text index: each character of a text,
 * even its last, then starts a trigram, so a word of one or two characters
 * is found through the trigrams it starts (see `_narrowing.ts`). No
 * word of a query holds white space, so no word matches it.
 */
export const FTS_END = "\n\n";

/** Where entries with text are, and the full-text index of their text. */
export const SEARCH_FACET: IndexFacet = {
  name: "search",
  version: 2,
  schema: [
    `CREATE TABLE IF NOT EXISTS search_entries (
      rowid INTEGER PRIMARY KEY,
      path TEXT NOT NULL,
      offset INTEGER NOT NULL,
      size INTEGER NOT NULL,
      entryId TEXT,
      role TEXT,
      timestamp TEXT NOT NULL,
      skip TEXT
    )`,
    // One row per line: a line fed twice (two writers at once) cannot be
    // two rows, and two hits. Also the rows of a path, for its forget.
    `CREATE UNIQUE INDEX IF NOT EXISTS search_entries_line
      ON search_entries (path, offset)`,
    // The hits' order, walked backwards (newest first) when a word is in
    // too many rows to sort; rows of one timestamp are sorted by path and
    // offset as they come. Only the timestamp, ascending: rows come mostly
    // in time order, and fill its pages (with the path it was twice the
    // size of the table).
    `CREATE INDEX IF NOT EXISTS search_entries_time
      ON search_entries (timestamp)`,
    `CREATE INDEX IF NOT EXISTS search_entries_skip ON search_entries (path)
      WHERE skip IS NOT NULL`,
    // Contentless, and no positions (detail=none): the trigrams and the
    // rows holding each, a fifteenth of the size with positions. The text
    // comes folded, so the tokenizer does not fold it again.
    `CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(
      text, content='', contentless_delete=1, detail=none,
      tokenize='trigram case_sensitive 1'
    )`,
    // The trigrams themselves, for words under three characters.
    `CREATE VIRTUAL TABLE IF NOT EXISTS search_vocab
      USING fts5vocab(search_fts, 'row')`,
  ],
  update(
    db: IndexDb,
    file: FacetFile,
    lines: readonly FacetLine[],
  ): void {
    const row = prepared(
      db,
      `INSERT INTO search_entries (path, offset, size, entryId, role, timestamp, skip)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path, offset) DO NOTHING`,
    );
    const fts = prepared(
      db,
      "INSERT INTO search_fts (rowid, text) VALUES (?, ?)",
    );
    const version = headerVersion(file.header);
    for (const line of lines) {
      let found = storedLineText(line.bytes, version);
      if (found === undefined) continue;
      if (version < SESSION_VERSION && found.skip === undefined) {
        // Read alone, its id is a stand-in: the one its place gave it.
        found = { ...found, entryId: line.entry()?.id ?? found.entryId };
      }
      const { changes, lastInsertRowid } = row.run(
        file.path,
        line.offset,
        line.size,
        found.skip === undefined ? found.entryId : null,
        found.skip === undefined ? found.role : null,
        found.skip === undefined ? found.timestamp : "",
        found.skip ?? null,
      );
      if (changes === 0) continue; // the line's row is there: its text too
      fts.run(lastInsertRowid, fold(found.text) + FTS_END);
    }
  },
  forgetAll(db: IndexDb): void {
    db.exec("DELETE FROM search_entries");
    db.exec("INSERT INTO search_fts (search_fts) VALUES ('delete-all')");
  },
  forget(db: IndexDb, path: string): void {
    prepared(
      db,
      `DELETE FROM search_fts WHERE rowid IN
         (SELECT rowid FROM search_entries WHERE path = ?)`,
    ).run(path);
    prepared(db, "DELETE FROM search_entries WHERE path = ?").run(path);
  },
};
