import assert from "node:assert/strict";
import { pathTo, resolveLeaf } from "../../src/context/tree.ts";
import type { SessionEntry } from "../../src/format/entries.ts";

const T = "2026-10-01T09:00:00.000Z";

function e(id: string, parentId: string | null, extra = {}): SessionEntry {
  return { type: "reset_boundary", id, parentId, timestamp: T, ...extra };
}

function marker(id: string, to: string): SessionEntry {
  return {
    type: "custom",
    id,
    parentId: to,
    timestamp: T,
    customType: "branch",
    data: { to },
  };
}

function byId(entries: SessionEntry[]): Map<string, SessionEntry> {
  return new Map(entries.map((x) => [x.id, x]));
}

Deno.test("resolveLeaf() is the last entry, unless a branch marker re-points it", async (t) => {
  const a = e("a", null);
  const b = e("b", "a");
  await t.step("no entries: no leaf", () => {
    assert.equal(resolveLeaf([], new Map()), null);
  });
  await t.step("the last entry in the file, not the newest timestamp", () => {
    const entries = [a, b, e("c", "a")];
    assert.equal(resolveLeaf(entries, byId(entries)), "c");
  });
  await t.step("a marker to a known entry moves the leaf there", () => {
    const entries = [a, b, marker("m", "a")];
    assert.equal(resolveLeaf(entries, byId(entries)), "a");
  });
  await t.step(
    "a marker to an unknown entry is itself the leaf (as omp sees it)",
    () => {
      const entries = [a, b, marker("m", "zzz")];
      assert.equal(resolveLeaf(entries, byId(entries)), "m");
    },
  );
  await t.step("a marker earlier in the file does not count", () => {
    const entries = [a, marker("m", "a"), e("c", "a")];
    assert.equal(resolveLeaf(entries, byId(entries)), "c");
  });
});

Deno.test("pathTo() walks from the leaf to the root and says how it ended", async (t) => {
  await t.step("a path to the root", () => {
    const entries = [e("a", null), e("b", "a"), e("x", "a"), e("c", "b")];
    const path = pathTo("c", byId(entries));
    assert.deepEqual(path.entries.map((x) => x.id), ["a", "b", "c"]);
    assert.equal(path.end, "root");
  });
  await t.step("a null leaf gives an empty path", () => {
    assert.deepEqual(pathTo(null, new Map()), { entries: [], end: "root" });
  });
  await t.step("an unknown leaf gives an empty path", () => {
    assert.deepEqual(pathTo("nope", new Map()).entries, []);
  });
  await t.step("a missing parent ends the path there", () => {
    const entries = [e("b", "gone"), e("c", "b")];
    const path = pathTo("c", byId(entries));
    assert.deepEqual(path.entries.map((x) => x.id), ["b", "c"]);
    assert.equal(path.end, "missing-parent");
  });
  await t.step("a cycle stops at the first repeated id", () => {
    const entries = [e("a", "c"), e("b", "a"), e("c", "b")];
    const path = pathTo("c", byId(entries));
    assert.deepEqual(path.entries.map((x) => x.id), ["a", "b", "c"]);
    assert.equal(path.end, "cycle");
  });
  await t.step("an entry that is its own parent", () => {
    const path = pathTo("a", byId([e("a", "a")]));
    assert.deepEqual(path.entries.map((x) => x.id), ["a"]);
    assert.equal(path.end, "cycle");
  });
  await t.step(
    "an empty parentId (the spec's in-memory root) is a root",
    () => {
      const path = pathTo("b", byId([e("a", ""), e("b", "a")]));
      assert.deepEqual(path.entries.map((x) => x.id), ["a", "b"]);
      assert.equal(path.end, "root");
    },
  );
});
