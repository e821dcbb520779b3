import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { SessionTree } from "../../mod.ts";
import {
  cli,
  cliInProcess,
  CONTROL,
  makeDataDir,
  writeHostileSession,
} from "../_cli.ts";
import { assistant, sessionBytes, tempDir, user } from "../_session_files.ts";

const FIXTURES = new URL("../../fixtures/omp/", import.meta.url);
const MAIN = new URL("s1-main.jsonl", FIXTURES).pathname;

Deno.test("cli tree draws the outline: branches, the active path, the leaf, folded runs", async () => {
  const r = await cli(["tree", MAIN]);
  equal(r.code, 0, r.stderr);
  const drawn = r.stdout.trimEnd().split("\n");
  // Each entry's id in a column after the path marker (what --at takes).
  ok(drawn.includes("• 6f909b97 · compaction (86k tokens before)"));
  const lines = drawn.map((l, i) =>
    i === 0 ? l : l.replace(/^(• | {2})(?:[0-9a-f]{8}| {8}) /, "$1")
  );
  ok(lines[0]!.startsWith("# Refactor 🛠️"));
  ok(lines[0]!.endsWith("· 60 entries · leaf 5ce1f5f1"));
  ok(
    lines.includes(
      "• [start ✨ 1] user: Explain what src/session/store.ts does and list its exports.",
    ),
  );
  ok(lines.includes("  … 31 entries …"));
  // The active path reads down the first column; the branch left behind
  // hangs off it, before the branch that goes on.
  const side = lines.indexOf(
    "  ├─ user: Explain what src/session/store.ts does and list its exports.",
  );
  ok(side > 0);
  ok(lines[side + 4]!.startsWith("  │  tool grep: src/main.ts:12:"));
  ok(lines[side + 6]!.startsWith("• · branch summary: Abandoned approach"));
  equal(
    lines.at(-1),
    "• assistant: No flaky tests in this run: 42 passed, 0 failed. 🎉 ← leaf",
  );
  ok(!r.stdout.includes("\x1b["), "no colour when piped");
});

Deno.test("cli tree --json lists the entries the filter shows, with the fields of the issue", async () => {
  const r = await cliInProcess(["tree", MAIN, "--json", "--filter", "user"]);
  equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  equal(out.leafId, "5ce1f5f1");
  equal(out.filter, "user");
  const tree = await SessionTree.read(MAIN);
  const users = [...tree.nodes()].filter((n) => n.role === "user");
  // The leaf (an assistant turn) always shows.
  equal(out.nodes.length, users.length + 1);
  deepStrictEqual(Object.keys(out.nodes[0]), [
    "id",
    "parentId",
    "type",
    "role",
    "preview",
    "label",
    "onActivePath",
    "children",
  ]);
  deepStrictEqual(out.nodes[0], {
    id: "db5b0f6d",
    parentId: "4484cbf7",
    type: "message",
    role: "user",
    preview: "Explain what src/session/store.ts does and list its exports.",
    label: "start ✨ 1",
    onActivePath: true,
    children: 1,
  });
});

Deno.test("cli tree colours a terminal only, and every preview is sanitized", async () => {
  await using d = await makeDataDir();
  const file = join(d.root, "hostile.jsonl");
  await writeHostileSession(file);
  const piped = await cliInProcess(["tree", file, "--filter", "all"]);
  equal(piped.code, 0, piped.stderr);
  ok(!CONTROL.test(piped.stdout), JSON.stringify(piped.stdout));
  const json = await cliInProcess(["tree", file, "--json"], {
    isTerminal: true,
  });
  ok(!json.stdout.includes("\x1b["));
  const tty = await cliInProcess(["tree", MAIN, "--fold", "0"], {
    isTerminal: true,
    columns: 60,
  });
  const noColor = (Deno.env.get("NO_COLOR") ?? "") !== "";
  ok(noColor || tty.stdout.includes("\x1b[32m•"));
  // Without escapes, no line is wider than the terminal.
  // deno-lint-ignore no-control-regex
  const plain = tty.stdout.replace(/\x1b\[\d+m/g, "");
  const wide = plain.split("\n").filter((l) => [...l].length > 62);
  deepStrictEqual(wide.filter((l) => !l.startsWith("#")), []);
});

Deno.test("cli tree --lineage shows the fork chain and the forks in the data dir", async () => {
  await using d = await makeDataDir();
  const r = await cliInProcess([
    "tree",
    d.session("s1-fork.jsonl"),
    "--lineage",
  ]);
  equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  equal(lines[0], "lineage");
  ok(lines[1]!.startsWith("  01a0e775-0100-7eee-9510-1c122060007d Refactor"));
  ok(lines[2]!.startsWith("    01a0e77b-1454-7ed5-8e4f-61229caab397"));
  ok(lines[2]!.endsWith("← this"));
  const main = await cliInProcess([
    "tree",
    d.session("s1-main.jsonl"),
    "--lineage",
    "--json",
  ]);
  equal(JSON.parse(main.stdout).lineage.forks.length, 3);
});

Deno.test("cli tree: bad options are usage errors (2); a missing file fails (1)", async () => {
  const bad = await cliInProcess(["tree", MAIN, "--filter", "tools"]);
  equal(bad.code, 2);
  ok(
    bad.stderr.startsWith(
      'error: tree: --filter must be one of default, no-tools, user, labeled, all, not "tools"',
    ),
  );
  equal((await cliInProcess(["tree", MAIN, "--depth", "-1"])).code, 2);
  const missing = await cli(["tree", "/nowhere/x.jsonl"]);
  equal(missing.code, 1);
  equal(
    missing.stderr,
    'error: Cannot read the tree of "/nowhere/x.jsonl": no such file or directory\n',
  );
});

Deno.test("cli tree: the outline of a session where every turn was retried is proportional to its file", async (t) => {
  await using dir = await tempDir();
  for (const turns of [8_000, 50_000]) {
    await t.step(`${turns} turns`, async () => {
      const file = join(dir.path, `retried-${turns}.jsonl`);
      const entries: Record<string, unknown>[] = [user("r", null, "start")];
      let parent = "r";
      for (let k = 0; k < turns; k++) {
        entries.push(user(`t${k}`, parent, `first try of turn ${k}`));
        entries.push(user(`u${k}`, parent, `turn ${k}`));
        entries.push(assistant(`a${k}`, `u${k}`, `answer ${k}`));
        parent = `a${k}`;
      }
      const bytes = sessionBytes(entries);
      await Deno.writeFile(file, bytes);
      // Before: line k indented ~3k characters; at 50,000 turns the
      // outline no longer fit in a string ("Invalid string length").
      const r = await cliInProcess(["tree", file]);
      equal(r.code, 0, r.stderr);
      ok(r.stdout.length < 4 * bytes.length, `${r.stdout.length} characters`);
      const widest = r.stdout.split("\n").reduce(
        (w, l) => Math.max(w, l.length),
        0,
      );
      ok(widest < 80, `a line ${widest} characters wide`);
    });
  }
});
