import { deepStrictEqual, equal, ok, throws } from "node:assert/strict";
import { join } from "node:path";
import {
  outlineTree,
  type OutlineTreeOptions,
  SessionTree,
  type TreeRow,
} from "../../mod.ts";
import {
  assistant,
  sessionBytes,
  T0,
  tempDir,
  toolResult,
  user,
} from "../_session_files.ts";

/** Rows as text: the prefix, then the id (or what a summary row says). */
function draw(rows: TreeRow[]): string[] {
  return rows.map((r) =>
    r.kind === "entry"
      ? `${r.prefix}${r.node.id}${r.leaf ? " <" : ""}`
      : r.kind === "folded"
      ? `${r.prefix}… ${r.entries}`
      : `${r.prefix}+ ${r.branches}/${r.entries}`
  );
}

async function treeOf(
  entries: Record<string, unknown>[],
): Promise<SessionTree> {
  await using dir = await tempDir();
  const file = join(dir.path, "t.jsonl");
  await Deno.writeFile(file, sessionBytes(entries));
  return await SessionTree.read(file);
}

const at = { timestamp: T0 };
const model = (id: string, parentId: string | null) => ({
  type: "model_change",
  id,
  parentId,
  ...at,
  model: "openai/gpt-5.1",
});

/** root(1) → 2 → {3 → 4 → 5, 6 → 7 (leaf)}: the active branch is the second. */
const BRANCHED = [
  user("1", null, "root"),
  model("2", "1"),
  user("3", "2", "a"),
  user("4", "3", "a2"),
  user("5", "4", "a3"),
  user("6", "2", "b"),
  user("7", "6", "b2"),
];

Deno.test("outlineTree() draws a branch point's branches with connectors, the active one first", async () => {
  const tree = await treeOf(BRANCHED);
  deepStrictEqual(draw(outlineTree(tree, { filter: "all" })), [
    "1",
    "2",
    "├─ 6",
    "│  7 <",
    "└─ 3",
    "   4",
    "   5",
  ]);
});

Deno.test("outlineTree(): a hidden entry's children hang from the nearest shown ancestor", async () => {
  const tree = await treeOf(BRANCHED);
  // default hides the model change, so the root is the branch point.
  deepStrictEqual(draw(outlineTree(tree)), [
    "1",
    "├─ 6",
    "│  7 <",
    "└─ 3",
    "   4",
    "   5",
  ]);
});

Deno.test("outlineTree() folds a long run to its ends, its labelled entries and the leaf", async () => {
  const chain = Array.from(
    { length: 30 },
    (_, i) => user(`${i + 1}`, i === 0 ? null : `${i}`, `m${i}`),
  );
  const label = {
    type: "label",
    id: "99",
    parentId: "30",
    ...at,
    targetId: "12",
    label: "here",
  };
  const marker = {
    type: "custom",
    id: "98",
    parentId: "20",
    ...at,
    customType: "branch",
    data: { to: "20" },
  };
  const tree = await treeOf([...chain, label, marker]);
  const opts: OutlineTreeOptions = { foldAfter: 10 };
  deepStrictEqual(draw(outlineTree(tree, opts)), [
    "1",
    "… 10",
    "12",
    "… 7",
    "20 <",
    "… 9",
    "30",
  ]);
  equal(outlineTree(tree, { foldAfter: 0 }).length, 30);
  equal(outlineTree(tree, { foldAfter: 30 }).length, 30);
});

Deno.test("outlineTree() summarizes the branches deeper than depth", async () => {
  const tree = await treeOf([
    ...BRANCHED,
    user("8", "6", "b'"),
    user("9", "8", "b''"),
  ]);
  deepStrictEqual(draw(outlineTree(tree, { depth: 0 })), ["1", "+ 2/7"]);
  deepStrictEqual(draw(outlineTree(tree, { depth: 1 })), [
    "1",
    "├─ 6",
    "│  + 2/3",
    "└─ 3",
    "   4",
    "   5",
  ]);
});

Deno.test("outlineTree() filters: no-tools, user, labeled; the leaf always shows", async () => {
  const tree = await treeOf([
    user("1", null, "go"),
    assistant("2", "1", [{
      type: "toolCall",
      id: "c",
      name: "read",
      arguments: {},
    }]),
    toolResult("3", "2", "c", [{ type: "text", text: "out" }]),
    assistant("4", "3", "done"),
    {
      type: "label",
      id: "5",
      parentId: "4",
      ...at,
      targetId: "4",
      label: "ok",
    },
    toolResult("6", "5", "c", [{ type: "text", text: "late" }]),
  ]);
  const ids = (o: OutlineTreeOptions) =>
    outlineTree(tree, o).flatMap((r) => r.kind === "entry" ? [r.node.id] : []);
  deepStrictEqual(ids({ filter: "all" }), ["1", "2", "3", "4", "5", "6"]);
  deepStrictEqual(ids({}), ["1", "2", "3", "4", "6"]);
  deepStrictEqual(ids({ filter: "no-tools" }), ["1", "4", "6"]);
  deepStrictEqual(ids({ filter: "user" }), ["1", "6"]);
  deepStrictEqual(ids({ filter: "labeled" }), ["4", "6"]);
});

Deno.test("outlineTree() draws a 100,000-entry chain and several roots without recursion", async () => {
  const chain = Array.from(
    { length: 100_000 },
    (_, i) => user(`${i + 1}`, i === 0 ? null : `${i}`, "x"),
  );
  const tree = await treeOf([...chain, user("orphan", "gone", "o")]);
  deepStrictEqual(draw(outlineTree(tree)), [
    "├─ orphan <",
    "└─ 1",
    "   … 99998",
    "   100000",
  ]);
});

Deno.test("outlineTree() refuses a negative or fractional depth or fold", async () => {
  const tree = await treeOf(BRANCHED);
  throws(() => outlineTree(tree, { depth: -1 }), RangeError);
  throws(() => outlineTree(tree, { foldAfter: 1.5 }), /foldAfter must be/);
  ok(outlineTree(tree, { depth: Infinity }).length > 0);
});
