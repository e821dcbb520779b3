/**
 * The `oversized` facet: where each file holds a line longer than the
 * loader's limit (`DEFAULT_MAX_LINE_BYTES`). No reader parses such a line
 * (the loader reports it and skips it; the usage and search facets are
 * handed it without its bytes), so what it holds is in no other table. A
 * usage report and a search through the index say which lines those are,
 * as a pass over the files does: the refresh never drops one silently.
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import { prepared } from "./_prepared.ts";
import type { FacetFile, FacetLine, IndexFacet } from "./_facets.ts";
import type { OversizedLine } from "../format/issues.ts";

/** The lines over the limit, by file. */
export const OVERSIZED_FACET: IndexFacet = {
  name: "oversized",
  version: 1,
  schema: [
    `CREATE TABLE IF NOT EXISTS oversized_lines (
      path TEXT NOT NULL,
      offset INTEGER NOT NULL,
      length INTEGER NOT NULL,
      PRIMARY KEY (path, offset)
    )`,
  ],
  update(
    db: IndexDb,
    file: FacetFile,
    lines: readonly FacetLine[],
  ): void {
    for (const line of lines) {
      if (!line.oversized) continue;
      prepared(
        db,
        "INSERT OR REPLACE INTO oversized_lines (path, offset, length) VALUES (?, ?, ?)",
      ).run(file.path, line.offset, line.length);
    }
  },
  forgetAll(db: IndexDb): void {
    db.exec("DELETE FROM oversized_lines");
  },
  forget(db: IndexDb, path: string): void {
    prepared(db, "DELETE FROM oversized_lines WHERE path = ?").run(path);
  },
};

/**
 * The lines over the limit the index recorded, of every file it holds, by
 * file then offset.
 *
 * @param db The index.
 * @returns The lines.
 */
export function oversizedLines(db: IndexDb): OversizedLine[] {
  return (prepared(
    db,
    "SELECT path, offset, length FROM oversized_lines ORDER BY path, offset",
  ).all() as unknown as OversizedLine[]).map(plainLine);
}

/** A row as a plain object (SQLite's rows have a null prototype). */
export function plainLine(
  { path, offset, length }: OversizedLine,
): OversizedLine {
  return { path, offset, length };
}
