/**
 * The baseline of the tree's benchmarks (scanning a file's envelopes), and
 * the work of `cli tree`.
 *
 * @module
 */

import { outlineTree, SessionTree, type TreeRow } from "../mod.ts";
import { fs } from "../src/_fs.ts";
import { EnvelopeAt, readEnvelope } from "../src/read/_envelope.ts";
import { readLines } from "../src/read/lines.ts";

/** The size the issue names: a 165 MB session. */
export const TREE_BENCH_BYTES = 165 << 20;

/**
 * The baseline: every line's envelope (type, id, parent), nothing else,
 * from each line's whole bytes.
 *
 * @param file The session file.
 * @returns How many lines had an envelope.
 */
export async function scanEnvelopes(file: string): Promise<number> {
  return await _scan(file, (line) => line.bytes);
}

/**
 * The same scan from each line's first bytes (its `head`), as the tree
 * reads them: the floor of any tree read.
 *
 * @param file The session file.
 * @returns How many lines had an envelope.
 */
export async function scanEnvelopeHeads(file: string): Promise<number> {
  return await _scan(file, (line) => line.head);
}

async function _scan(
  file: string,
  bytesOf: (
    line: { head: Uint8Array; bytes?: Uint8Array | undefined },
  ) => Uint8Array | undefined,
): Promise<number> {
  await using f = await fs().open(file, { read: true });
  const at = new EnvelopeAt();
  let n = 0;
  for await (const line of readLines(f)) {
    const bytes = bytesOf(line);
    if (bytes !== undefined && readEnvelope(bytes, 0, bytes.length, at)) {
      at.id();
      at.parentId();
      at.type();
      n++;
    }
  }
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
