/**
 * The tree export: every entry of the file, the active path down the page
 * and every other branch nested under its branch point. The file is read
 * once, each entry rendered as it comes into a scratch file and only its
 * envelope kept; then the tree's order is walked and the renderings copied
 * from the scratch file into the pages: memory holds the envelopes, not the
 * content.
 *
 * @module
 */

import { basename } from "node:path";
import { toMessage } from "../context/messages.ts";
import { collectLabels } from "../context/labels.ts";
import { pathTo, resolveLeaf } from "../context/tree.ts";
import type { OpaqueEntry, SessionEntry } from "../format/entries.ts";
import {
  BRANCH_MARKER_TYPE,
  branchMarkerTarget,
} from "../format/_branch_marker.ts";
import type { SessionHeader } from "../format/header.ts";
import type { TitleSlot } from "../format/title_slot.ts";
import { quote } from "../format/errors.ts";
import { IssueLog } from "../read/_decode.ts";
import { HEAD_LINE_MAX_BYTES } from "../read/_head.ts";
import { readLines } from "../read/lines.ts";
import { openRegular } from "../read/_open.ts";
import { sessionRecords } from "../read/_records.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";
import {
  entryNote,
  type ExportJob,
  type Format,
  type JobResult,
  renderMessage,
  type Shown,
} from "./_document.ts";
import { CallGroup } from "./_call_group.ts";
import { type Pages, Scratch, type Wrapper } from "./_files.ts";
import { messageTime, MetaCollector, type OutlineItem } from "./_meta.ts";
import { outlineLine } from "./_outline.ts";

const _LEGEND = "The whole tree: the active path runs down the page; " +
  "every other branch is nested under the entry it branches from.";
const _LEAF = "The active path ends here: a resume continues from this entry.";
const _BRANCH = "Another branch from here (not on the active path)";
const _DETACHED = "Entries whose parent is missing";

/**
 * Export the whole tree.
 *
 * @param job The export.
 * @returns What was written.
 * @throws {SessionSyntaxError} When the session's header cannot be read.
 */
export async function exportTree(job: ExportJob): Promise<JobResult> {
  const prefix = `.${basename(job.path)}.`;
  const scratch = await Scratch.create(job.folder, prefix);
  try {
    const meta = new MetaCollector();
    const read = await _read(job, scratch, meta);
    const { header, slot, nodes, messages } = read;
    const shape = _shape(nodes);
    const labels = collectLabels(read.labels);
    const title = slot !== undefined ? slot.title : header?.title;
    const string = (v: unknown) => typeof v === "string" ? v : undefined;
    const pages = job.open({
      // As `Session.title` has it: the slot's, else the header's.
      title: typeof title === "string" && title !== "" ? title : undefined,
      sessionId: string(header?.id),
      cwd: string(header?.cwd),
      ...meta.seen,
      messages,
      entries: nodes.length,
      scope: "the whole tree",
      usage: meta.usage,
      labels: nodes.flatMap(({ id }) =>
        Object.hasOwn(labels, id) ? [{ id, label: labels[id]! }] : []
      ),
      outline: _outline(read, shape, labels),
    });
    try {
      const branches = await _walk(pages, job.format, read, scratch, shape);
      const { issues } = meta;
      const written = await pages.finish({
        issues,
        missingImages: job.assets.missing,
      });
      return { written, messages, entries: nodes.length, branches, issues };
    } finally {
      await pages[Symbol.asyncDispose]();
    }
  } finally {
    await scratch[Symbol.asyncDispose]();
  }
}

/** Copy the renderings into the pages in the tree's order; the branches shown. */
async function _walk(
  pages: Pages,
  format: Format,
  read: _Read,
  scratch: Scratch,
  shape: _Shape,
): Promise<number> {
  let branches = 0;
  // A branch is opened when its first shown entry comes: an empty one (a
  // branch marker alone) is never shown.
  const pending: Wrapper[] = [];
  const flush = async () => {
    for (const w of pending) await pages.open(w);
    branches += pending.length;
    pending.length = 0;
  };
  await pages.write(format.note(_LEGEND));
  for (const step of treeOrder(shape.parents, shape.onPath, shape.start)) {
    if (step.kind === "close") {
      if (pending.length > 0) pending.pop();
      else pages.close();
      continue;
    }
    const i = step.index;
    if (step.kind === "open") {
      const time = messageTime(read.nodes[i]!);
      pending.push(
        shape.orphan(i)
          ? format.branch("detached", _DETACHED, time)
          : format.branch("branch", _BRANCH, time),
      );
      continue;
    }
    const span = read.spans[i]!;
    if (span.length > 0) {
      await flush();
      await pages.write(await scratch.read(span.at, span.length));
    }
    if (i === shape.leaf) {
      await flush();
      await pages.write(format.note(_LEAF));
    }
  }
  return branches;
}

/** What the first pass keeps of the file: envelopes, and where each rendering is. */
interface _Read {
  slot: TitleSlot | undefined;
  header: SessionHeader | undefined;
  /** Envelopes (a branch marker keeps its target too), in file order. */
  nodes: OpaqueEntry[];
  /** Where each entry's rendering is in the scratch file (none: length 0). */
  spans: { at: number; length: number }[];
  /** What the outline says of each entry (a user message's first line). */
  lines: (string | undefined)[];
  /** The `label` entries, in file order. */
  labels: SessionEntry[];
  messages: number;
}

/**
 * The tree's outline, in the order the page shows the entries: each user
 * message (and summary), as deep as the branches it is nested in.
 */
function _outline(
  read: _Read,
  shape: _Shape,
  labels: Readonly<Record<string, string>>,
): OutlineItem[] {
  const items: OutlineItem[] = [];
  let depth = 0;
  for (const step of treeOrder(shape.parents, shape.onPath, shape.start)) {
    if (step.kind === "open") depth++;
    else if (step.kind === "close") depth--;
    else {
      const text = read.lines[step.index];
      if (text === undefined) continue;
      const { id } = read.nodes[step.index]!;
      const item: OutlineItem = {
        anchor: id,
        text,
        depth,
        active: shape.onPath[step.index] === 1,
      };
      if (Object.hasOwn(labels, id)) item.tag = labels[id];
      items.push(item);
    }
  }
  return items;
}

/** Read the whole file, rendering each entry into `scratch`. */
async function _read(
  job: ExportJob,
  scratch: Scratch,
  meta: MetaCollector,
): Promise<_Read> {
  const out: _Read = {
    slot: undefined,
    header: undefined,
    nodes: [],
    spans: [],
    lines: [],
    labels: [],
    messages: 0,
  };
  const file = await openRegular(
    job.path,
    `Cannot export ${quote(job.path)}`,
  );
  try {
    const size = (await file.stat()).size;
    const lines = readLines(file, {
      end: size,
      maxLineBytes: DEFAULT_MAX_LINE_BYTES,
      maxFirstLineBytes: HEAD_LINE_MAX_BYTES,
    });
    const log = new IssueLog((i) => meta.issue(i));
    // Labels are known once the file is read: the headings show none, the
    // page's header and outline do.
    const render = (shown: Shown, results?: Shown[]) =>
      renderMessage(shown, job.format, job.assets, { labels: {} }, results);
    // An assistant's turn with tool calls is rendered once its results
    // have come, each under its call.
    let group: CallGroup | undefined;
    const flush = async () => {
      if (group === undefined) return;
      const text = await render(group.head, group.results);
      out.spans[group.index] = await scratch.append(text);
      group = undefined;
    };
    for await (const r of sessionRecords(lines, job.path, log)) {
      job.progress(r.offset + r.size, size, "bytes");
      if (r.kind === "title") out.slot = r.value;
      else if (r.kind === "header") out.header = r.value;
      else {
        const e = r.value;
        const m = toMessage(e, {});
        if (m !== undefined) meta.message(m);
        meta.call(e);
        if (e.type === "label") out.labels.push(e);
        out.lines.push(m === undefined ? undefined : outlineLine(m));
        if (m !== undefined) out.messages++;
        out.nodes.push(_envelope(e));
        if (m !== undefined && group?.take({ m, entry: e })) {
          out.spans.push({ at: 0, length: 0 }); // shown under its call
          continue;
        }
        await flush();
        if (m?.role === "assistant" && CallGroup.calls(m).size > 0) {
          group = new CallGroup({ m, entry: e }, out.spans.length);
          out.spans.push({ at: 0, length: 0 }); // set by flush()
          continue;
        }
        const text = m === undefined
          ? _note(job, e, meta)
          : await render({ m, entry: e });
        out.spans.push(
          text === "" ? { at: 0, length: 0 } : await scratch.append(text),
        );
      }
    }
    await flush();
    return out;
  } finally {
    await file[Symbol.asyncDispose]();
  }
}

/** An entry's envelope; a branch marker keeps its target too. */
function _envelope(e: SessionEntry): OpaqueEntry {
  const { type, id, parentId, timestamp } = e;
  const node: OpaqueEntry = { type, id, parentId, timestamp };
  const to = branchMarkerTarget(e);
  if (to !== undefined) {
    node.customType = BRANCH_MARKER_TYPE;
    node.data = { to };
  }
  return node;
}

/** An entry that is no message: a note for a setting, or nothing. */
function _note(job: ExportJob, e: SessionEntry, meta: MetaCollector): string {
  if (e.type === "model_change") meta.model(e.model);
  const note = entryNote(e);
  return note === undefined ? "" : job.format.note(note);
}

/**
 * The tree's shape: parent indices, the active path, the leaf and the
 * path's first entry (-1 for none), and whether an entry names a parent
 * that is not in the file.
 */
type _Shape = ReturnType<typeof _shape>;

function _shape(nodes: readonly OpaqueEntry[]) {
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
    orphan: (i: number): boolean => {
      const p = nodes[i]!.parentId;
      return typeof p === "string" && p !== "" && !byId.has(p);
    },
  };
}

/** One step of {@linkcode treeOrder}. */
export type TreeStep =
  /** Show the entry. */
  | { kind: "entry"; index: number }
  /** A branch starting at this entry opens (nested in the open ones). */
  | { kind: "open"; index: number }
  /** The innermost open branch ends. */
  | { kind: "close" };

/**
 * Walk a tree given as parent indices, depth first, without recursion (a
 * chain of a million entries costs a stack of a few items). From each entry
 * the walk goes on to its *main* child: the child on the active path, or
 * for an entry off the path its first child in file order; an entry on the
 * path with no child on it (the leaf) has none. Its other children each
 * open a branch (in file order) shown before the main child. The walk
 * starts at `start` (the active path's first entry), then at every other
 * root, then at whatever a cycle kept out of reach, each of those in a
 * branch of its own. Every entry is shown exactly once.
 *
 * @param parents Each entry's parent index, -1 for none (in file order).
 * @param onPath 1 for the entries of the active path.
 * @param start Where the walk starts, -1 for the first root.
 * @returns The steps.
 */
export function* treeOrder(
  parents: Int32Array,
  onPath: Uint8Array,
  start: number,
): Generator<TreeStep> {
  const n = parents.length;
  // The children of each entry, in file order: those of i are
  // list[first[i]] … list[first[i + 1] - 1].
  const first = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) if (parents[i]! >= 0) first[parents[i]! + 1]!++;
  for (let i = 0; i < n; i++) first[i + 1]! += first[i]!;
  const fill = first.slice(0, n);
  const list = new Int32Array(first[n]!);
  for (let i = 0; i < n; i++) {
    if (parents[i]! >= 0) list[fill[parents[i]!]!++] = i;
  }
  const main = (i: number): number => {
    for (let k = first[i]!; k < first[i + 1]!; k++) {
      if (onPath[list[k]!]) return list[k]!;
    }
    return onPath[i] || first[i] === first[i + 1] ? -1 : list[first[i]!]!;
  };
  const done = new Uint8Array(n);
  const starts: number[] = start >= 0 ? [start] : [];
  for (let i = 0; i < n; i++) if (parents[i]! < 0) starts.push(i);
  for (let i = 0; i < n; i++) starts.push(i); // what a cycle hides
  let nested = false; // the first start is shown at the top level
  for (const s of starts) {
    if (done[s]) continue;
    // A task: a chain to show from an entry, or a step to yield.
    const stack: (number | TreeStep)[] = nested ? [{ kind: "close" }, s] : [s];
    if (nested) yield { kind: "open", index: s };
    nested = true;
    while (stack.length > 0) {
      const task = stack.pop()!;
      if (typeof task !== "number") {
        yield task;
        continue;
      }
      if (done[task]) continue;
      done[task] = 1;
      yield { kind: "entry", index: task };
      const next = main(task);
      if (next >= 0) stack.push(next);
      for (let k = first[task + 1]! - 1; k >= first[task]!; k--) {
        const child = list[k]!;
        if (child === next || done[child]) continue;
        stack.push({ kind: "close" }, child, { kind: "open", index: child });
      }
    }
  }
}
