/**
 * The entry tree: the leaf and the path from the root to it.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { branchMarkerTarget } from "../format/_branch_marker.ts";

/** How a walk from the leaf ended. */
export type PathEnd = "root" | "missing-parent" | "cycle";

/** The active path, root first. */
export interface ActivePath {
  /** Entries from the root (or the first reachable ancestor) to the leaf. */
  entries: SessionEntry[];
  /** `root` normally; otherwise why the walk stopped early. */
  end: PathEnd;
}

/**
 * The leaf of a session: the last entry, unless the last entry is a branch
 * marker, which re-points it to `data.to` (DESIGN §3.6). A marker whose
 * target is unknown leaves the marker itself as the leaf, which is what omp
 * sees too.
 *
 * @example Following a branch marker
 * ```ts
 * import type { SessionEntry } from "@xdev/session";
 * import { resolveLeaf } from "./tree.ts";
 * import { equal } from "node:assert/strict";
 *
 * const timestamp = "2026-10-01T09:00:00.000Z";
 * const entries: SessionEntry[] = [
 *   { type: "model_change", id: "a1", parentId: null, timestamp, model: "openai/gpt-5.1-codex" },
 *   { type: "reset_boundary", id: "b2", parentId: "a1", timestamp },
 *   { type: "custom", id: "c3", parentId: "a1", timestamp, customType: "branch", data: { to: "a1" } },
 * ];
 * const byId = new Map(entries.map((e) => [e.id, e]));
 * equal(resolveLeaf(entries, byId), "a1");
 * equal(resolveLeaf(entries.slice(0, 2), byId), "b2");
 * equal(resolveLeaf([], byId), null);
 * ```
 *
 * @param entries Entries in file order.
 * @param byId The same entries by id.
 * @returns The leaf's id, or null for a session without entries.
 */
export function resolveLeaf(
  entries: readonly SessionEntry[],
  byId: ReadonlyMap<string, SessionEntry>,
): string | null {
  const last = entries.at(-1);
  if (last === undefined) return null;
  const to = branchMarkerTarget(last);
  return to !== undefined && byId.has(to) ? to : last.id;
}

/**
 * Walk from `leafId` to the root through `parentId`, then reverse. The walk
 * stops at a missing parent (partial history beats no session) or at the
 * first repeated id (a cycle in a damaged file).
 *
 * @example Walking to the root, and stopping at a missing parent
 * ```ts
 * import type { SessionEntry } from "@xdev/session";
 * import { pathTo } from "./tree.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const timestamp = "2026-10-01T09:00:00.000Z";
 * const entries: SessionEntry[] = [
 *   { type: "reset_boundary", id: "a1", parentId: null, timestamp },
 *   { type: "reset_boundary", id: "b2", parentId: "a1", timestamp },
 *   { type: "reset_boundary", id: "c3", parentId: "deadbeef", timestamp },
 * ];
 * const byId = new Map(entries.map((e) => [e.id, e]));
 * const path = pathTo("b2", byId);
 * deepEqual(path.entries.map((e) => e.id), ["a1", "b2"]);
 * equal(path.end, "root");
 * equal(pathTo("c3", byId).end, "missing-parent");
 * ```
 *
 * @param leafId Where to start; null gives an empty path.
 * @param byId Entries by id.
 * @returns The path, root first, and how the walk ended.
 */
export function pathTo(
  leafId: string | null,
  byId: ReadonlyMap<string, SessionEntry>,
): ActivePath {
  const entries: SessionEntry[] = [];
  const seen = new Set<string>();
  let end: PathEnd = "root";
  let current = leafId === null ? undefined : byId.get(leafId);
  while (current !== undefined) {
    if (seen.has(current.id)) {
      end = "cycle";
      break;
    }
    seen.add(current.id);
    entries.push(current);
    const parent = current.parentId;
    if (!parent) break; // null, missing or "" (the spec's in-memory root)
    current = byId.get(parent);
    if (current === undefined) end = "missing-parent";
  }
  entries.reverse();
  return { entries, end };
}

/**
 * The links of a tree of `n` nodes in file order: each node's parent's
 * index (-1 for a root, a missing parent or a node naming itself), and
 * each node's children, in file order, as one flat list
 * (`childList[childStart[i], childStart[i + 1])`). The one tree builder:
 * `SessionTree`'s table and a session's `getTree()` both call it.
 */
export interface TreeLinks {
  /** Node index → its parent's index, -1 for none. */
  parents: Int32Array<ArrayBuffer>;
  /** Where each node's children start in `childList`; `n + 1` long. */
  childStart: Int32Array<ArrayBuffer>;
  /** Every node with a parent, grouped by parent, in file order. */
  childList: Int32Array<ArrayBuffer>;
}

/**
 * Link `n` nodes to their parents (two counting passes, no per-node
 * arrays).
 *
 * @example Two children of a root, and an orphan
 * ```ts
 * import { linkTree } from "./tree.ts";
 * import { deepEqual } from "node:assert/strict";
 * const parentOf = [-1, 0, 0, -1];
 * const links = linkTree(4, (i) => parentOf[i]!);
 * deepEqual([...links.parents], [-1, 0, 0, -1]);
 * deepEqual([...links.childList.subarray(links.childStart[0], links.childStart[1])], [1, 2]);
 * ```
 *
 * @param n How many nodes.
 * @param parentOf Node index → its parent's index, or -1.
 * @returns The links.
 */
export function linkTree(
  n: number,
  parentOf: (i: number) => number,
): TreeLinks {
  const parents = new Int32Array(n).fill(-1);
  const childStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const at = parentOf(i);
    if (at < 0 || at === i || at >= n) continue;
    parents[i] = at;
    childStart[at + 1]!++;
  }
  for (let i = 0; i < n; i++) childStart[i + 1]! += childStart[i]!;
  const childList = new Int32Array(childStart[n]!);
  const next = childStart.slice(0, n);
  for (let i = 0; i < n; i++) {
    const p = parents[i]!;
    if (p >= 0) childList[next[p]!++] = i;
  }
  return { parents, childStart, childList };
}
