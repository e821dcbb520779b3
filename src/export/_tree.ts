/**
 * The tree export: every entry of the file, the active path down the page
 * and every other branch nested under its branch point. The file is read
 * once (`_tree_read.ts`: each entry rendered into a scratch file, only its
 * envelope kept); then the tree's order is walked and the renderings are
 * copied from the scratch file into the pages: memory holds the envelopes,
 * not the content.
 *
 * @module
 */

import { basename } from "node:path";
import type { ContextMessage } from "../context/messages.ts";
import { pathTo, resolveLeaf } from "../context/tree.ts";
import type { OpaqueEntry, SessionEntry } from "../format/entries.ts";
import type { ExportJob, JobResult } from "./_job.ts";
import { writeThrough } from "./_job.ts";
import { IssueTally, messageTime, MetaCollector } from "./_meta.ts";
import type { Wrapper } from "./_renderer.ts";
import { Scratch } from "./_scratch.ts";
import { readTree, type TreeRead } from "./_tree_read.ts";
import { treeOrder } from "./_tree_walk.ts";

/**
 * Export the whole tree.
 *
 * @param job The export.
 * @returns What was written.
 */
export async function exportTree(job: ExportJob): Promise<JobResult> {
  const scratchPath = await Deno.makeTempFile({
    dir: job.scratch,
    prefix: `.${basename(job.path)}.`,
    suffix: ".tmp",
  });
  try {
    using file = await Deno.open(scratchPath, { read: true, write: true });
    const scratch = new Scratch(file);
    const tally = new IssueTally();
    const meta = new MetaCollector();
    const read = await readTree(job, scratch, tally, meta);
    return await _assemble(job, scratch, read, tally, meta);
  } finally {
    await Deno.remove(scratchPath);
  }
}
/** The tree's shape: parent indices, the active path, the leaf. */
interface _Shape {
  parents: Int32Array;
  onPath: Uint8Array;
  leaf: number;
  start: number;
  /** Whether an entry names a parent that is not in the file. */
  orphan(i: number): boolean;
}

function _shape(nodes: readonly OpaqueEntry[]): _Shape {
  const byId = new Map<string, SessionEntry>();
  const index = new Map<string, number>();
  for (const [i, node] of nodes.entries()) {
    byId.set(node.id, node);
    index.set(node.id, i);
  }
  const leaf = resolveLeaf(nodes, byId);
  const path = pathTo(leaf, byId).entries;
  const parents = Int32Array.from(nodes, (node, i) => {
    const p = node.parentId ? index.get(node.parentId) : undefined;
    return p === undefined || p === i ? -1 : p;
  });
  const onPath = new Uint8Array(nodes.length);
  for (const e of path) onPath[index.get(e.id)!] = 1;
  return {
    parents,
    onPath,
    leaf: leaf === null ? -1 : index.get(leaf)!,
    start: path.length > 0 ? index.get(path[0]!.id)! : -1,
    orphan: (i) => {
      const p = nodes[i]!.parentId;
      return typeof p === "string" && p !== "" && !byId.has(p);
    },
  };
}

async function _assemble(
  job: ExportJob,
  scratch: Scratch,
  read: TreeRead,
  tally: IssueTally,
  meta: MetaCollector,
): Promise<JobResult> {
  const { nodes } = read;
  const { renderer } = job;
  const shape = _shape(nodes);
  const sink = await job.openSink({
    title: _title(read),
    sessionId: _string(read.header?.id),
    cwd: _string(read.header?.cwd),
    models: meta.models,
    first: meta.first,
    last: meta.last,
    messages: read.messages,
    entries: nodes.length,
    scope: "the whole tree",
  });
  let branches = 0;
  // A branch is opened when its first shown entry comes: an empty one (a
  // branch marker alone) is never shown.
  const pending: Wrapper[] = [];
  const flush = async () => {
    for (const w of pending) await sink.open(w);
    branches += pending.length;
    pending.length = 0;
  };
  const written = await writeThrough(sink, async () => {
    await sink.write(renderer.note(_LEGEND));
    for (const step of treeOrder(shape.parents, shape.onPath, shape.start)) {
      if (step.kind === "open") {
        pending.push(renderer.branch({
          kind: shape.orphan(step.index) ? "detached" : "branch",
          time: _time(nodes[step.index]!.timestamp),
        }));
      } else if (step.kind === "close") {
        if (pending.length > 0) pending.pop();
        else await sink.close();
      } else {
        const at = read.at[step.index]!;
        if (at >= 0) {
          await flush();
          const length = read.length[step.index]!;
          await sink.write(await scratch.read(at, length));
        }
        if (step.index === shape.leaf) {
          await flush();
          await sink.write(renderer.note(_LEAF));
        }
      }
    }
    return await sink.finish({
      issues: tally.counts,
      missingImages: job.assets.missing,
    });
  });
  return {
    written,
    messages: read.messages,
    entries: nodes.length,
    branches,
    issues: tally.counts,
  };
}

const _LEGEND = "The whole tree: the active path runs down the page; " +
  "every other branch is nested under the entry it branches from.";
const _LEAF = "The active path ends here: a resume continues from this entry.";

function _time(timestamp: unknown): string | undefined {
  return messageTime({ role: "entry", timestamp } as unknown as ContextMessage);
}
/** The title as `Session.title` has it: the slot's, else the header's. */
function _title(read: TreeRead): string | undefined {
  const title = read.slot !== undefined ? read.slot.title : read.header?.title;
  return typeof title === "string" && title !== "" ? title : undefined;
}

function _string(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
