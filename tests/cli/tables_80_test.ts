/**
 * The tables of the commands at 80 columns, on the real fixtures (omp's,
 * pi's, omp-s1's and the malformed usage data dir in one data dir): no
 * line wider than the terminal, no row wrapped, no two different values cut
 * to the same text, and a column left out named under the table.
 */

import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { textWidth } from "../../src/cli/_format.ts";
import { cliInProcess, makeDataDir } from "../_cli.ts";
import { copyDir, USAGE_FIXTURES } from "../usage/_usage_dirs.ts";

const PI = new URL("../../fixtures/pi/", import.meta.url).pathname;

async function fixturesDataDir(): Promise<
  { root: string; file: string } & AsyncDisposable
> {
  const d = await makeDataDir();
  for (const name of ["omp-s1", "malformed"]) {
    await copyDir(
      join(USAGE_FIXTURES, name, "sessions"),
      join(d.root, "sessions"),
    );
  }
  await copyDir(PI, join(d.root, "sessions", "--workspaces-pi-mono--"));
  return {
    root: d.root,
    file: d.session("s1-main.jsonl"),
    [Symbol.asyncDispose]: () => d[Symbol.asyncDispose](),
  };
}

/** A table's header, rows and the lines under it (a note, a blank line, ...). */
function tableOf(
  out: string,
): { header: string; rows: string[]; after: string[] } {
  const lines = out.split("\n");
  const end = lines.findIndex((l, i) =>
    i > 0 && (l === "" || l.startsWith("("))
  );
  const stop = end === -1 ? lines.length : end;
  return {
    header: lines[0]!,
    rows: lines.slice(1, stop),
    after: lines.slice(stop),
  };
}

const headersOf = (header: string): string[] => header.trim().split(/ {2,}/);

/**
 * Runs `args` at 80 columns and in full, and checks the table: the same
 * rows, column `key` of each row never the same text for two different
 * full values, every column left out named in a note.
 */
async function check80(args: string[], key: number): Promise<string> {
  const narrow = await cliInProcess(args, { isTerminal: true, columns: 80 });
  const wide = await cliInProcess(args, { isTerminal: true, columns: 1000 });
  // 1: the malformed data dir holds a file that is no session (stats names it).
  ok(narrow.code <= 1, narrow.stderr);
  for (const line of narrow.stdout.split("\n")) {
    ok(textWidth(line) <= 80, `${args.join(" ")}: ${line}`);
  }
  const a = tableOf(narrow.stdout), b = tableOf(wide.stdout);
  equal(
    a.rows.length,
    b.rows.length,
    `${args.join(" ")}: a row wrapped\n${narrow.stdout}`,
  );
  const full = new Map<string, Set<string>>();
  a.rows.forEach((row, i) => {
    const cut = row.split(/ {2,}/)[key]!.trim();
    const whole = b.rows[i]!.split(/ {2,}/)[key]!.trim();
    if (!full.has(cut)) full.set(cut, new Set());
    full.get(cut)!.add(whole);
  });
  for (const [cut, wholes] of full) {
    equal(
      wholes.size,
      1,
      `${args.join(" ")}: "${cut}" stands for ${[...wholes].join(", ")}`,
    );
  }
  const left = headersOf(b.header).filter((h) =>
    !headersOf(a.header).includes(h)
  );
  const note = a.after.join(" ").match(/\((.*) left out at 80 columns/)?.[1];
  deepStrictEqual(note?.split(", ") ?? [], left, narrow.stdout);
  return narrow.stdout;
}

Deno.test("the tables keep what matters at 80 columns", async (t) => {
  await using d = await fixturesDataDir();
  const data = ["--data-dir", d.root];
  await t.step("usage --by model keeps sonnet and haiku apart", async () => {
    const out = await check80(
      ["usage", ...data, "--by", "model", "--no-index"],
      0,
    );
    ok(/cache write/.test(out) || /cache write.* left out/.test(out), out);
    // One format per column: every cost with as many decimals.
    const costs = tableOf(out).rows.map((r) => r.split(/ +/).at(-1)!);
    equal(
      new Set(costs.map((c) => c.split(".")[1]?.length)).size,
      1,
      costs.join(" "),
    );
  });
  for (const by of ["day", "project", "session"]) {
    await t.step(`usage --by ${by}`, async () => {
      const out = await check80(
        ["usage", ...data, "--by", by, "--no-index"],
        0,
      );
      if (by === "session") {
        ok(headersOf(tableOf(out).header).includes("title"), out);
        ok(out.includes("Refactor"), out); // a title beside its id
      }
    });
  }
  await t.step("list", async () => {
    await check80(["list", ...data, "--no-index"], 2);
  });
  await t.step("stats of a folder: one line a file", async () => {
    const out = await check80(["stats", join(d.root, "sessions")], 0);
    ok(/left out at 80 columns; --json has them/.test(out), out);
  });
  await t.step("stats of a file, tree, search: no line past 80", async () => {
    for (
      const args of [["stats", d.file], ["tree", d.file], [
        "search",
        ...data,
        "the",
      ]]
    ) {
      const r = await cliInProcess(args, { isTerminal: true, columns: 80 });
      equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
      for (const line of r.stdout.split("\n")) {
        // Without the color codes (tree's bold title), which take no cell.
        // A search hit's FILE#ENTRY is left whole, to be copied whole.
        const shown = line.replaceAll(
          new RegExp(`${"\x1b"}\\[[0-9;]*m`, "g"),
          "",
        );
        if (args[0] === "search" && /^ +\S+\.jsonl#\w+$/.test(shown)) continue;
        ok(textWidth(shown) <= 80, `${args.join(" ")}: ${line}`);
      }
    }
  });
});
