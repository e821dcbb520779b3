/**
 * `Session.windowStats()` means what it says: `bytesRead` counts the
 * distinct bytes of the file the open read (never more than its size, each
 * byte once however many reads covered it), `windowed` is true exactly when
 * some bytes were left unread, and `seen` counts the lines looked at.
 *
 * Each open runs under a seam that records every range read from the file,
 * so the figures are checked against what the reads really covered.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Session, SessionIndex, type WindowStats } from "../../mod.ts";
import { generateFile } from "../../src/gen/generate.ts";
import { type Fs, realFs } from "../../src/_fs.ts";
import { override, withFs } from "../_fs_seam.ts";
import { sessionBytes, tempDir, user } from "../_session_files.ts";

/** The distinct bytes `[start, end)` ranges cover. */
function covered(ranges: [number, number][]): number {
  const sorted = ranges.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reach = -1;
  for (const [s, e] of sorted) {
    if (e <= reach) continue;
    total += e - Math.max(s, reach);
    reach = e;
  }
  return total;
}

/** The real filesystem, recording the ranges read from `path`. */
function recordingReads(path: string, ranges: [number, number][]): Fs {
  return {
    ...realFs,
    open: async (p, options) => {
      const file = await realFs.open(p, options);
      if (p !== path) return file;
      return override(file, {
        read: async (buffer, position) => {
          const n = await file.read(buffer, position);
          ranges.push([position, position + n]);
          return n;
        },
      });
    },
  };
}

/** The open's stats, checked against the reads it made and the file's size. */
async function statsOf(
  path: string,
  open: () => Promise<Session>,
): Promise<WindowStats & { size: number }> {
  const size = (await Deno.stat(path)).size;
  const ranges: [number, number][] = [];
  const stats = await withFs(recordingReads(path, ranges), async () => {
    await using session = await open();
    return session.windowStats();
  });
  assert.equal(stats.bytesRead, covered(ranges), "bytesRead: the bytes read");
  assert.ok(stats.bytesRead <= size, `${stats.bytesRead} read of ${size}`);
  assert.equal(stats.windowed, stats.bytesRead < size);
  return { ...stats, size };
}

/** A chain of `n` user turns of `chars` characters each. */
function turns(n: number, chars: number): Uint8Array {
  const entries = [];
  for (let i = 0; i < n; i++) {
    const id = (i + 1).toString(16).padStart(8, "0");
    const parent = i === 0 ? null : i.toString(16).padStart(8, "0");
    entries.push(user(id, parent, `${i} ${"z".repeat(chars)}`));
  }
  return sessionBytes(entries);
}

Deno.test("Session.windowStats() of a small file read whole: not windowed, every byte once", async (t) => {
  await using dir = await tempDir();
  const path = join(dir.path, "small.jsonl");
  await Deno.writeFile(path, turns(5, 100));
  for (const window of [true, false]) {
    await t.step(window ? "windowed open" : "{ window: false }", async () => {
      const s = await statsOf(path, () => Session.open(path, { window }));
      assert.equal(s.windowed, false);
      assert.equal(s.bytesRead, s.size);
      assert.equal(s.seen, 2 + 5); // the title slot, the header, the entries
      assert.equal(s.retained, 5);
    });
  }
});

Deno.test("Session.windowStats() of a large file with a checkpoint: windowed, part of it read", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "checkpoints.jsonl");
  await generateFile(path, {
    size: 4 << 20,
    seed: 11,
    compactionEvery: 1 << 20,
    lastCompactionBeforeEnd: 256 << 10,
    checkpoints: true,
  });
  const s = await statsOf(path, () => Session.open(path));
  assert.equal(s.windowed, true);
  assert.ok(s.bytesRead < s.size / 4, `${s.bytesRead} of ${s.size}`);
});

Deno.test("Session.windowStats() of a file read backwards to its start: not windowed, no byte twice", async (t) => {
  await using dir = await tempDir();
  await t.step("long lines across the blocks' edges", async () => {
    // Lines of ~50 KiB: many lie across an edge of the backward blocks
    // (64 KiB, then doubling), and each is read whole once more.
    const path = join(dir.path, "long-lines.jsonl");
    await Deno.writeFile(path, turns(60, 50_000));
    const s = await statsOf(path, () => Session.open(path));
    assert.equal(s.windowed, false);
    assert.equal(s.bytesRead, s.size);
    assert.equal(s.seen, 2 + 60);
  });
  await t.step("a transcript without checkpoints (as omp writes)", async () => {
    const path = join(dir.path, "omp-style.jsonl");
    await generateFile(path, {
      size: 3 << 20,
      seed: 5,
      checkpoints: false,
      lastCompactionBeforeEnd: 256 << 10,
    });
    const s = await statsOf(path, () => Session.open(path));
    assert.equal(s.windowed, false);
    assert.equal(s.bytesRead, s.size);
    assert.ok(s.retained < s.seen / 2, `${s.retained} of ${s.seen}`);
  });
});

Deno.test("Session.windowStats() of an open resumed from the index: windowed, each byte once", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "-w");
  await Deno.mkdir(folder, { recursive: true });
  const path = join(folder, "omp-style.jsonl");
  await generateFile(path, {
    size: 4 << 20,
    seed: 3,
    checkpoints: false,
    lastCompactionBeforeEnd: 256 << 10,
  });
  using index = await SessionIndex.open(dir.path);
  await index.refresh();
  const warm = await statsOf(
    path,
    () => index.openSession(path, { resolveBlobs: false }),
  );
  assert.equal(warm.windowed, true);
  assert.ok(
    warm.bytesRead < warm.size / 4,
    `${warm.bytesRead} of ${warm.size}`,
  );
  // Appended to since: the walk reads the new lines, then stops at the record.
  await using session = await Session.open(path);
  await session.appendMessage({ role: "user", content: "one more" });
  await session.close();
  const after = await statsOf(
    path,
    () => index.openSession(path, { resolveBlobs: false }),
  );
  assert.equal(after.windowed, true);
});

Deno.test("Session.windowStats() of a 20 MB transcript without checkpoints never counts more than the file", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "large.jsonl");
  await generateFile(path, { size: 20 << 20, seed: 1, checkpoints: false });
  const s = await statsOf(
    path,
    () => Session.open(path, { resolveBlobs: false }),
  );
  assert.equal(s.bytesRead, s.size); // no checkpoint: walked back to the start
  assert.equal(s.windowed, false);
});
