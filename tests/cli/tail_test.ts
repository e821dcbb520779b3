import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { Session } from "../../mod.ts";
import {
  cli,
  cliInProcess,
  CONTROL,
  makeDataDir,
  writeHostileSession,
} from "../_cli.ts";

const FIXTURES = new URL("../../fixtures/omp/", import.meta.url);
const MAIN = new URL("s1-main.jsonl", FIXTURES).pathname;
const CLI = new URL("../../cli.ts", import.meta.url).pathname;

Deno.test("cli tail prints the last N entries as context renders them", async () => {
  const r = await cli(["tail", MAIN, "-n", "3"]);
  equal(r.code, 0, r.stderr);
  const blocks = r.stdout.trimEnd().split("\n\n");
  equal(blocks.length, 3);
  ok(
    blocks[0]!.startsWith(
      "f621121f 2026-09-28T10:05:06.082Z\n── title_change ──\ntitle: Refactor",
    ),
  );
  equal(
    blocks[2],
    "5ce1f5f1 2026-09-28T10:05:38.159Z\n── assistant (openai/gpt-5.1-codex) ──\nNo flaky tests in this run: 42 passed, 0 failed. 🎉",
  );
  const ten = await cliInProcess(["tail", MAIN]);
  equal(ten.stdout.trimEnd().split("\n\n").length, 10);
});

Deno.test("cli tail --json prints the entries as JSON lines, as written", async () => {
  const r = await cliInProcess(["tail", MAIN, "-n2", "--json"]);
  equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  await using s = await Session.open(MAIN, { resolveBlobs: false });
  deepStrictEqual(lines, s.entries.slice(-2));
});

Deno.test("cli tail sanitizes what it prints", async () => {
  await using d = await makeDataDir();
  const file = join(d.root, "hostile.jsonl");
  await writeHostileSession(file);
  const r = await cliInProcess(["tail", file]);
  equal(r.code, 0, r.stderr);
  ok(!CONTROL.test(r.stdout), JSON.stringify(r.stdout));
});

Deno.test("cli tail -f prints each entry appended, as it comes, until interrupted", async () => {
  await using d = await makeDataDir();
  const file = d.session("s2-main.jsonl");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "tail", file, "-n", "1", "-f", "--json"],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  const until = async (n: number) => {
    while (out.split("\n").length - 1 < n) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`tail ended after: ${out}`);
      out += value;
    }
  };
  // Started: the last entry there is printed (a sign that does not depend
  // on how long a process takes to start, as a sleep did). What comes
  // after the bytes it read is followed.
  await until(1);
  await using s = await Session.open(file);
  await s.appendMessage({ role: "user", content: "first" });
  await until(2);
  await s.appendMessage({ role: "user", content: "second" });
  await until(3);
  child.kill("SIGTERM");
  const status = await child.status;
  await reader.cancel();
  const stderr = await new Response(child.stderr).text();
  equal(status.code, 0, stderr);
  const printed = out.trimEnd().split("\n").map((l) => JSON.parse(l));
  equal(printed[0].id, s.entries.at(-3)!.id); // the last before the appends
  deepStrictEqual(
    printed.slice(1).map((e) => e.message.content),
    ["first", "second"],
  );
});

Deno.test("cli tail: a bad -n is a usage error (2); a missing file fails (1)", async () => {
  const bad = await cliInProcess(["tail", MAIN, "-n", "x"]);
  equal(bad.code, 2);
  ok(bad.stderr.startsWith('error: tail: -n must be a whole number, not "x"'));
  const missing = await cliInProcess(["tail", "/nowhere/x.jsonl"]);
  equal(missing.code, 1);
  equal(
    missing.stderr,
    'error: Cannot read "/nowhere/x.jsonl": no such file or directory\n',
  );
});
