/**
 * The compact table of a tree's nodes, in file order: a few strings and
 * numbers an entry, never the entries. Settled at the end into parents,
 * children, the leaf, the active path and the labels.
 *
 * @module
 */

import type { LoadIssue } from "../format/issues.ts";
import type { Described } from "./_preview.ts";

/** A flag of a node: an assistant turn with tool calls and no text. */
export const TOOL_ONLY = 1;
/** A flag of a node: its line holds a branch marker. */
export const BRANCH_MARKER = 2;
/** A flag of a node: its parent is not in the file. */
export const MISSING_PARENT = 4;
/** A flag of a node: a message whose preview is still to be read. */
export const PREVIEW_LATER = 8;

/** The tree of a file, as built: everything a {@linkcode SessionTree} holds. */
export interface TreeData {
  ids: string[];
  parentIds: (string | null)[];
  types: string[];
  roles: (string | undefined)[];
  previews: string[];
  offsets: number[];
  flags: Uint8Array;
  /** Index of each node's parent, -1 for a root. */
  parents: Int32Array;
  /** Children of node i: `childList[childStart[i], childStart[i + 1])`, in file order. */
  childStart: Int32Array;
  childList: Int32Array;
  /** Node index → label, the latest `label` entry per target winning. */
  labels: Map<number, string>;
  /** The leaf's index, -1 without entries. */
  leaf: number;
  /** 1 for the nodes on the path from the root to the leaf. */
  onPath: Uint8Array;
  issues: LoadIssue[];
  /** Id → index (the later one, for a duplicate id). */
  byId: Map<string, number>;
}

/** The nodes as they are added, then settled. */
export class NodeTable {
  readonly ids: string[] = [];
  readonly parentIds: (string | null)[] = [];
  /** `""` for a node reserved for a deferred line that held no entry. */
  readonly types: string[] = [];
  readonly roles: (string | undefined)[] = [];
  readonly previews: string[] = [];
  readonly offsets: number[] = [];
  #flags = new Uint8Array(1024);
  readonly #labelOps: [number, string, string | undefined][] = [];
  readonly #branchTo = new Map<number, string>();

  /** Reserve a node (filled now, or later by {@linkcode fill}). */
  add(offset: number): number {
    const index = this.ids.length;
    this.ids.push("");
    this.parentIds.push(null);
    this.types.push("");
    this.roles.push(undefined);
    this.previews.push("");
    this.offsets.push(offset);
    if (index >= this.#flags.length) {
      const grown = new Uint8Array(this.#flags.length * 2);
      grown.set(this.#flags);
      this.#flags = grown;
    }
    return index;
  }

  /** Fill a node. */
  fill(
    index: number,
    type: string,
    id: string,
    parentId: string | null,
    d: Described,
  ): void {
    this.ids[index] = id;
    this.parentIds[index] = parentId;
    this.types[index] = type;
    this.roles[index] = d.role;
    this.previews[index] = ownText(d.preview);
    if (d.toolOnly) this.#flags[index]! |= TOOL_ONLY;
  }

  /** Mark a message whose role is known and whose preview is read later. */
  later(index: number): void {
    this.#flags[index]! |= PREVIEW_LATER;
  }

  /** A branch marker's target, for the leaf rule. */
  branchTo(index: number, to: string): void {
    this.#flags[index]! |= BRANCH_MARKER;
    this.#branchTo.set(index, to);
  }

  /** A `label` entry: sets (or, with no label, clears) its target's label. */
  label(index: number, target: string, label: string | undefined): void {
    this.#labelOps.push([index, target, label]);
  }

  /** Settle parents, children, the leaf, the active path and the labels. */
  settle(issues: LoadIssue[]): TreeData {
    this.#dropHoles();
    const n = this.ids.length;
    const byId = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      if (this.types[i] !== "") byId.set(this.ids[i]!, i);
    }
    const flags = this.#flags.slice(0, n);
    const parents = new Int32Array(n).fill(-1);
    const counts = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const p = this.parentIds[i];
      if (p === null || p === undefined || this.types[i] === "") continue;
      const at = byId.get(p);
      if (at === undefined) flags[i]! |= MISSING_PARENT;
      else if (at !== i) {
        parents[i] = at;
        counts[at]!++;
      }
    }
    const childStart = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) childStart[i + 1] = childStart[i]! + counts[i]!;
    const childList = new Int32Array(childStart[n]!);
    const next = childStart.slice(0, n);
    for (let i = 0; i < n; i++) {
      const p = parents[i]!;
      if (p >= 0) childList[next[p]!++] = i;
    }
    const leaf = this.#leaf(byId);
    const onPath = new Uint8Array(n);
    for (let i = leaf; i >= 0 && onPath[i] === 0; i = parents[i]!) {
      onPath[i] = 1;
    }
    const labels = new Map<number, string>();
    this.#labelOps.sort((a, b) => a[0] - b[0]); // deferred lines came late
    for (const [, target, label] of this.#labelOps) {
      const i = byId.get(target);
      if (i === undefined) continue;
      if (label === undefined) labels.delete(i);
      else labels.set(i, label);
    }
    return {
      ids: this.ids,
      parentIds: this.parentIds,
      types: this.types,
      roles: this.roles,
      previews: this.previews,
      offsets: this.offsets,
      flags,
      parents,
      childStart,
      childList,
      labels,
      leaf,
      onPath,
      issues,
      byId,
    };
  }

  /**
   * Remove the nodes reserved for deferred lines that held no entry
   * (rare: only then are indexes renumbered).
   */
  #dropHoles(): void {
    if (!this.types.includes("")) return;
    const keep: number[] = [];
    for (let i = 0; i < this.types.length; i++) {
      if (this.types[i] !== "") keep.push(i);
    }
    const renumber = new Map(keep.map((old, i) => [old, i]));
    for (
      const column of [
        this.ids,
        this.parentIds,
        this.types,
        this.roles,
        this.previews,
        this.offsets,
      ]
    ) {
      keep.forEach((old, i) => (column as unknown[])[i] = column[old]);
      column.length = keep.length;
    }
    const flags = new Uint8Array(Math.max(1024, keep.length));
    keep.forEach((old, i) => flags[i] = this.#flags[old]!);
    this.#flags = flags;
    const branchTo = [...this.#branchTo].map(([i, to]) =>
      [renumber.get(i)!, to] as const
    );
    this.#branchTo.clear();
    for (const [i, to] of branchTo) this.#branchTo.set(i, to);
    for (const op of this.#labelOps) op[0] = renumber.get(op[0])!;
  }

  /** The last entry, or a last branch marker's target (the rule of `resolveLeaf`). */
  #leaf(byId: Map<string, number>): number {
    let last = this.ids.length - 1;
    while (last >= 0 && this.types[last] === "") last--;
    if (last < 0) return -1;
    const to = this.#branchTo.get(last);
    return to !== undefined ? byId.get(to) ?? last : last;
  }
}

/**
 * A string of its own: a preview cut from a longer decoded text would
 * otherwise keep that text alive (a slice points into its source).
 */
export function ownText(text: string): string {
  return text.length < 13 ? text : (text + " ").slice(0, -1);
}
