import { deepEqual } from "node:assert/strict";
import { treeOrder } from "../../src/export/_tree.ts";

function walk(parents: number[], path: number[], start: number): string {
  const onPath = new Uint8Array(parents.length);
  for (const i of path) onPath[i] = 1;
  return [...treeOrder(Int32Array.from(parents), onPath, start)].map((s) =>
    s.kind === "close" ? ")" : s.kind === "open" ? `(${s.index}` : `${s.index}`
  ).join(" ");
}

Deno.test("treeOrder() follows the active path and nests the other children under their branch point", () => {
  // 0 → 1 → 2 (abandoned), 0 → 3 (active, the leaf)
  deepEqual(walk([-1, 0, 1, 0], [0, 3], 0), "0 (1 1 2 ) 3");
  // 0 → 1 → 2 (old), 1 → 3 → 4 (active), 1 → 5 (another old one)
  deepEqual(
    walk([-1, 0, 1, 1, 3, 1], [0, 1, 3, 4], 0),
    "0 1 (2 2 ) (5 5 ) 3 4",
  );
});

Deno.test("treeOrder() nests what hangs below the leaf, and goes on off the path by the first child", () => {
  // 0 → 1 (leaf) → 2 → 3, 2 → 4
  deepEqual(walk([-1, 0, 1, 2, 2], [0, 1], 0), "0 1 (2 2 (4 4 ) 3 )");
});

Deno.test("treeOrder() shows other roots and what a cycle hides, each in a branch, every entry once", () => {
  // 0 → 1 (active); 2 a root of its own; 3 ↔ 4 a cycle
  deepEqual(walk([-1, 0, -1, 4, 3], [0, 1], 0), "0 1 (2 2 ) (3 3 4 )");
  deepEqual(walk([], [], -1), "");
  deepEqual(walk([-1, 0], [], -1), "0 1");
});

Deno.test("treeOrder() walks a chain of a million entries without recursion", () => {
  const n = 1_000_000;
  const parents = new Int32Array(n).map((_, i) => i - 1);
  const onPath = new Uint8Array(n).fill(1);
  let count = 0;
  for (const s of treeOrder(parents, onPath, 0)) {
    if (s.kind === "entry") count++;
  }
  deepEqual(count, n);
});
