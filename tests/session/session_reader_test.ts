import assert from "node:assert/strict";
import { Session } from "../../src/session/session.ts";
import type { SessionTreeNode } from "../../src/session/session_reader.ts";
import { SessionTree } from "../../src/tree/session_tree.ts";
import { sessionBytes, T0, tempDir, user } from "../_session_files.ts";

const ROOT = new URL("../../fixtures/", import.meta.url).pathname;
const FIXTURES = [
  "omp/s1-main.jsonl",
  "omp/s1-branched.jsonl",
  "omp/s2-branched.jsonl",
  "omp/s1-fork.jsonl",
  "omp/s1-reset.jsonl",
  "omp/s1-empty.jsonl",
  "pi/large-session-v1.jsonl",
  "xdev/omp-sample.jsonl",
  "xdev/xdev-summaries.jsonl",
];

/** Every node of a tree, depth first, with its parent's id. */
function flatten(roots: SessionTreeNode[]): [string, string | null][] {
  const out: [string, string | null][] = [];
  const stack: [SessionTreeNode, string | null][] = roots.map((r) => [r, null]);
  stack.reverse();
  while (stack.length > 0) {
    const [node, parent] = stack.pop()!;
    out.push([node.entry.id, parent]);
    for (let i = node.children.length - 1; i >= 0; i--) {
      stack.push([node.children[i]!, node.entry.id]);
    }
  }
  return out;
}

Deno.test("Session.getTree() holds every entry once, under the parent SessionTree reads, on every fixture", async (t) => {
  for (const name of FIXTURES) {
    await t.step(name, async () => {
      await using s = await Session.open(ROOT + name, { window: false });
      const tree = await SessionTree.read(ROOT + name);
      const flat = flatten(s.getTree());
      assert.equal(flat.length, s.entries.length);
      assert.equal(new Set(flat.map(([id]) => id)).size, flat.length);
      const want = new Map(
        [...tree.nodes()].map((n) => [
          n.id,
          tree.parent(n.index) < 0 ? null : tree.node(tree.parent(n.index)).id,
        ]),
      );
      for (const [id, parent] of flat) assert.equal(parent, want.get(id), id);
      // Labels as the tree reads them.
      for (const n of tree.nodes()) {
        assert.equal(s.getLabel(n.id), n.label ?? undefined, n.id);
      }
    });
  }
});

Deno.test("Session.getBranch() is the active path, and the path to any entry", async (t) => {
  for (const name of FIXTURES) {
    await t.step(name, async () => {
      await using s = await Session.open(ROOT + name, { window: false });
      const branch = s.getBranch();
      const ctx = s.buildContext();
      if (s.leafId === null) return assert.deepEqual(branch, []);
      assert.equal(branch.at(-1)!.id, s.leafId);
      assert.deepEqual(
        ctx.activePath.map((p) => p.id),
        branch.map((e) => e.id),
      );
      const mid = branch[Math.floor(branch.length / 2)]!;
      const to = s.getBranch(mid.id);
      assert.deepEqual(
        to.map((e) => e.id),
        branch.slice(0, to.length).map((e) => e.id),
      );
      assert.deepEqual(s.getBranch("ffffffff"), []);
    });
  }
});

Deno.test("Session.getChildren() gives the children in file order; a branch point has several", async () => {
  await using s = await Session.open(ROOT + "omp/s1-main.jsonl", {
    window: false,
  });
  const forks = s.entries.filter((e) => s.getChildren(e.id).length > 1);
  assert.ok(forks.length > 0);
  for (const e of s.entries) {
    const kids = s.getChildren(e.id);
    const want = s.entries.filter((c) => c.parentId === e.id);
    assert.deepEqual(kids, want);
  }
  assert.deepEqual(s.getChildren("ffffffff"), []);
});

Deno.test("Session.getTree(): an orphan is a root; a self-parent is a root; appended entries join", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeFile(
    path,
    sessionBytes([
      user("0000000a", null, "one"),
      user("0000000b", "0000000a", "two"),
      user("0000000c", "deadbeef", "orphan"),
      user("0000000d", "0000000d", "self"),
      {
        type: "label",
        id: "0000000e",
        parentId: "0000000d",
        timestamp: T0,
        targetId: "0000000a",
        label: "start",
      },
    ]),
  );
  await using s = await Session.open(path, { window: false });
  const roots = s.getTree();
  assert.deepEqual(roots.map((r) => r.entry.id), [
    "0000000a",
    "0000000c",
    "0000000d",
  ]);
  assert.equal(roots[0]!.label, "start");
  assert.equal("label" in roots[1]!, false);
  await s.branch("0000000b");
  const added = await s.appendMessage({ role: "user", content: "three" });
  assert.deepEqual(s.getChildren("0000000b").map((e) => e.id).at(-1), added.id);
  assert.deepEqual(s.getBranch().map((e) => e.id), [
    "0000000a",
    "0000000b",
    added.id,
  ]);
  await s.appendLabel("0000000b", "later");
  assert.equal(s.getLabel("0000000b"), "later");
  assert.equal(s.getLabel("0000000a"), "start");
});

Deno.test("Session.getTree() is flat-safe: a 50,000-deep chain builds without recursion", async () => {
  const n = 50_000;
  const hex = (i: number) => i.toString(16).padStart(8, "0");
  const entries = Array.from(
    { length: n },
    (_, i) => user(hex(i + 1), i === 0 ? null : hex(i), "x"),
  );
  const s = await Session.fromStream(
    ReadableStream.from([sessionBytes(entries)]),
  );
  const roots = s.getTree();
  assert.equal(roots.length, 1);
  let depth = 0;
  for (
    let node: SessionTreeNode | undefined = roots[0];
    node;
    node = node.children[0]
  ) depth++;
  assert.equal(depth, n);
  assert.equal(s.getBranch().length, n);
});
