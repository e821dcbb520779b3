import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { exportSession } from "../../mod.ts";
import { formatBytes } from "../../src/cli/_format.ts";
import {
  cliCases,
  cliInProcess,
  CONTROL,
  makeDataDir,
  writeHostileSession,
} from "../_cli.ts";
import { longSession, testSession } from "../export/_sessions.ts";

Deno.test("cli export writes the active branch as HTML and says what it wrote", async () => {
  await using d = await makeDataDir();
  const out = join(d.root, "out", "s1.html");
  const [r] = await cliCases([[
    "export",
    d.session("s1-main.jsonl"),
    "--out",
    out,
  ]]);
  equal(r!.code, 0, r!.stderr);
  const written = formatBytes((await Deno.stat(out)).size);
  equal(
    r!.stdout,
    `wrote ${out}\n19 messages, 23 entries read, ${written} written\n` +
      `1 image copied to ${join(d.root, "out", "s1-files")}\n`,
  );
  ok((await Deno.readTextFile(out)).startsWith("<!doctype html>"));
});

Deno.test("cli export --json prints what exportSession returns, options passed through", async () => {
  await using d = await makeDataDir();
  const file = d.session("s1-main.jsonl");
  const cases: [string[], Parameters<typeof exportSession>[1]][] = [
    [["--out", join(d.root, "a.md")], {}],
    [["--format", "md", "--out", join(d.root, "b.txt"), "--last", "2"], {
      format: "md",
      last: 2,
    }],
    [["--tree", "--out", join(d.root, "c.html"), "--inline-images"], {
      tree: true,
      inlineImages: true,
    }],
  ];
  for (const [args, options] of cases) {
    const r = await cliInProcess(["export", file, ...args, "--json"]);
    equal(r.code, 0, r.stderr);
    const out = args[args.indexOf("--out") + 1]!;
    deepEqual(
      JSON.parse(r.stdout),
      await exportSession(file, { ...options, out }),
    );
  }
});

Deno.test("cli export refuses bad usage with exit code 2, a missing file with 1", async () => {
  await using d = await makeDataDir();
  const file = d.session("s1-main.jsonl");
  const runs = await cliCases([
    ["export", join(d.root, "nope.jsonl"), "--out", join(d.root, "x.html")],
    ["export", file, "--format", "pdf"],
    ["export", file, "--last", "0"],
    ["export", file, "--last", "two"],
    ["export", file, "--last", "1", "--tree"],
    ["export"],
  ]);
  deepEqual(runs.map((r) => r.code), [1, 2, 2, 2, 2, 2]);
  ok(runs[0]!.stderr.startsWith('error: Cannot export "'));
  ok(runs[0]!.stderr.endsWith('nope.jsonl": no such file or directory\n'));
  ok(
    runs[1]!.stderr.startsWith(
      'error: export: --format must be md or html, not "pdf"',
    ),
  );
  ok(
    runs[4]!.stderr.startsWith(
      "error: export: --last and --tree cannot be combined",
    ),
  );
  ok(runs[5]!.stderr.startsWith("error: export: missing <session>"));
});

Deno.test("cli export prints nothing that can drive a terminal", async () => {
  await using d = await makeDataDir();
  const file = join(d.root, "hostile.jsonl");
  await writeHostileSession(file);
  const out = join(d.root, "out\x1b[2J\r.html");
  const r = await cliInProcess(["export", file, "--out", out]);
  equal(r.code, 0, r.stderr);
  ok(!CONTROL.test(r.stdout) && !CONTROL.test(r.stderr), JSON.stringify(r));
  ok(r.stdout.startsWith(`wrote ${d.root}/out [2J .html\n`));
});

Deno.test("cli export draws progress on a terminal for a big export, and none elsewhere", async () => {
  await using t = await testSession(longSession(2000));
  const out = join(t.out, "long.html");
  const shown = await cliInProcess(["export", t.path, "--out", out], {
    stderrIsTerminal: true,
  });
  equal(shown.code, 0, shown.stderr);
  ok(
    /\[##########\] 100% 2000\/2000 messages\r +\r$/.test(shown.stderr),
    shown.stderr,
  );
  const quiet = await cliInProcess(["export", t.path, "--out", out]);
  equal(quiet.stderr, "");
  ok(quiet.stdout.startsWith(`wrote ${out}\n2000 messages`));
});
