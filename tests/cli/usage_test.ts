import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { textWidth } from "../../src/cli/_format.ts";
import { cli, cliInProcess } from "../_cli.ts";
import { fixtureCopy, writeImageSession } from "../usage/_usage_dirs.ts";

const FIELDS = [
  "requests",
  "failedRequests",
  "abortedRequests",
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "cost",
];

Deno.test("cli usage prints a table of days with a totals row", async () => {
  await using d = await fixtureCopy("forks");
  const r = await cli(["usage", "--data-dir", d.dir, "--utc"]);
  equal(r.code, 0, r.stderr);
  equal(r.stderr, "");
  const lines = r.stdout.trimEnd().split("\n");
  ok(
    /^day +requests +failed +aborted +input +output +cache read +cache write +cost$/
      .test(lines[0]!),
    lines[0],
  );
  ok(
    /^2026-03-01 +5 +1 +0 +4,300 +412 +1,075 +430 +\$0\.0191$/.test(lines[1]!),
    lines[1],
  );
  ok(
    /^total +8 +1 +1 +7,300 +712 +1,825 +730 +\$0\.0326$/.test(lines[5]!),
    lines[5],
  );
  equal(lines.at(-1), "Days in UTC.");
});

Deno.test("cli usage --json prints the totals and the rows", async () => {
  await using d = await fixtureCopy("omp-s1");
  const r = await cliInProcess([
    "usage",
    "--data-dir",
    d.dir,
    "--by",
    "model",
    "--json",
  ]);
  equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  deepStrictEqual(Object.keys(out.totals), FIELDS);
  deepStrictEqual(Object.keys(out.rows[0]), [
    "key",
    ...FIELDS,
    "agent",
    "dataDir",
  ]);
  equal(out.totals.requests, 36);
  equal(out.rows[0].key, "anthropic/claude-sonnet-4-5");
  equal(out.source, "files");
});

Deno.test("cli usage --csv prints the rows under a header line, cells made safe", async () => {
  await using d = await fixtureCopy("forks");
  // A cwd that a spreadsheet would run as a formula, with a comma.
  const other = join(d.dir, "sessions/--home-dev-other--");
  for await (const e of Deno.readDir(other)) {
    const path = join(other, e.name);
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(
      path,
      text.replace('"cwd":"/home/dev/other"', '"cwd":"=cmd|x,y"'),
    );
  }
  const r = await cliInProcess([
    "usage",
    "--data-dir",
    d.dir,
    "--by",
    "project",
    "--csv",
  ]);
  equal(r.code, 0, r.stderr);
  deepStrictEqual(r.stdout.split("\n"), [
    `key,${FIELDS.join(",")}`,
    "/home/dev/app,6,1,1,5300,512,1325,530,0.023580000000000004",
    `"'=cmd|x,y",2,0,0,2000,200,500,200,0.009000000000000001`,
    "",
  ]);
});

Deno.test("cli usage fits the terminal and notes what it counted as 0", async () => {
  await using d = await fixtureCopy("malformed");
  const r = await cliInProcess(
    ["usage", "--data-dir", d.dir, "--by", "model"],
    {
      isTerminal: true,
      columns: 60,
    },
  );
  equal(r.code, 0, r.stderr);
  ok(r.stderr.includes('notes.jsonl": '), r.stderr); // not a session: skipped
  const [table, notes] = r.stdout.split("\n\n");
  ok(table!.split("\n").every((l) => textWidth(l) <= 60), table);
  // The unterminated last line counts; the columns left out are named under the totals.
  const lines = table!.split("\n");
  const total = lines.findIndex((l) => l.startsWith("total "));
  ok(/^total +12 /.test(lines[total]!), table);
  equal(
    lines.slice(total + 1).join(" "),
    "(aborted, cache read, cache write left out at 60 columns; --json has them)",
  );
  // The notes wrap between words at the terminal's width.
  ok(notes!.split("\n").every((l) => textWidth(l) <= 60), notes);
  equal(
    notes!.trim().replaceAll("\n", " "),
    "7 requests have a malformed token count or cost, counted as 0. " +
      "1 request has no recorded cost, counted as $0 (omp prices them from its catalog).",
  );
});

Deno.test("cli usage draws a progress bar on a terminal for a long read", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await writeImageSession(dataDir, 80 << 20);
    const r = await cliInProcess(["usage", "--data-dir", dataDir], {
      stderrIsTerminal: true,
    });
    equal(r.code, 0);
    ok(
      /\r\[#{10}\] 100% [\d.]+\/[\d.]+ MB\r +\r$/.test(r.stderr),
      JSON.stringify(r.stderr),
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("cli usage refuses bad options with exit code 2", async () => {
  for (
    const [args, message] of [
      [
        ["--by", "year"],
        '--by must be one of day, week, month, session, model, project, not "year"',
      ],
      [
        ["--since", "2026-1-1"],
        '--since takes a day (YYYY-MM-DD) or an ISO time (YYYY-MM-DDTHH:MM), not "2026-1-1"',
      ],
      [["--json", "--csv"], "--json and --csv exclude each other"],
    ] as const
  ) {
    const r = await cliInProcess([
      "usage",
      "--data-dir",
      "/nonexistent",
      ...args,
    ]);
    equal(r.code, 2);
    ok(r.stderr.startsWith(`error: usage: ${message}\n`), r.stderr);
  }
});
