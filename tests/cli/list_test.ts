import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { textWidth } from "../../src/cli/_format.ts";
import {
  cli,
  cliCases,
  cliInProcess,
  CONTROL,
  FIXTURE_SESSIONS,
  HOSTILE,
  makeDataDir,
  writeHostileSession,
} from "../_cli.ts";

Deno.test("cli list prints the sessions newest first as a table", async () => {
  await using d = await makeDataDir();
  // Make s1-edge the newest.
  await Deno.utime(d.session("s1-edge.jsonl"), new Date(), new Date(2030, 0));
  const r = await cli(["list", "--data-dir", d.root]);
  equal(r.code, 0, r.stderr);
  equal(r.stderr, "");
  const lines = r.stdout.trimEnd().split("\n");
  ok(/^modified +id +title +cwd +size$/.test(lines[0]!), lines[0]);
  equal(lines.length, 1 + FIXTURE_SESSIONS);
  ok(lines[1]!.startsWith("2030-01-01 00:00  01a0e77f-"), lines[1]);
  ok(lines[1]!.includes("edge case with control chars 1 ✓"));
  ok(lines[1]!.includes("/tmp/omp-oracle/s1-medium/home/src/lumen-api"));
  // Not a terminal: full titles, never cut.
  ok(r.stdout.includes("beyond the slot width limit"));
  ok(!r.stdout.includes("…"));
});

Deno.test("cli list shows ids by the shortest prefix (8 at least) that tells them apart", async () => {
  await using d = await makeDataDir();
  const ids: string[] = JSON.parse(
    (await cli(["list", "--data-dir", d.root, "--json"])).stdout,
  ).map((s: { id: string }) => s.id);
  // Every pair compared: one more than the longest prefix two ids share.
  let want = 8;
  for (const a of ids) {
    for (const b of ids) {
      if (a === b) continue;
      let k = 0;
      while (a[k] === b[k]) k++;
      want = Math.max(want, k + 1);
    }
  }
  ok(want > 8, "the fixtures' ids share more than 8 characters");
  const r = await cli(["list", "--data-dir", d.root]);
  const cells = r.stdout.trimEnd().split("\n").slice(1).map((l) =>
    l.split(/ {2,}/)[1]!
  );
  equal(cells.length, ids.length);
  for (const cell of cells) {
    equal(cell.length, want, cell);
    ok(ids.some((id) => id.startsWith(cell)), cell);
  }
});

Deno.test("cli list --json prints an array; --all adds subagents", async (t) => {
  await using d = await makeDataDir();
  // A subagent's session lives in its parent's artifacts folder.
  await Deno.mkdir(join(d.sessions, "s1-main"));
  await Deno.copyFile(
    d.session("s1-subagent.jsonl"),
    join(d.sessions, "s1-main", "0-helper.jsonl"),
  );
  await t.step("default: no subagents", async () => {
    const r = await cli(["list", "--data-dir", d.root, "--json"]);
    equal(r.code, 0, r.stderr);
    const list = JSON.parse(r.stdout);
    equal(list.length, FIXTURE_SESSIONS);
    const main = list.find((s: { path: string }) =>
      s.path.endsWith("/s1-main.jsonl")
    );
    equal(main.id, "01a0e775-0100-7eee-9510-1c122060007d");
    equal(main.titleSource, "manual");
    equal(main.size, (await Deno.stat(d.session("s1-main.jsonl"))).size);
    equal(typeof main.modified, "string");
    equal(main.parentSession, null);
  });
  await t.step("--all", async () => {
    const r = await cli(["list", "--data-dir", d.root, "--json", "--all"]);
    equal(JSON.parse(r.stdout).length, FIXTURE_SESSIONS + 1);
  });
});

Deno.test("cli list reads XDEV_DATA_DIR; --cwd keeps one folder", async (t) => {
  await using d = await makeDataDir();
  const home = join(d.root, "home");
  await Deno.mkdir(join(home, "src", "lumen-api"), { recursive: true });
  const env = { XDEV_DATA_DIR: d.root, HOME: home };
  await t.step("the data dir from the environment", async () => {
    const r = await cli(["list", "--json"], env);
    equal(r.code, 0, r.stderr);
    equal(JSON.parse(r.stdout).length, FIXTURE_SESSIONS);
  });
  await t.step("--cwd of the fixtures' folder", async () => {
    const cwd = join(home, "src", "lumen-api");
    const r = await cli(["list", "--json", "--cwd", cwd], env);
    equal(JSON.parse(r.stdout).length, FIXTURE_SESSIONS);
  });
  await t.step("--cwd of another folder", async () => {
    const r = await cli(["list", "--cwd", join(home, "elsewhere")], env);
    equal(r.code, 0, r.stderr);
    ok(r.stdout.startsWith("No sessions in "));
  });
});

Deno.test("cli list fits the table to the terminal's width", async () => {
  await using d = await makeDataDir();
  for (const columns of [120, 80, 60, 52]) {
    const r = await cliInProcess(["list", "--data-dir", d.root], { columns });
    equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    equal(lines.length, 1 + FIXTURE_SESSIONS);
    for (const line of lines) ok(textWidth(line) <= columns, `${columns}`);
    // The title gives way, cut with an ellipsis; the size stays whole.
    ok(lines.some((l) => l.includes("…")), `${columns}`);
    ok(/ size$/.test(lines[0]!), `${columns}: ${lines[0]}`);
  }
  // Too narrow for the columns: lines are cut, never wrapped.
  const r = await cliInProcess(["list", "--data-dir", d.root], { columns: 30 });
  for (const line of r.stdout.trimEnd().split("\n")) ok(textWidth(line) <= 30);
});

Deno.test("cli list: bad usage is exit code 2", async () => {
  const cases = [["list", "extra"], ["list", "--nope"], ["list", "--cwd"]];
  for (const [i, r] of (await cliCases(cases)).entries()) {
    equal(r.code, 2, cases[i]!.join(" "));
    ok(r.stderr.startsWith("error: "));
  }
});

Deno.test("cli list prints no terminal escape from a title, a cwd or a file name", async () => {
  await using d = await makeDataDir();
  await writeHostileSession(join(d.sessions, "hostile.jsonl"));
  await Deno.writeTextFile(join(d.sessions, `n${HOSTILE}.jsonl`), "no\n");
  const r = await cliInProcess(["list", "--data-dir", d.root]);
  equal(r.code, 0, r.stderr);
  ok(!CONTROL.test(r.stdout), JSON.stringify(r.stdout));
  ok(r.stdout.includes("T  ]52;c;aGFjaw==  [2J  31m"));
  ok(r.stderr.startsWith("skipped "), r.stderr);
  ok(!CONTROL.test(r.stderr), JSON.stringify(r.stderr));
});
