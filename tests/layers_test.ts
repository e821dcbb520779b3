import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";

/**
 * The layers of src/, lowest first: a file imports only from its own layer
 * and the layers below it. The read side (`read/`) and the write side
 * (`write/`) share the layers below them and never import each other; the
 * index sits above usage and search (and the session it opens), never the
 * reverse.
 */
const LAYERS = [
  // The filesystem seam, the one place that knows the runtime: its types,
  // Node's and Bun's implementation, Deno's, then the seam that picks one.
  ["_fs_types.ts"],
  ["_fs_node.ts"],
  ["_fs_deno.ts"],
  ["_fs.ts"],
  ["format"],
  ["context"],
  ["read", "write"],
  ["store"],
  ["watch"], // following a file as it grows
  ["tree"], // the entry tree from the lines' first bytes, lineage
  ["usage", "search"],
  ["session"],
  ["index"],
  ["export"],
  ["mod.ts"], // the public surface: the CLI uses the library through it
  ["gen"],
  ["cli"],
];

const SRC = new URL("../src/", import.meta.url).pathname;

function rank(folder: string): number {
  const i = LAYERS.findIndex((layer) => layer.includes(folder));
  if (i < 0) throw new Error(`src/${folder}/ is in no layer: add it to LAYERS`);
  return i;
}

/** Every .ts file under src/, relative to src/. */
async function sourceFiles(dir = SRC): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) out.push(...await sourceFiles(path));
    else if (e.name.endsWith(".ts")) out.push(relative(SRC, path));
  }
  return out.sort();
}

/** The src/ files a file imports (code, not doc examples). */
async function importsOf(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(SRC, file));
  const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "");
  const out: string[] = [];
  for (const m of code.matchAll(/(?:from|import)\s+"(\.{1,2}\/[^"]+)"/g)) {
    out.push(relative(SRC, join(SRC, dirname(file), m[1]!)));
  }
  return out;
}

Deno.test("src/ is in layers: each file imports only from its layer or those below", async () => {
  const wrong: string[] = [];
  for (const file of await sourceFiles()) {
    const from = file.split("/")[0]!;
    for (const target of await importsOf(file)) {
      const to = target === "../mod.ts" ? "mod.ts" : target.split("/")[0]!;
      if (to === from) continue;
      if (rank(to) >= rank(from)) wrong.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test("src/ has no import cycle", async () => {
  const graph = new Map<string, string[]>();
  for (const file of await sourceFiles()) {
    graph.set(file, await importsOf(file));
  }
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (file: string, trail: string[]): void => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      cycles.push([...trail.slice(trail.indexOf(file)), file].join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});
