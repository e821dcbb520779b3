import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  cli,
  cliInProcess,
  CONTROL,
  HOSTILE,
  makeDataDir,
  writeHostileSession,
} from "../_cli.ts";

Deno.test("cli search --json prints the hits with their fields", async () => {
  await using d = await makeDataDir();
  const r = await cli(["search", "--data-dir", d.root, "--json", "readslot"]);
  equal(r.code, 0, r.stderr);
  const { hits } = JSON.parse(r.stdout);
  ok(hits.length > 0);
  for (const hit of hits) {
    deepEqual(Object.keys(hit), [
      "path",
      "agent",
      "dataDir",
      "sessionId",
      "title",
      "entryId",
      "role",
      "timestamp",
      "snippet",
      "onActivePath",
    ]);
    ok(hit.snippet.toLowerCase().includes("readslot"));
  }
  const times = hits.map((h: { timestamp: string }) => h.timestamp);
  deepEqual(times, [...times].sort().reverse());
});

Deno.test("cli search prints each hit in three lines, the match marked on a terminal only", async () => {
  await using d = await makeDataDir();
  const plain = await cliInProcess([
    "search",
    "--data-dir",
    d.root,
    "--limit",
    "1",
    "readslot",
  ]);
  equal(plain.code, 0, plain.stderr);
  const lines = plain.stdout.trimEnd().split("\n");
  equal(lines.length, 3);
  ok(
    /^\d{4}-\d\d-\d\d \d\d:\d\d {2}(user|assistant|tool|custom) {2}/.test(
      lines[0]!,
    ),
  );
  ok(lines[2]!.includes(".jsonl#"));
  ok(!plain.stdout.includes("\x1b"));
  const term = await cliInProcess(
    ["search", "--data-dir", d.root, "--limit", "1", "readslot"],
    { isTerminal: true },
  );
  const noColor = (Deno.env.get("NO_COLOR") ?? "") !== ""; // see color_test.ts
  ok(
    noColor || term.stdout.includes("\x1b[1;4mreadSlot\x1b[22;24m"),
    term.stdout,
  );
});

Deno.test("cli search shows hostile text without its control characters", async () => {
  await using d = await makeDataDir();
  await writeHostileSession(join(d.sessions, "hostile.jsonl"));
  for (const isTerminal of [false, true]) {
    const r = await cliInProcess(["search", "--data-dir", d.root, "there"], {
      isTerminal,
    });
    equal(r.code, 0, r.stderr);
    ok(r.stdout.includes("hi"), r.stdout);
    ok(!r.stdout.includes(HOSTILE));
    const withoutMarks = r.stdout.replaceAll("\x1b[1;4m", "")
      .replaceAll("\x1b[22;24m", "");
    ok(!CONTROL.test(withoutMarks.replaceAll("\n", "")), withoutMarks);
  }
});

Deno.test("cli search: bad usage exits 2, no match exits 1 (as grep)", async (t) => {
  await using d = await makeDataDir();
  for (
    const args of [
      ["--limit", "0", "x"],
      ["--role", "robot", "x"],
      ["--since", "yesterday", "x"],
      ["--regex", "("],
      ["a\0b"],
      [],
    ]
  ) {
    await t.step(args.join(" "), async () => {
      const r = await cliInProcess(["search", "--data-dir", d.root, ...args]);
      equal(r.code, 2, r.stdout);
      ok(r.stderr.startsWith("error: search"), r.stderr);
    });
  }
  const none = await cliInProcess(["search", "--data-dir", d.root, "zqxjvkw"]);
  equal(none.code, 1);
  equal(none.stdout, "No matches\n");
  const json = await cliInProcess([
    "search",
    "--data-dir",
    d.root,
    "--json",
    "zqxjvkw",
  ]);
  equal(json.code, 1);
  equal(JSON.parse(json.stdout).hits.length, 0);
  equal(none.stdout, "No matches\n");
});

Deno.test("cli search reports a damaged line that matches on stderr", async () => {
  await using d = await makeDataDir();
  const path = d.session("s1-main.jsonl");
  await Deno.writeTextFile(
    path,
    '{"type":"message","id":"0badc0de","parentId":null,"message":"needlecut\n',
    { append: true },
  );
  const r = await cliInProcess([
    "search",
    "--data-dir",
    d.root,
    "--no-index",
    "needlecut",
  ]);
  equal(r.code, 1); // no hit: the matching line is skipped
  equal(r.stdout, "No matches\n");
  ok(r.stderr.includes("skipped a damaged line that matches"), r.stderr);
  ok(r.stderr.includes("s1-main.jsonl"));
});

Deno.test("cli search --regex takes RE2 syntax, linear in the text, and says so", async (t) => {
  await using d = await makeDataDir();
  await t.step("the help names the dialect", async () => {
    const r = await cliInProcess(["search", "--help"]);
    ok(/RE2 syntax/.test(r.stdout), r.stdout);
    ok(r.stdout.includes("no backreferences or lookaround"), r.stdout);
  });
  await t.step(
    "a backreference or a lookahead is a usage error naming RE2",
    async () => {
      for (const pattern of ["(a)\\1", "a(?=b)"]) {
        const r = await cliInProcess([
          "search",
          "--data-dir",
          d.root,
          "--regex",
          pattern,
        ]);
        equal(r.code, 2, r.stdout);
        ok(/RE2 syntax/.test(r.stderr), r.stderr);
      }
    },
  );
  await t.step(
    "foo.*bar.*baz over a 28 KB message of foobar answers at once",
    async () => {
      const line = JSON.stringify({
        type: "message",
        id: "0000f00b",
        parentId: null,
        timestamp: "2026-10-01T09:00:00.000Z",
        message: { role: "user", content: "foobar ".repeat(4000) },
      });
      await Deno.writeTextFile(d.session("s1-main.jsonl"), `${line}\n`, {
        append: true,
      });
      const started = performance.now();
      const r = await cliInProcess([
        "search",
        "--data-dir",
        d.root,
        "--regex",
        "foo.*bar.*baz",
      ]);
      const ms = performance.now() - started;
      equal(r.code, 1, r.stderr);
      equal(r.stdout, "No matches\n");
      ok(ms < 10_000, `took ${ms} ms`); // minutes with a backtracking engine
    },
  );
});
