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
 * The most levels of side branches a prefix draws (three characters each),
 * as many as omp's `/tree` draws on an 80-column terminal: a row nested
 * deeper keeps the innermost levels, `…` in its first cell marking the
 * ones left out. Side branches nest at most a logarithm of the session
 * deep (see {@linkcode _continuing}), so only a bushy tree of thousands of
 * entries reaches the cap.
 */
const _MAX_LEVELS = 12;
const _MAX_PREFIX = 3 * _MAX_LEVELS;

/**
 * The rows that draw a tree: entries the filter shows, each under the
 * nearest shown ancestor. A branch goes on at its own depth, like a line
 * of `git log --graph`: at a branch point the branch that continues (the
 * one holding the active path, else the largest, the later on a tie) is
 * drawn last, in the same column, and the others hang off it first, in
 * file order, one level in (`├─ `). The active path so reads straight down
 * the first column, and a row is nested only as deep as the side branches
 * it lies in, never deeper than 12 levels (the cap). The outline is so
 * proportional to the session, however many times its turns were retried.
 * Runs longer than `foldAfter` are folded, and side branches deeper than
 * `depth` summarized. Several roots (a cut-off history) are drawn as
 * branches of one point, the active one first.
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
 * ok(lines.some((l) => l.startsWith("├─ "))); // the branch left behind
 * const leaf = rows.find((r) => r.kind === "entry" && r.leaf);
 * equal(leaf?.prefix, ""); // the active path, in the first column
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
  const many = roots.length > 1;
  for (let i = roots.length - 1; i >= 0; i--) {
    const last = i === roots.length - 1;
    tasks.push({
      node: roots[i]!,
      first: many ? (last ? "└─ " : "├─ ") : "",
      gutter: many ? (last ? "   " : "│  ") : "",
      depth: 0,
    });
  }
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    const run = _run(shown, task.node);
    _emitRun(tree, run, task, foldAfter, rows);
    const kids = shown.children(run[run.length - 1]!);
    if (kids.length === 0) continue;
    const main = _continuing(tree, shown, kids);
    const sides = kids.filter((k) => k !== main);
    // Popped in this order: the sides (or their summary), then the main.
    tasks.push({ ...task, node: main, first: task.gutter });
    if (task.depth + 1 > depth) {
      rows.push({
        kind: "branches",
        prefix: _cap(`${task.gutter}├─ `),
        branches: sides.length,
        entries: sides.reduce((n, k) => n + shown.size(k), 0),
      });
      continue;
    }
    for (let i = sides.length - 1; i >= 0; i--) {
      tasks.push({
        node: sides[i]!,
        first: _cap(`${task.gutter}├─ `),
        gutter: _cap(`${task.gutter}│  `),
        depth: task.depth + 1,
      });
    }
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
  /** Side-branch levels above it. */
  depth: number;
}

/**
 * A prefix of at most {@linkcode _MAX_PREFIX} characters: a longer one
 * keeps its end (the innermost levels) behind a `…`.
 */
function _cap(prefix: string): string {
  if (prefix.length <= _MAX_PREFIX) return prefix;
  return `…${prefix.slice(prefix.length - _MAX_PREFIX + 1)}`;
}

/** Nodes with the one on the active path first, then in file order. */
function _ordered(tree: SessionTree, nodes: number[]): number[] {
  const active = nodes.findIndex((n) => tree.isOnActivePath(n));
  if (active <= 0) return nodes;
  return [nodes[active]!, ...nodes.filter((_, i) => i !== active)];
}

/**
 * The branch of a branch point drawn in its column: the one on the active
 * path, else the one with the most shown entries (the later on a tie). The
 * largest going on keeps every side branch at most half its branch point's
 * subtree, so side branches nest a logarithm of the session deep at most.
 */
function _continuing(
  tree: SessionTree,
  shown: _ShownTree,
  kids: number[],
): number {
  let best = kids[0]!;
  for (const k of kids) {
    if (tree.isOnActivePath(k)) return k;
    if (shown.size(k) >= shown.size(best)) best = k;
  }
  return best;
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
  /** Shown entries in the subtree of `node`, itself included. */
  size(node: number): number;
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
  const children = (node: number) => kids.get(node) ?? [];
  const sizes = _subtreeSizes(roots, children, n);
  return { roots, children, size: (node) => sizes[node]! };
}

/**
 * The size of every subtree under `roots`, without recursion: a node comes
 * after its parent in the walk's order, so the order read backwards adds
 * each subtree to its parent once it is whole.
 */
function _subtreeSizes(
  roots: number[],
  children: (node: number) => number[],
  n: number,
): Uint32Array {
  const sizes = new Uint32Array(n);
  const up = new Int32Array(n).fill(-1);
  const order: number[] = [];
  const stack = [...roots];
  for (let at = stack.pop(); at !== undefined; at = stack.pop()) {
    order.push(at);
    for (const k of children(at)) {
      up[k] = at;
      stack.push(k);
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const at = order[i]!;
    sizes[at]! += 1;
    if (up[at]! >= 0) sizes[up[at]!]! += sizes[at]!;
  }
  return sizes;
}

function _count(value: number, name: string): number {
  if (value === Infinity || (Number.isInteger(value) && value >= 0)) {
    return value;
  }
  throw new RangeError(
    `Cannot outline the tree: ${name} must be a whole number of at least 0, got ${value}`,
  );
}
