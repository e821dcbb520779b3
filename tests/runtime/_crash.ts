/**
 * The conformance suite's crash test, a smaller form of
 * `tests/reliability/crash_test.ts`: a session file cut at every byte of
 * one append, then opened and appended to. Only the torn entry may be lost;
 * every byte before the cut stays as it was.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Session } from "../../mod.ts";

const NL = 0x0a;

/** ~200 bytes of non-ASCII text: some cuts fall inside a character. */
const TEXT = "Grüße aus Zürich, 世界 ✓ — naïve café 🚀 ".repeat(4);

async function ids(path: string, dataDir: string): Promise<string[]> {
  const s = await Session.open(path, { dataDir, window: false });
  try {
    return s.entries.map((e) => e.id);
  } finally {
    await s.close();
  }
}

/**
 * Cut a small session at every byte of its last append; at each cut the
 * reader keeps every earlier entry (and the last one only when just its
 * `\n` is missing), and an append after the cut keeps the earlier bytes and
 * becomes the leaf.
 *
 * @param dir A fresh folder (the data dir).
 */
export async function crashAtEveryByte(dir: string): Promise<void> {
  const s = await Session.create({ cwd: "/home/dev/app", dataDir: dir });
  await s.appendMessage({ role: "user", content: "Read a.ts" });
  await s.appendMessage({ role: "user", content: "and b.ts" });
  await s.ensureOnDisk();
  const path = s.path!;
  const base = await readFile(path);
  const before = await ids(path, dir);
  const last = await s.appendMessage({ role: "user", content: TEXT });
  await s.close();
  const full = await readFile(path);
  assert.deepEqual(full.subarray(0, base.length), base);
  assert.equal(full.at(-1), NL);
  const work = join(dir, "cut.jsonl");
  for (let cut = base.length; cut < full.length; cut++) {
    const at = `cut at byte ${cut - base.length} of ${
      full.length - base.length
    }`;
    const bytes = full.subarray(0, cut);
    await writeFile(work, bytes);
    const whole = cut === full.length - 1; // only the "\n" is missing
    assert.deepEqual(
      await ids(work, dir),
      whole ? [...before, last.id] : before,
      `${at}: the entries read`,
    );
    const r = await Session.open(work, { dataDir: dir });
    let added: string;
    try {
      added = (await r.appendMessage({ role: "user", content: `after ${at}` }))
        .id;
    } finally {
      await r.close();
    }
    const after = await readFile(work);
    assert.deepEqual(after.subarray(0, cut), bytes, `${at}: earlier bytes`);
    const reopened = await Session.open(work, { dataDir: dir });
    try {
      assert.equal(reopened.leafId, added, `${at}: the new leaf`);
      for (const id of before) {
        assert.ok(reopened.getEntry(id), `${at}: entry ${id} lost`);
      }
    } finally {
      await reopened.close();
    }
  }
}
