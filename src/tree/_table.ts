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

/** The common roles, so 100,000 nodes share a few strings. */
const _ROLES = new Map(
  ["user", "assistant", "toolResult", "developer", "custom", "bashExecution"]
    .map((r) => [r, r]),
);

/** The nodes as they are added, then settled. */
export class NodeTable {
  readonly ids: string[] = [];
  readonly parentIds: (string | null)[] = [];
  readonly types: string[] = [];
  readonly roles: (string | undefined)[] = [];
  readonly previews: string[] = [];
  readonly offsets: number[] = [];
  #flags = new Uint8Array(1024);
  /** `label` entries in file order: target id, label (undefined clears it). */
  readonly #labelOps: [string, string | undefined][] = [];
  /** The last node's branch marker target, if it is a marker. */
  #lastBranchTo: string | undefined;

  /**
   * Add a node.
   *
   * @param offset Its line's offset.
   * @param type Its entry's type.
   * @param id Its id.
   * @param parentId Its parent's id as written.
   * @param d Its role, preview and tool-only flag.
   * @returns Its index.
   */
  add(
    offset: number,
    type: string,
    id: string,
    parentId: string | null,
    d: Described,
  ): number {
    const index = this.ids.length;
    if (index >= this.#flags.length) {
      const grown = new Uint8Array(this.#flags.length * 2);
      grown.set(this.#flags);
      this.#flags = grown;
    }
    this.ids.push(id);
    this.parentIds.push(parentId);
    this.types.push(type);
    this.roles.push(
      d.role === undefined ? undefined : _ROLES.get(d.role) ?? d.role,
    );
    this.previews.push(ownText(d.preview));
    this.offsets.push(offset);
    if (d.toolOnly) this.#flags[index]! |= TOOL_ONLY;
    this.#lastBranchTo = undefined;
    return index;
  }

  /** Mark a message whose role is known and whose preview is read later. */
  later(index: number): void {
    this.#flags[index]! |= PREVIEW_LATER;
  }

  /** The branch marker target of the node just added, for the leaf rule. */
  branchTo(to: string): void {
    this.#lastBranchTo = to;
  }

  /** A `label` entry: sets (or, with no label, clears) its target's label. */
  label(target: string, label: string | undefined): void {
    this.#labelOps.push([target, label]);
  }

  /** Settle parents, children, the leaf, the active path and the labels. */
  settle(issues: LoadIssue[]): TreeData {
    const n = this.ids.length;
    const byId = new Map<string, number>();
    for (let i = 0; i < n; i++) byId.set(this.ids[i]!, i);
    const flags = this.#flags.slice(0, n);
    const parents = new Int32Array(n).fill(-1);
    const childStart = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const p = this.parentIds[i];
      if (p === null || p === undefined) continue;
      const at = byId.get(p);
      if (at === undefined) flags[i]! |= MISSING_PARENT;
      else if (at !== i) {
        parents[i] = at;
        childStart[at + 1]!++;
      }
    }
    for (let i = 0; i < n; i++) childStart[i + 1]! += childStart[i]!;
    const childList = new Int32Array(childStart[n]!);
    const next = childStart.slice(0, n);
    for (let i = 0; i < n; i++) {
      const p = parents[i]!;
      if (p >= 0) childList[next[p]!++] = i;
    }
    // The last entry, or a last branch marker's target (`resolveLeaf`'s rule).
    const to = this.#lastBranchTo;
    const leaf = to === undefined ? n - 1 : byId.get(to) ?? n - 1;
    const onPath = new Uint8Array(n);
    for (let i = leaf; i >= 0 && onPath[i] === 0; i = parents[i]!) {
      onPath[i] = 1;
    }
    const labels = new Map<number, string>();
    for (const [target, label] of this.#labelOps) {
      const i = byId.get(target);
      if (i === undefined) continue;
      if (label === undefined) labels.delete(i);
      else labels.set(i, label);
    }
    const { ids, parentIds, types, roles, previews, offsets } = this;
    return {
      ids,
      parentIds,
      types,
      roles,
      previews,
      offsets,
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
}

/**
 * A string of its own: a preview cut from a longer decoded text would
 * otherwise keep that text alive (a slice points into its source).
 *
 * @param text The text.
 * @returns The same text, in a string of its own.
 */
export function ownText(text: string): string {
  return text.length < 13 ? text : (text + " ").slice(0, -1);
}
