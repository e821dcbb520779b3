import { equal } from "node:assert/strict";
import {
  type BlobSizes,
  fileFigures,
  totalFigures,
} from "../../src/cli/_figures.ts";
import { makeDataDir } from "../_cli.ts";

Deno.test("totalFigures() sums the files and counts a shared blob once", async () => {
  await using d = await makeDataDir();
  const sizes: BlobSizes = new Map();
  const main = await fileFigures(d.session("s1-main.jsonl"), undefined, sizes);
  const fork = await fileFigures(d.session("s1-fork.jsonl"), undefined, sizes);
  equal(main.blobs, 2);
  equal(fork.blobs, 2);
  const t = totalFigures([main, fork], sizes);
  equal(t.entries, main.entries + fork.entries);
  equal(t.fileBytes, main.fileBytes + fork.fileBytes);
  equal(t.tokens.usage, main.tokens.usage + fork.tokens.usage);
  equal(t.window.bytesRead, main.window.bytesRead + fork.window.bytesRead);
  equal(t.blobs, 2, "the fork shares the main session's blobs");
  equal(t.blobBytes, main.blobBytes);
  equal(t.missingBlobs, 0);
});

Deno.test("fileFigures() of a file under no data dir: its blobs are missing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/a.jsonl`;
    await Deno.copyFile(
      new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url),
      file,
    );
    const sizes: BlobSizes = new Map();
    const f = await fileFigures(file, undefined, sizes);
    equal(f.blobs, 2);
    equal(f.missingBlobs, 2);
    equal(f.blobBytes, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
