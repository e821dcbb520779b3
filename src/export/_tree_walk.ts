/**
 * The order in which a tree export shows entries: the active path down the
 * page, every other branch nested under the entry it branches from.
 *
 * @module
 */

/** One step of {@linkcode treeOrder}. */
export type TreeStep =
  /** Show the entry. */
  | { kind: "entry"; index: number }
  /** A branch starting at this entry opens (nested in the open ones). */
  | { kind: "open"; index: number }
  /** The innermost open branch ends. */
  | { kind: "close" };

/** A task on the walk's stack: a chain to show from an entry, or a step. */
type _Task = number | TreeStep;

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
 * @example A branch point
 * ```ts
 * import { treeOrder } from "./_tree_walk.ts";
 * // 0 ← 1 ← 2 (abandoned), 0 ← 3 (active, the leaf)
 * const parents = Int32Array.from([-1, 0, 1, 0]);
 * const onPath = Uint8Array.from([1, 0, 0, 1]);
 * const steps = [...treeOrder(parents, onPath, 0)].map((s) =>
 *   s.kind === "close" ? ")" : s.kind === "open" ? `(${s.index}` : `${s.index}`
 * );
 * console.assert(steps.join(" ") === "0 (1 1 2 ) 3");
 * ```
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
  const { first, list } = _children(parents);
  const done = new Uint8Array(n);
  const main = (i: number): number => {
    for (let k = first[i]!; k < first[i + 1]!; k++) {
      if (onPath[list[k]!]) return list[k]!;
    }
    return onPath[i] || first[i] === first[i + 1] ? -1 : list[first[i]!]!;
  };
  const starts: number[] = [];
  if (start >= 0) starts.push(start);
  for (let i = 0; i < n; i++) if (parents[i]! < 0) starts.push(i);
  for (let i = 0; i < n; i++) starts.push(i); // what a cycle hides
  let nested = false; // the first start is shown at the top level
  for (const s of starts) {
    if (done[s]) continue;
    const stack: _Task[] = nested ? [{ kind: "close" }, s] : [s];
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

/** The children of each entry, in file order (compressed rows). */
function _children(
  parents: Int32Array,
): { first: Int32Array; list: Int32Array } {
  const n = parents.length;
  const first = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    if (parents[i]! >= 0) first[parents[i]! + 1]!++;
  }
  for (let i = 0; i < n; i++) first[i + 1]! += first[i]!;
  const fill = first.slice(0, n);
  const list = new Int32Array(first[n]!);
  for (let i = 0; i < n; i++) {
    const p = parents[i]!;
    if (p >= 0) list[fill[p]!++] = i;
  }
  return { first, list };
}
