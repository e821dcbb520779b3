/**
 * The baseline of the tree's benchmarks (scanning a file's envelopes), and
 * the work of `cli tree`.
 *
 * @module
 */

import { outlineTree, SessionTree, type TreeRow } from "../mod.ts";
import { EnvelopeAt, readEnvelope } from "../src/read/_envelope.ts";
import { readLinesFromReader } from "../src/read/_lines_forward.ts";
import { scanHeads } from "../src/tree/_heads.ts";

/** The size the issue names: a 165 MB session. */
export const TREE_BENCH_BYTES = 165 << 20;

/**
 * The baseline: every line's envelope (type, id, parent), nothing else.
 *
 * @param file The session file.
 * @returns How many lines had an envelope.
 */
export async function scanEnvelopes(file: string): Promise<number> {
  using f = await Deno.open(file);
  const at = new EnvelopeAt();
  let n = 0;
  for await (const line of readLinesFromReader(f)) {
    if (readEnvelope(line.bytes, 0, line.bytes.length, at)) {
      at.id();
      at.parentId();
      at.type();
      n++;
    }
  }
  return n;
}

/**
 * The same scan through the tree's own line scanner (each line's first
 * bytes at hand, long lines never copied): the floor of any tree read.
 *
 * @param file The session file.
 * @returns How many lines had an envelope.
 */
export async function scanEnvelopeHeads(file: string): Promise<number> {
  using f = await Deno.open(file);
  const at = new EnvelopeAt();
  let n = 0;
  await scanHeads(f, 0, (line) => {
    if (readEnvelope(line.bytes, line.start, line.end, at)) {
      at.id();
      at.parentId();
      at.type();
      n++;
    }
  });
  return n;
}

/**
 * What `cli tree` does before printing: the tree with messages' previews
 * left for later, the outline, then the previews of the rows drawn.
 *
 * @param file The session file.
 * @returns The rows.
 */
export async function drawTree(file: string): Promise<TreeRow[]> {
  const tree = await SessionTree.read(file, { previews: false });
  const rows = outlineTree(tree);
  await tree.readPreviews(
    rows.flatMap((r) => r.kind === "entry" ? [r.node.index] : []),
  );
  return rows;
}
