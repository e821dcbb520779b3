import { equal, ok } from "node:assert/strict";
import { dirname, join } from "node:path";
import { Session } from "../../src/session/session.ts";
import { cli, cliCases, makeDataDir } from "../_cli.ts";

Deno.test("cli fork prints the new file and id", async () => {
  await using d = await makeDataDir();
  const src = d.session("s1-main.jsonl");
  const before = await Deno.readFile(src);
  const r = await cli(["fork", src, "--label", "Try another way"]);
  equal(r.code, 0, r.stderr);
  const [path, id, rest] = r.stdout.split("\n");
  equal(rest, "");
  equal(dirname(path!), d.sessions);
  ok(path!.endsWith(`_${id}.jsonl`));
  await using fork = await Session.open(path!);
  equal(fork.header.id, id);
  equal(fork.header.parentSession, "01a0e775-0100-7eee-9510-1c122060007d");
  equal(fork.title, "Try another way");
  await using source = await Session.open(src);
  equal(fork.leafId, source.leafId);
  equal((await Deno.readFile(src)).length, before.length); // untouched
});

Deno.test("cli fork --to --json; an existing destination is exit code 1", async (t) => {
  await using d = await makeDataDir();
  const src = d.session("s2-main.jsonl");
  const to = join(d.root, "copy.jsonl");
  await t.step("--to --json", async () => {
    const r = await cli(["fork", src, "--to", to, "--json"]);
    equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    equal(out.path, to);
    equal(out.bytes, (await Deno.stat(to)).size);
    ok(/^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(out.id));
  });
  await t.step("the same --to again", async () => {
    const r = await cli(["fork", src, "--to", to]);
    equal(r.code, 1);
    equal(r.stdout, "");
    equal(r.stderr, `error: Cannot fork "${src}": "${to}" already exists\n`);
  });
  await t.step("a missing source", async () => {
    const r = await cli(["fork", join(d.root, "nope.jsonl")]);
    equal(r.code, 1);
    ok(r.stderr.startsWith('error: Cannot fork "'), r.stderr);
    ok(r.stderr.endsWith(": no such file or directory\n"), r.stderr);
  });
});

Deno.test("cli fork: bad usage is exit code 2", async () => {
  const cases = [
    ["fork"],
    ["fork", "a.jsonl", "b.jsonl"],
    ["fork", "a.jsonl", "--label", " \t "],
    ["fork", "a.jsonl", "--to"],
  ];
  for (const [i, r] of (await cliCases(cases)).entries()) {
    equal(r.code, 2, cases[i]!.join(" "));
    ok(r.stderr.startsWith("error: fork: ") || r.stderr.includes("--to"));
  }
});

Deno.test("cli fork --to into a missing folder names the folder, not the source", async () => {
  await using d = await makeDataDir();
  const src = d.session("s1-main.jsonl");
  const folder = join(d.root, "nope");
  const to = join(folder, "fork.jsonl");
  const r = await cli(["fork", src, "--to", to]);
  equal(r.code, 1);
  equal(
    r.stderr,
    `error: Cannot fork "${src}" to "${to}": the folder "${folder}" does not exist\n`,
  );
});

Deno.test("cli fork of a FIFO fails at once, exit code 1", async () => {
  await using d = await makeDataDir();
  const fifo = join(d.root, "pipe.jsonl");
  ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
  const r = await cli(["fork", fifo]);
  equal(r.code, 1);
  equal(r.stderr, `error: Cannot fork "${fifo}": it is a FIFO (named pipe)\n`);
});

Deno.test("cli fork of pi's version 1 session writes a version 3 fork that takes appends", async () => {
  await using d = await makeDataDir();
  const src = join(d.root, "pi.jsonl");
  await Deno.copyFile(
    new URL("../../fixtures/pi/large-session-v1.jsonl", import.meta.url),
    src,
  );
  const r = await cli(["fork", src, "--json"]);
  equal(r.code, 0, r.stderr);
  equal(r.stderr, "");
  const out = JSON.parse(r.stdout);
  equal(out.migrated, true);
  await using fork = await Session.open(out.path);
  equal(fork.header.version, 3);
  await fork.appendMessage({ role: "user", content: "Carry on" });
});

Deno.test("cli fork notes a torn last line it left out", async () => {
  await using d = await makeDataDir();
  const src = join(d.root, "torn.jsonl");
  await Deno.copyFile(d.session("s1-main.jsonl"), src);
  await Deno.writeTextFile(src, '{"type":"message","id":"0', { append: true });
  const r = await cli(["fork", src]);
  equal(r.code, 0, r.stderr);
  ok(
    /^note: line \d+ is torn \(an append cut short\) and was skipped\n$/.test(
      r.stderr,
    ),
    r.stderr,
  );
  await using fork = await Session.open(r.stdout.split("\n")[0]!);
  equal(fork.issues.length, 0);
});
