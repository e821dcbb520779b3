/**
 * Writers of one index at once (two refreshes of a data dir without an
 * index, a session's writer bringing its row up to date while a refresh
 * runs): no line is fed to a facet twice, so every hit comes once.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { searchSessions, SessionIndex } from "../../mod.ts";
import { indexFile, needleSessions } from "../_index_damage.ts";
import { tempDir } from "../_session_files.ts";

const MOD = new URL("../../mod.ts", import.meta.url).href;

/** The search table's lines held more than once, and its rows. */
function doubled(dataDir: string): { twice: number; rows: number } {
  const db = new DatabaseSync(indexFile(dataDir), { readOnly: true });
  try {
    const { twice, rows } = db.prepare(
      `SELECT count(*) - count(DISTINCT path || ':' || offset) AS twice,
         count(*) AS rows FROM search_entries`,
    ).get() as { twice: number; rows: number };
    return { twice, rows };
  } finally {
    db.close();
  }
}

/** Each hit once, and the hits a scan finds. */
async function assertHitsOnce(dataDir: string, hits: number): Promise<void> {
  using index = await SessionIndex.open(dataDir, { create: false });
  const found = await index.search("needle", { limit: 10_000 });
  assert.equal(found.indexed, true);
  const keys = found.hits.map((h) => `${h.path}#${h.entryId}`);
  assert.equal(new Set(keys).size, keys.length, "a hit came twice");
  const scanned = await searchSessions(dataDir, "needle", { limit: 10_000 });
  assert.deepEqual(keys, scanned.hits.map((h) => `${h.path}#${h.entryId}`));
  assert.equal(keys.length, hits);
}

Deno.test("SessionIndex: two processes refreshing a data dir without an index at once feed each line once", async () => {
  await using dir = await tempDir();
  await needleSessions(dir.path, 150);
  const script = `
    import { SessionIndex } from ${JSON.stringify(MOD)};
    const index = await SessionIndex.open(Deno.args[0], { onWarning: (m) => console.error(m) });
    await index.refresh();
    index.close();
  `;
  const child = () =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", "--quiet", script, dir.path],
      stdout: "null",
      stderr: "piped",
    }).output();
  for (let round = 0; round < 3; round++) {
    await Deno.remove(indexFile(dir.path)).catch(() => {});
    const runs = await Promise.all([child(), child()]);
    for (const r of runs) {
      assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
    }
    assert.deepEqual(doubled(dir.path), { twice: 0, rows: 300 });
  }
  await assertHitsOnce(dir.path, 300);
});

Deno.test("SessionIndex: two indexes of one data dir refreshing at once in one process feed each line once", async () => {
  await using dir = await tempDir();
  await needleSessions(dir.path, 60);
  const a = await SessionIndex.open(dir.path);
  const b = await SessionIndex.open(dir.path);
  try {
    await Promise.all([a.refresh(), b.refresh()]);
  } finally {
    a.close();
    b.close();
  }
  assert.deepEqual(doubled(dir.path), { twice: 0, rows: 120 });
  await assertHitsOnce(dir.path, 120);
});

Deno.test("SessionIndex: a session's writer bringing its row up to date while refreshes run feeds each line once", async () => {
  await using dir = await tempDir();
  const paths = await needleSessions(dir.path, 20);
  const writer = await SessionIndex.open(dir.path);
  const refresher = await SessionIndex.open(dir.path);
  try {
    let writing = true;
    const refreshes = (async () => {
      while (writing) await refresher.refresh();
    })();
    for (let i = 0; i < 30; i++) {
      const path = paths[i % paths.length]!;
      const session = await writer.openSession(path);
      await session.appendMessage({ role: "user", content: `needle ${i}` });
      await session.close();
      await writer.refreshFile(path); // what a close through the index does
    }
    writing = false;
    await refreshes;
    await refresher.refresh();
  } finally {
    writer.close();
    refresher.close();
  }
  assert.deepEqual(doubled(dir.path), { twice: 0, rows: 70 });
  await assertHitsOnce(dir.path, 70);
});

Deno.test("SessionIndex of schema version 8 holding a line twice is brought to version 9: its search tables made anew, its usage kept", async () => {
  await using dir = await tempDir();
  const paths = await needleSessions(dir.path, 4);
  {
    using index = await SessionIndex.open(dir.path);
    await index.refresh();
  }
  await Deno.remove(paths[0]!); // its calls stay counted, marked deleted
  {
    using index = await SessionIndex.open(dir.path);
    await index.refresh();
  }
  // What version 8 let two writers leave: a line's row twice.
  const db = new DatabaseSync(indexFile(dir.path));
  db.exec(`
    DROP INDEX search_entries_line;
    INSERT INTO search_entries (path, offset, size, entryId, role, timestamp, skip)
      SELECT path, offset, size, entryId, role, timestamp, skip FROM search_entries;
    UPDATE meta SET value = '8' WHERE key = 'schema';
  `);
  const { rows } = db.prepare("SELECT count(*) AS rows FROM search_entries")
    .get() as { rows: number };
  db.close();
  assert.equal(rows, 12);
  using index = await SessionIndex.open(dir.path);
  const report = await index.usageReport();
  assert.equal(report.totals.requests, 4, "the deleted file's call is kept");
  const found = await index.search("needle", { limit: 100 });
  assert.equal(found.indexed, true);
  assert.equal(found.hits.length, 6);
  assert.deepEqual(doubled(dir.path), { twice: 0, rows: 6 });
});

Deno.test("SessionIndex: a line cannot be two rows of the search table", async () => {
  await using dir = await tempDir();
  await needleSessions(dir.path, 1);
  using index = await SessionIndex.open(dir.path);
  await index.refresh();
  const db = new DatabaseSync(indexFile(dir.path));
  try {
    assert.throws(
      () =>
        db.exec(`INSERT INTO search_entries (path, offset, size, timestamp)
          SELECT path, offset, size, timestamp FROM search_entries`),
      /UNIQUE constraint failed/,
    );
  } finally {
    db.close();
  }
});
