/**
 * Drawing a session's tree against scanning its envelopes, on a generated
 * ~165 MB transcript (`deno task cli gen --size 165M`):
 *
 *     deno bench --allow-read --allow-write --allow-env bench/tree_bench.ts
 *
 * The baseline reads the file, finds each line and reads its envelope (the
 * least any tree needs). `SessionTree.read()` adds every entry's preview
 * from its line's first 8 KiB (what `--json` prints); `cli tree` reads the
 * messages' roles only, lays the outline out, then reads the previews of
 * the rows it draws. Target: at most 2x the baseline. Peak memory, in fresh
 * processes: `bench/tree_follow.ts tree`.
 *
 * @module
 */

import { SessionTree } from "../mod.ts";
import {
  drawTree,
  scanEnvelopeHeads,
  scanEnvelopes,
  TREE_BENCH_BYTES,
} from "./_envelopes.ts";
import { benchFile } from "./_files.ts";

const path = await benchFile(TREE_BENCH_BYTES);
const group = "165 MB session: tree vs envelopes";

Deno.bench({
  name: "baseline: read, split lines, read each envelope",
  group,
  baseline: true,
  async fn() {
    await scanEnvelopes(path);
  },
});

Deno.bench({
  name: "envelopes from each line's first bytes (the line source's head)",
  group,
  async fn() {
    await scanEnvelopeHeads(path);
  },
});

Deno.bench({
  name: "SessionTree.read() (previews from each line's first bytes)",
  group,
  async fn() {
    await SessionTree.read(path);
  },
});

Deno.bench({
  name: "cli tree's work: read (previews later), outline, previews of the rows",
  group,
  async fn() {
    await drawTree(path);
  },
});
