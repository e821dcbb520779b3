/**
 * A session tree as an outline: the rows to print, in order, with their
 * tree-drawing prefixes; linear runs folded, deep branches summarized.
 *
 * @module
 */

import type { TreeFilter } from "./_table.ts";
import type { SessionTree, TreeNode } from "./session_tree.ts";

export type { TreeFilter };

/** Options for {@linkcode outlineTree}. */
export interface OutlineTreeOptions {
  /** Which entries to show. Default `default`. */
  filter?: TreeFilter;
  /**
   * How many levels of branches to open: the branches of a branch point
   * deeper than this are summarized in one row. Default Infinity.
   */
  depth?: number;
  /**
   * A linear run (each entry the only child of the one before) longer than
   * this shows its first and last entries, its labelled ones and the leaf,
   * and `… N entries …` rows for the rest; 0 never folds. Default 10.
   */
  foldAfter?: number;
}

/** One row of an outline. */
export type TreeRow =
  | {
    /** An entry. */
    kind: "entry";
    /** Box-drawing characters to print before it (`├─ `, `│  ` …). */
    prefix: string;
    /** The entry. */
    node: TreeNode;
    /** Whether it is the leaf. */
    leaf: boolean;
  }
  | {
    /** Entries of a linear run left out. */
    kind: "folded";
    /** Box-drawing characters to print before it. */
    prefix: string;
    /** How many. */
    entries: number;
  }
  | {
    /** The branches of a branch point deeper than `depth`. */
    kind: "branches";
    /** Box-drawing characters to print before it. */
    prefix: string;
    /** How many branches. */
    branches: number;
    /** How many entries they hold (those the filter shows). */
    entries: number;
  };

/** A run at least this long is folded by default. */
const _FOLD_AFTER = 10;

/**
 * The rows that draw a tree: entries the filter shows, each under the
 * nearest shown ancestor; at a branch point, the branch holding the active
 * path first, then the others in file order. Runs longer than `foldAfter`
 * are folded, and branches deeper than `depth` summarized.
 *
 * @example Drawing a session with a branch
 * ```ts
 * import { outlineTree, SessionTree } from "@xdev/session";
 * import { equal, ok } from "node:assert/strict";
 *
 * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
 * const tree = await SessionTree.read(url.pathname);
 * const rows = outlineTree(tree, { filter: "user" });
 * const lines = rows.map((r) =>
 *   r.kind === "entry" ? `${r.prefix}${r.node.preview}` : `${r.prefix}…`
 * );
 * ok(lines.some((l) => l.startsWith("├─ ")));
 * ok(lines.some((l) => l.startsWith("└─ ")));
 * equal(rows.filter((r) => r.kind === "entry" && r.leaf).length, 1);
 * ```
 *
 * @param tree The tree.
 * @param options The filter, the depth of branches, the folding.
 * @returns The rows, top to bottom.
 * @throws {RangeError} For a negative or fractional `depth` or `foldAfter`.
 */
export function outlineTree(
  tree: SessionTree,
  options: OutlineTreeOptions = {},
): TreeRow[] {
  const filter = options.filter ?? "default";
  const depth = _count(options.depth ?? Infinity, "depth");
  const foldAfter = _count(options.foldAfter ?? _FOLD_AFTER, "foldAfter");
  const shown = _shownTree(tree, filter);
  const rows: TreeRow[] = [];
  const tasks: _Task[] = [];
  const roots = _ordered(tree, shown.roots);
  _pushBranches(tasks, roots, "", 0, roots.length > 1);
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    const run = _run(shown, task.node);
    _emitRun(tree, run, task, foldAfter, rows);
    const last = run[run.length - 1]!;
    const kids = _ordered(tree, shown.children(last));
    if (kids.length === 0) continue;
    if (task.depth + 1 > depth) {
      rows.push({
        kind: "branches",
        prefix: task.gutter,
        branches: kids.length,
        entries: kids.reduce((n, k) => n + _sizeOf(shown, k), 0),
      });
      continue;
    }
    _pushBranches(tasks, kids, task.gutter, task.depth + 1, true);
  }
  return rows;
}

/** A run of entries to draw, starting at `node`. */
interface _Task {
  node: number;
  /** The prefix of the run's first row. */
  first: string;
  /** The prefix of its other rows, and of what lies under it. */
  gutter: string;
  /** Branch levels above it. */
  depth: number;
}

function _pushBranches(
  tasks: _Task[],
  kids: number[],
  gutter: string,
  depth: number,
  connect: boolean,
): void {
  for (let i = kids.length - 1; i >= 0; i--) {
    const last = i === kids.length - 1;
    tasks.push({
      node: kids[i]!,
      first: connect ? `${gutter}${last ? "└─ " : "├─ "}` : gutter,
      gutter: connect ? `${gutter}${last ? "   " : "│  "}` : gutter,
      depth,
    });
  }
}

/** Nodes with the one on the active path first, then in file order. */
function _ordered(tree: SessionTree, nodes: number[]): number[] {
  const active = nodes.findIndex((n) => tree.isOnActivePath(n));
  if (active <= 0) return nodes;
  return [nodes[active]!, ...nodes.filter((_, i) => i !== active)];
}

/** The chain from `node` while each entry has exactly one shown child. */
function _run(shown: _ShownTree, node: number): number[] {
  const run = [node];
  for (let kids = shown.children(node); kids.length === 1;) {
    run.push(kids[0]!);
    kids = shown.children(kids[0]!);
  }
  return run;
}

function _emitRun(
  tree: SessionTree,
  run: number[],
  task: _Task,
  foldAfter: number,
  rows: TreeRow[],
): void {
  const fold = foldAfter > 0 && run.length > foldAfter;
  let skipped = 0;
  for (let i = 0; i < run.length; i++) {
    const n = run[i]!;
    const leaf = n === tree.leaf;
    const node = tree.node(n);
    const keep = !fold || i === 0 || i === run.length - 1 || leaf ||
      node.label !== null;
    if (!keep) {
      skipped++;
      continue;
    }
    if (skipped > 0) {
      rows.push({ kind: "folded", prefix: task.gutter, entries: skipped });
      skipped = 0;
    }
    rows.push({
      kind: "entry",
      prefix: i === 0 ? task.first : task.gutter,
      node,
      leaf,
    });
  }
}

/** The tree of the shown entries: each under its nearest shown ancestor. */
interface _ShownTree {
  roots: number[];
  children(node: number): number[];
}

function _shownTree(tree: SessionTree, filter: TreeFilter): _ShownTree {
  const n = tree.size;
  const shown = new Uint8Array(n);
  for (let i = 0; i < n; i++) shown[i] = tree.shows(i, filter) ? 1 : 0;
  // anchor[i]: i when shown, else the anchor of its parent (-1: none);
  // -2 while unknown. Walks up iteratively (chains can be 100,000 long).
  const anchor = new Int32Array(n).fill(-2);
  const resolve = (start: number): number => {
    const trail: number[] = [];
    let at = start;
    let found = -1;
    while (at >= 0) {
      if (anchor[at]! !== -2) {
        found = anchor[at]!;
        break;
      }
      if (shown[at] === 1) {
        found = at;
        break;
      }
      anchor[at] = -3; // on this walk: a cycle ends it
      trail.push(at);
      at = tree.parent(at);
      if (at >= 0 && anchor[at] === -3) break;
    }
    for (const t of trail) anchor[t] = found;
    return found;
  };
  const roots: number[] = [];
  const kids = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    if (shown[i] === 0) continue;
    anchor[i] = i;
    const p = tree.parent(i);
    const up = p >= 0 ? resolve(p) : -1;
    if (up < 0 || up === i) roots.push(i);
    else {
      const list = kids.get(up);
      if (list === undefined) kids.set(up, [i]);
      else list.push(i);
    }
  }
  return { roots, children: (node) => kids.get(node) ?? [] };
}

/**
 * Shown entries in the subtree of `node`, itself included (no recursion).
 * Only the branches left undrawn are counted, and those subtrees never
 * overlap: the whole outline counts each entry once at most.
 */
function _sizeOf(shown: _ShownTree, node: number): number {
  let size = 0;
  const stack = [node];
  for (let at = stack.pop(); at !== undefined; at = stack.pop()) {
    size++;
    stack.push(...shown.children(at));
  }
  return size;
}

function _count(value: number, name: string): number {
  if (value === Infinity || (Number.isInteger(value) && value >= 0)) {
    return value;
  }
  throw new RangeError(
    `Cannot outline the tree: ${name} must be a whole number of at least 0, got ${value}`,
  );
}
