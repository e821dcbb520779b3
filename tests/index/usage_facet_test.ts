/**
 * The usage facet's statements find a call's rows by its key, never by a
 * time many calls share: a build stays linear when every call has the
 * same timestamp (0, or an import's constant). Asserted on SQLite's own
 * plan for each statement, not on a clock.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SessionIndex } from "../../mod.ts";
import { USAGE_SQL } from "../../src/index/_usage_facet.ts";
import { indexFile, needleSessions } from "../_index_damage.ts";
import { tempDir } from "../_session_files.ts";

/** What SQLite's plan says of each step of `sql`. */
function plan(db: DatabaseSync, sql: string): string[] {
  const args = sql.split("?").length - 1;
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...Array.from({ length: args }, () => 0)) as { detail: string }[];
  return rows.map((r) => r.detail);
}

Deno.test("USAGE_SQL: no statement of the usage facet finds calls by `first` or their time alone, in an index whose calls all share one timestamp", async () => {
  await using dir = await tempDir();
  await needleSessions(dir.path, 40, 0);
  {
    using index = await SessionIndex.open(dir.path);
    await index.refresh();
  }
  // No ANALYZE: the index keeps no statistics, and this is its plan.
  const db = new DatabaseSync(indexFile(dir.path), { readOnly: true });
  try {
    for (const [name, sql] of Object.entries(USAGE_SQL)) {
      const steps = plan(db, sql).join("; ");
      assert.doesNotMatch(steps, /usage_first/, `${name}: ${steps}`);
      assert.doesNotMatch(steps, /SCAN u\b|SCAN usage\b/, `${name}: ${steps}`);
    }
    const first = plan(db, USAGE_SQL.firstOf).join("; ");
    assert.match(
      first,
      /SEARCH u USING INDEX usage_key \(entryId=\? AND timestamp=\?\)/,
    );
  } finally {
    db.close();
  }
});
