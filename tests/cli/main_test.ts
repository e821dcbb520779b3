import { equal, ok } from "node:assert/strict";
import { cli as run, cliInProcess } from "../_cli.ts";

const cli = (...args: string[]) => run(args);

Deno.test("cli exit codes: 2 for bad usage, 1 for a file that cannot be read", async (t) => {
  await t.step("no arguments", async () => equal((await cli()).code, 2));
  await t.step("an unknown command", async () => {
    const r = await cli("frobnicate");
    equal(r.code, 2);
    ok(r.stderr.includes('unknown command "frobnicate"'));
  });
  await t.step(
    "an unknown option",
    async () => equal((await cli("context", "x", "--nope")).code, 2),
  );
  await t.step("a missing file", async () => {
    const r = await cli("context", "/nonexistent/x.jsonl");
    equal(r.code, 1);
    ok(r.stderr.startsWith("error: "));
  });
  await t.step("--help", async () => {
    const r = await cli("context", "--help");
    equal(r.code, 0);
    ok(r.stdout.startsWith("Usage: cli context"));
  });
});

Deno.test("cli help lists every command, exit code 0", async () => {
  const r = await cli("help");
  equal(r.code, 0);
  for (
    const c of [
      "list",
      "show",
      "context",
      "stats",
      "fork",
      "gen",
      "blobs verify",
      "blobs gc",
      "demo",
    ]
  ) {
    ok(r.stdout.includes(`\n  ${c} `), c);
  }
});

Deno.test("cli every command answers --help with its usage", async () => {
  // Each is loaded when it runs: this also checks each name loads its command.
  for (
    const c of [
      "list",
      "index",
      "search",
      "show",
      "context",
      "stats",
      "usage",
      "tree",
      "tail",
      "fork",
      "export",
      "gen",
      "blobs",
      "demo",
    ]
  ) {
    const r = await cliInProcess([c, "--help"]);
    equal(r.code, 0, c);
    ok(r.stdout.startsWith(`Usage: cli ${c}`), c);
  }
});
