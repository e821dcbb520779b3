/**
 * What an open keeps of a file it read to the start (no checkpoint ended
 * the walk, as in every file omp writes): a plain `Session.open` keeps the
 * file's ids, which a new id is checked against, and not the session
 * index's record (the active path with offsets, the labels), which grows
 * with the file and which only the index stores; the index's open keeps it.
 */
import assert from "node:assert/strict";
import { Session } from "../../mod.ts";
import { generateFile } from "../../src/gen/generate.ts";
import { openParts } from "../../src/session/_parts.ts";
import { openSessionResumed } from "../../src/session/session.ts";
import { tempDir } from "../_session_files.ts";

Deno.test("Session.open() of a file without checkpoints keeps its ids but not the index's record; the index's open keeps the record", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/omp-style.jsonl`;
  await generateFile(path, {
    size: 1 << 20,
    seed: 3,
    compactionEvery: 200 << 10,
    lastCompactionBeforeEnd: 100 << 10,
    checkpoints: false,
  });
  let ids: string[];
  {
    await using full = await Session.open(path, { window: false });
    ids = full.entries.map((e) => e.id);
  }

  const plain = (await openParts(path, {})).loaded;
  assert.equal(plain.windowOnly, true);
  assert.ok(plain.entries.length < ids.length / 2, "only the window is held");
  assert.equal(plain.record, undefined, "the record is not kept");
  assert.equal(plain.recordEnd, undefined);
  assert.ok(plain.fileIds !== undefined, "the file's ids are kept");
  assert.equal(plain.fileIds.size, new Set(ids).size);
  for (const id of ids) assert.notEqual(plain.fileIds.get(id), 0, id);

  const { session, loaded } = await openSessionResumed(path, {}, undefined);
  try {
    assert.ok(loaded.record !== undefined, "the index's open keeps it");
    assert.equal(loaded.record.entries, ids.length);
    assert.ok(loaded.record.path.length > plain.entries.length);
    assert.equal(loaded.fileIds, loaded.record.ids);
  } finally {
    await session.close();
  }
});
