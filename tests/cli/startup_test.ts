import { deepEqual, equal, ok } from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import { type Command, lazyCommand } from "../../src/cli/_command.ts";

/** The modules `entry` loads before it runs: static imports, not `import()` or types. */
async function staticGraph(entry: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: {
        code?: { specifier: string };
        isDynamic?: boolean;
      }[];
    }[];
  };
  const edges = new Map(
    info.modules.map((m) => [
      m.specifier,
      (m.dependencies ?? []).filter((d) => d.code && !d.isDynamic).map((d) =>
        d.code!.specifier
      ),
    ]),
  );
  const seen = new Set<string>();
  const todo = [...info.roots];
  for (let s = todo.pop(); s !== undefined; s = todo.pop()) {
    if (seen.has(s)) continue;
    seen.add(s);
    todo.push(...edges.get(s) ?? []);
  }
  return seen;
}

const _root = new URL("../../", import.meta.url);
const local = (graph: Set<string>) =>
  [...graph].filter((s) => s.startsWith(_root.href)).map((s) =>
    s.slice(_root.href.length)
  ).sort();

Deno.test("cli.ts loads no command before it runs: eight modules and deno.json besides it", async () => {
  const graph = await staticGraph(fromFileUrl(new URL("cli.ts", _root)));
  deepEqual(local(graph), [
    "cli.ts",
    "deno.json",
    "src/_fs.ts",
    "src/_fs_deno.ts", // the seam's two runtimes, picked at import
    "src/_fs_node.ts",
    "src/cli/_args.ts",
    "src/cli/_command.ts",
    "src/cli/_format.ts",
    "src/cli/_help.ts",
    "src/cli/_io.ts",
  ]);
});

Deno.test("a command loads what it uses, not the whole library", async (t) => {
  // Each of these would load every module of the library (~190) through
  // mod.ts; the numbers are what each needs today, with room to grow.
  const most = new Map([["_fork", 60], ["_gen", 30], ["_list", 135]]);
  for (const [name, limit] of most) {
    await t.step(name, async () => {
      const graph = await staticGraph(
        fromFileUrl(new URL(`src/cli/${name}.ts`, _root)),
      );
      const mine = local(graph);
      ok(!mine.includes("mod.ts"), `${name} loads mod.ts`);
      ok(mine.length <= limit, `${name} loads ${mine.length} modules`);
    });
  }
});

Deno.test("mod.ts does not load the config parser (an npm package) until a config is read", async () => {
  const graph = await staticGraph(fromFileUrl(new URL("mod.ts", _root)));
  ok(![...graph].some((s) => s.includes("jsonc-parser")));
  ok(graph.size > 100); // the graph was read
});

Deno.test("lazyCommand() loads its command when it runs, once per run, and checks its name", async () => {
  let loads = 0;
  const real: Command = {
    name: "hello",
    help: () =>
      Promise.resolve({ name: "hello", summary: "hi", about: "", flags: {} }),
    run: (args) => Promise.resolve(args.length),
  };
  const io = {
    stdout: () => {},
    stderr: () => {},
    isTerminal: false,
    columns: 80,
  };
  const lazy = lazyCommand("hello", () => {
    loads++;
    return Promise.resolve({ command: real });
  });
  equal(lazy.name, "hello");
  equal(loads, 0);
  equal(await lazy.run(["a", "b"], io), 2);
  equal(loads, 1);
  equal((await lazy.help()).summary, "hi");
  equal(loads, 2);
  const wrong = lazyCommand("bye", () => Promise.resolve({ command: real }));
  await wrong.run([], io).then(
    () => ok(false, "a command of another name ran"),
    (err: Error) => ok(err.message.includes('"bye" loaded "hello"')),
  );
});
