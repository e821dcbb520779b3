/**
 * The session index on Bun (`bun:sqlite`), through the library's own API:
 * an index over `fixtures/omp` in a temp data dir, then list, search (a
 * word and a phrase, through FTS5), usage, a refresh after an append, and
 * a table's root page zeroed: detected, made anew, and answering as the
 * files. Every answer is compared with the one the files give. Plain
 * `node:` built-ins and `node:assert`, so it runs under any runtime the
 * library imports under:
 *
 *   npx --yes bun@1.4.5 tests/runtime/index_runtime.ts
 *   npx --yes node@22 tests/runtime/index_runtime.ts
 *   deno run -A tests/runtime/index_runtime.ts
 *
 * Needs `mod.ts` to import under the runtime (its bare npm imports
 * resolved from `node_modules` on Bun and Node). Prints `ok <runtime>`.
 */
import assert from "node:assert/strict";
import {
  appendFile,
  copyFile,
  mkdir,
  mkdtemp,
  open,
  readdir,
  rm,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  listSessions,
  searchSessions,
  SessionIndex,
  usageReport,
} from "../../mod.ts";
import { sqlite } from "../../src/index/_sqlite.ts";
import { RUNTIME } from "./_runtime.ts";

const runtime = RUNTIME;
const FIXTURES = fileURLToPath(new URL("../../fixtures/omp/", import.meta.url));
const dataDir = await mkdtemp(join(tmpdir(), "xdev-index-"));

/** What a search gives, as compared: each hit's place and entry. */
function hits(r: Awaited<ReturnType<typeof searchSessions>>): string[] {
  return r.hits.map((h) => `${h.path}#${h.entryId}`);
}

/** The index's answers and the files' answers, side by side. */
async function sameAsFiles(
  index: SessionIndex,
  word: string,
  phrase: string,
): Promise<void> {
  assert.deepEqual(await index.list(), await listSessions(dataDir));
  for (const q of [word, phrase]) {
    const viaIndex = await index.search(q);
    assert.ok(viaIndex.indexed, `the index answered ${q}`);
    assert.deepEqual(hits(viaIndex), hits(await searchSessions(dataDir, q)));
    assert.ok(viaIndex.hits.length > 0, `hits for ${q}`);
  }
  const usage = await index.usageReport();
  assert.deepEqual(usage.totals, (await usageReport(dataDir)).totals);
}

try {
  const sessions = join(dataDir, "sessions", "-fixtures");
  await mkdir(sessions, { recursive: true });
  const files = (await readdir(FIXTURES)).filter((f) => f.endsWith(".jsonl"));
  for (const f of files) await copyFile(join(FIXTURES, f), join(sessions, f));

  const warnings: string[] = [];
  const onWarning = (m: string) => warnings.push(m);
  let index = await SessionIndex.open(dataDir, { onWarning });
  const done = await index.refresh();
  assert.equal(done.sessions, files.length);
  assert.deepEqual(warnings, []);
  assert.equal((await index.list()).length, files.length);

  // A word and a phrase the fixtures hold (an assistant's and a user's text).
  await sameAsFiles(index, "exports", "what src/session/store.ts does");

  // An append: the refresh reads it, and a search finds its words.
  const target = join(sessions, "s1-main.jsonl");
  const line = {
    type: "message",
    id: "bun00001",
    parentId: "5ce1f5f1",
    timestamp: "2026-09-28T10:06:00.000Z",
    message: {
      role: "user",
      content: [{ type: "text", text: "quokka lanterns over the harbour" }],
      timestamp: 1790589960000,
    },
  };
  await appendFile(target, `${JSON.stringify(line)}\n`);
  const again = await index.refresh();
  assert.equal(again.refreshed, 1);
  const found = await index.search("quokka lanterns", { refresh: false });
  assert.deepEqual(found.hits.map((h) => h.entryId), ["bun00001"]);
  await sameAsFiles(index, "quokka", "lanterns over the");
  index.close();

  // Damage: the sessions table's root page zeroed (after a checkpoint).
  const path = join(dataDir, "index.sqlite");
  const db = (await sqlite())(path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const root = (db.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?")
    .get("sessions") as { rootpage: number }).rootpage;
  const size =
    (db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;
  db.close();
  const file = await open(path, "r+");
  await file.write(new Uint8Array(size), 0, size, (root - 1) * size);
  await file.close();

  index = await SessionIndex.open(dataDir, { onWarning });
  assert.deepEqual(await index.list(), await listSessions(dataDir));
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(warnings[0]!, /is damaged \(database disk image is malformed/);
  await index.refresh();
  await sameAsFiles(index, "quokka", "what src/session/store.ts does");
  assert.equal(warnings.length, 1, warnings.join("\n"));
  index.close();
  console.log(`ok ${runtime}`);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
