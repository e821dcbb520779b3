import { deepStrictEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import {
  countEntries,
  findSessionFiles,
  scanBlobRefs,
  tally,
} from "../../src/cli/_scan.ts";
import { Session } from "../../mod.ts";
import { tempDir } from "../_session_files.ts";

const FIXTURES = new URL("../../fixtures/omp/", import.meta.url);

Deno.test("countEntries() counts a whole file as a full open sees it", async () => {
  const file = new URL("s1-main.jsonl", FIXTURES).pathname;
  const counts = await countEntries(file);
  await using full = await Session.open(file, { window: false });
  equal(counts.entries, full.entries.length);
  const byType = new Map<string, number>();
  for (const e of full.entries) {
    byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
  }
  deepStrictEqual([...counts.byType].sort(), [...byType].sort());
  equal(counts.compactions, 1);
  equal(counts.branches, 1);
  equal(counts.blobs.size, 2);
  equal(counts.issues.length, 0);
});

Deno.test("scanBlobRefs() finds a reference split across two chunks and in a torn line", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "a.jsonl");
  const a = "a".repeat(64);
  const b = "b".repeat(64);
  // Readable chunks are 64 KiB: put a reference across the first boundary.
  const pad = "x".repeat(65_536 - 20);
  await Deno.writeTextFile(
    file,
    `${pad}blob:sha256:${a}\n{"torn":"blob:sha256:${b}`,
  );
  const found = new Set<string>();
  await scanBlobRefs(file, found);
  deepStrictEqual([...found].sort(), [a, b]);
});

Deno.test("findSessionFiles() walks links once, sorted, *.jsonl only", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "sessions");
  await Deno.mkdir(join(root, "b"), { recursive: true });
  await Deno.writeTextFile(join(root, "b", "2.jsonl"), "");
  await Deno.writeTextFile(join(root, "1.jsonl"), "");
  await Deno.writeTextFile(join(root, "notes.txt"), "");
  await Deno.symlink(root, join(root, "b", "loop")); // a link loop
  await Deno.symlink(join(dir.path, "gone"), join(root, "dangling.jsonl"));
  deepStrictEqual(await findSessionFiles(root), [
    join(root, "1.jsonl"),
    join(root, "b", "2.jsonl"),
  ]);
});

Deno.test("tally() counts any key, even one Object.prototype holds", () => {
  const counts = new Map<string, number>();
  for (const k of ["constructor", "__proto__", "toString", "constructor"]) {
    tally(counts, k);
  }
  tally(counts, "message", 3);
  deepStrictEqual([...counts], [
    ["constructor", 2],
    ["__proto__", 1],
    ["toString", 1],
    ["message", 3],
  ]);
});
