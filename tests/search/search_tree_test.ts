import { equal } from "node:assert/strict";
import { EntryTree } from "../../src/search/_tree.ts";

const ids = (tree: EntryTree, leaf: string | null, all: string[]) =>
  all.filter((id) => tree.path(leaf).has(id)).join(" ");

Deno.test("EntryTree.path() walks from the leaf to the root, as the reader does", async (t) => {
  const all = ["0000000a", "0000000b", "0000000c", "0000000d", "x-1", "y-2"];
  await t.step("a branch: only the leaf's ancestors", () => {
    const tree = new EntryTree();
    tree.add("0000000a", null);
    tree.add("0000000b", "0000000a");
    tree.add("0000000c", "0000000a");
    equal(ids(tree, "0000000c", all), "0000000a 0000000c");
  });
  await t.step(
    "ids that are not 8 hex digits, mixed with those that are",
    () => {
      const tree = new EntryTree();
      tree.add("x-1", null);
      tree.add("0000000a", "x-1");
      tree.add("y-2", "0000000a");
      tree.add("0000000b", "y-2");
      equal(ids(tree, "0000000b", all), "0000000a 0000000b x-1 y-2");
    },
  );
  await t.step("a missing parent or a cycle ends the path", () => {
    const tree = new EntryTree();
    tree.add("0000000a", "deadbeef");
    tree.add("0000000b", "0000000a");
    equal(ids(tree, "0000000b", all), "0000000a 0000000b");
    tree.add("0000000c", "0000000d");
    tree.add("0000000d", "0000000c");
    equal(ids(tree, "0000000d", all), "0000000c 0000000d");
  });
  await t.step(
    "a later entry with the same id wins; an unknown leaf has no path",
    () => {
      const tree = new EntryTree();
      tree.add("0000000a", null);
      tree.add("0000000b", null);
      tree.add("0000000c", "0000000a");
      tree.add("0000000c", "0000000b");
      equal(ids(tree, "0000000c", all), "0000000b 0000000c");
      equal(ids(tree, "0000000d", all), "");
      equal(ids(tree, null, all), "");
    },
  );
  await t.step("many entries (the table grows)", () => {
    const tree = new EntryTree();
    for (let i = 1; i <= 5000; i++) {
      tree.add(
        i.toString(16).padStart(8, "0"),
        i === 1 ? null : (i - 1).toString(16).padStart(8, "0"),
      );
    }
    const path = tree.path((5000).toString(16).padStart(8, "0"));
    equal(path.has("00000001"), true);
    equal(path.has((5001).toString(16).padStart(8, "0")), false);
  });
  await t.step("the lowest and highest hex ids; a tree sized up front", () => {
    for (const tree of [new EntryTree(), new EntryTree(1e9)]) {
      tree.add("00000000", null);
      tree.add("ffffffff", "00000000");
      tree.add("fffffffe", "ffffffff");
      equal(
        ids(tree, "fffffffe", ["00000000", "ffffffff", "fffffffe", "x"]),
        "00000000 ffffffff fffffffe",
      );
    }
  });
});
