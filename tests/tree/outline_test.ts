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

Deno.test("outlineTree() draws the branch that goes on in its column, the others hanging off it first", async () => {
  const tree = await treeOf(BRANCHED);
  deepStrictEqual(draw(outlineTree(tree, { filter: "all" })), [
    "1",
    "2",
    "├─ 3",
    "│  4",
    "│  5",
    "6",
    "7 <",
  ]);
});

Deno.test("outlineTree(): off the active path, the largest branch goes on (the later on a tie)", async () => {
  // 2 → {3, 5 → 6, 7}: the active path ends at 8, under 1.
  const tree = await treeOf([
    user("1", null, "root"),
    user("2", "1", "off"),
    user("3", "2", "small"),
    user("5", "2", "large"),
    user("6", "5", "large2"),
    user("7", "2", "small, later"),
    user("8", "1", "on"),
  ]);
  deepStrictEqual(draw(outlineTree(tree)), [
    "1",
    "├─ 2",
    "│  ├─ 3",
    "│  ├─ 7",
    "│  5",
    "│  6",
    "8 <",
  ]);
});

Deno.test("outlineTree(): a hidden entry's children hang from the nearest shown ancestor", async () => {
  const tree = await treeOf(BRANCHED);
  // default hides the model change, so the root is the branch point.
  deepStrictEqual(draw(outlineTree(tree)), [
    "1",
    "├─ 3",
    "│  4",
    "│  5",
    "6",
    "7 <",
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

Deno.test("outlineTree() summarizes the side branches deeper than depth", async () => {
  const tree = await treeOf([
    ...BRANCHED,
    user("10", "3", "a'"),
    user("8", "6", "b'"),
    user("9", "8", "b''"),
  ]);
  // The active path (1 6 8 9) is always drawn; what hangs off it is summarized.
  deepStrictEqual(draw(outlineTree(tree, { depth: 0 })), [
    "1",
    "├─ + 1/4",
    "6",
    "├─ + 1/1",
    "8",
    "9 <",
  ]);
  deepStrictEqual(draw(outlineTree(tree, { depth: 1 })), [
    "1",
    "├─ 3",
    "│  ├─ + 1/1",
    "│  4",
    "│  5",
    "6",
    "├─ 7",
    "8",
    "9 <",
  ]);
});

Deno.test("outlineTree() nests side branches a logarithm of the tree deep, capped at 12 levels with a … for the rest", async () => {
  // A complete binary tree, 15 branch points deep: the worst case, since the
  // larger branch always goes on in its column (here, on a tie, the later).
  const levels = 15;
  const entries = [user("1", null, "x")];
  for (let id = 2; id < 2 ** levels; id++) {
    entries.push(user(`${id}`, `${id >> 1}`, "x"));
  }
  const tree = await treeOf(entries);
  const rows = draw(outlineTree(tree, { foldAfter: 0 }));
  equal(rows.length, 2 ** levels - 1);
  const indent = (r: string) => r.search(/[^ │├─…]/);
  equal(Math.max(...rows.map(indent)), 3 * 12);
  const capped = rows.filter((r) => r.startsWith("…"));
  ok(capped.length > 0);
  ok(capped.every((r) => indent(r) === 36), capped[0]);
  // The active path, the last leaf's, reads down the first column.
  deepStrictEqual(
    rows.filter((r) => indent(r) === 0),
    Array.from({ length: levels }, (_, i) => `${2 ** (i + 1) - 1}`)
      .map((id, i) => i === levels - 1 ? `${id} <` : id),
  );
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

/**
 * A session where every turn was retried once: each user message has an
 * abandoned sibling (the first try, with its answer); the retry goes on.
 */
function retriedEveryTurn(turns: number): Record<string, unknown>[] {
  const entries: Record<string, unknown>[] = [user("r", null, "start")];
  let parent = "r";
  for (let k = 0; k < turns; k++) {
    const tried = `t${k}`;
    entries.push(user(tried, parent, `first try of turn ${k}`));
    entries.push(assistant(`${tried}a`, tried, "an answer left behind"));
    entries.push(user(`u${k}`, parent, `turn ${k}`));
    entries.push(assistant(`a${k}`, `u${k}`, `answer ${k}`));
    parent = `a${k}`;
  }
  return entries;
}

/** The outline's rows as the CLI prints them (prefix and preview), and their size. */
function printed(rows: TreeRow[]): { bytes: number; widest: number } {
  let bytes = 0;
  let widest = 0;
  for (const r of rows) {
    const text = r.kind === "entry" ? r.node.preview : "…";
    const line = `  ${r.prefix}${text}\n`;
    bytes += line.length;
    widest = Math.max(widest, r.prefix.length);
  }
  return { bytes, widest };
}

Deno.test("outlineTree() keeps the outline proportional to a session where every turn was retried", async (t) => {
  await t.step(
    "8,000 turns: under 4 bytes of outline a byte of file, a bounded indent",
    async () => {
      await using dir = await tempDir();
      const file = join(dir.path, "retried.jsonl");
      const bytes = sessionBytes(retriedEveryTurn(8_000));
      await Deno.writeFile(file, bytes);
      const tree = await SessionTree.read(file);
      const rows = outlineTree(tree);
      const { bytes: size, widest } = printed(rows);
      ok(
        size < 4 * bytes.length,
        `${size} bytes of outline, ${bytes.length} of file`,
      );
      ok(widest <= 36, `a prefix ${widest} characters wide`);
      // The active path reads straight down; each first try hangs off it.
      const leaf = rows.find((r) => r.kind === "entry" && r.leaf);
      equal(leaf?.prefix, "");
    },
  );
  await t.step("50,000 turns: no throw", async () => {
    await using dir = await tempDir();
    const file = join(dir.path, "retried.jsonl");
    await Deno.writeFile(file, sessionBytes(retriedEveryTurn(50_000)));
    const tree = await SessionTree.read(file);
    const rows = outlineTree(tree);
    ok(printed(rows).widest <= 36);
  });
});
