import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { Session } from "../../src/session/session.ts";
import {
  cli,
  cliCases,
  cliInProcess,
  CONTROL,
  makeDataDir,
  writeHostileSession,
  writePrototypeNamesSession,
} from "../_cli.ts";

Deno.test("cli show prints header, title, slot, leaf, window and damage", async () => {
  await using d = await makeDataDir();
  const r = await cli(["show", d.session("s1-main.jsonl")]);
  equal(r.code, 0, r.stderr);
  ok(r.stdout.includes("title     Refactor 🛠️ test/store.test.ts"));
  ok(r.stdout.includes("(manual)"));
  ok(
    r.stdout.includes("slot      256 bytes, updated 2026-09-28T10:05:06.082Z"),
  );
  ok(r.stdout.includes("leaf      5ce1f5f1"));
  // A small file comes whole in the first read; only the window is kept.
  ok(
    r.stdout.includes(
      "window    whole file: 23 entries kept, 62 lines seen, 26.1 KB read of 26.1 KB",
    ),
    r.stdout,
  );
  ok(r.stdout.includes("entries in memory (the window;"));
  ok(r.stdout.includes("  id         01a0e775-0100-7eee-9510-1c122060007d"));
  ok(r.stdout.includes("  message         16"));
  ok(r.stdout.includes("issues: none"));
});

Deno.test("cli show --json matches what Session.open reports", async () => {
  await using d = await makeDataDir();
  const file = d.session("s2-edge.jsonl");
  const r = await cli(["show", file, "--json"]);
  equal(r.code, 0, r.stderr);
  const shown = JSON.parse(r.stdout);
  await using s = await Session.open(file);
  deepStrictEqual(shown.header, s.header);
  equal(shown.title, s.title);
  equal(shown.titleSource, s.titleSource);
  equal(shown.titleSlot.state, "ok");
  equal(shown.leafId, s.leafId);
  deepStrictEqual(shown.window, s.windowStats());
  const counted = Object.values(shown.entriesByType as Record<string, number>)
    .reduce((a, b) => a + b, 0);
  equal(counted, s.entries.length);
  equal(shown.fileBytes, (await Deno.stat(file)).size);
  deepStrictEqual(shown.issues, []);
});

Deno.test("cli show reports a torn last line; --full reads every line", async (t) => {
  await using d = await makeDataDir();
  const file = join(d.root, "torn.jsonl");
  const intact = await Deno.readFile(d.session("s1-main.jsonl"));
  await Deno.writeFile(file, intact);
  await Deno.writeTextFile(file, '{"type":"message","id":"zz', {
    append: true,
  });
  await t.step("windowed", async () => {
    const r = await cli(["show", file]);
    equal(r.code, 0, r.stderr);
    ok(r.stdout.includes("issues: 1"));
    ok(/torn-line +- +26692 +the line at byte 26692 is torn/.test(r.stdout));
  });
  await t.step("--full --json", async () => {
    const r = await cli(["show", file, "--full", "--json"]);
    const shown = JSON.parse(r.stdout);
    equal(shown.window.windowed, false);
    equal(shown.window.retained, 60);
    deepStrictEqual(shown.issues, [{
      kind: "torn-line",
      line: 63,
      offset: intact.length,
      message: "line 63 is torn (an append cut short) and was skipped",
    }]);
  });
});

Deno.test("cli show tells a legacy file without a title slot", async () => {
  await using d = await makeDataDir();
  const file = join(d.root, "legacy.jsonl");
  const bytes = await Deno.readFile(d.session("s1-main.jsonl"));
  await Deno.writeFile(file, bytes.subarray(256));
  const r = await cli(["show", file, "--json"]);
  equal(r.code, 0, r.stderr);
  deepStrictEqual(JSON.parse(r.stdout).titleSlot, { state: "absent" });
});

Deno.test("cli show: exit code 1 for a missing file, 2 for bad usage", async (t) => {
  await t.step("a missing file", async () => {
    const r = await cli(["show", "/nonexistent/x.jsonl"]);
    equal(r.code, 1);
    equal(
      r.stderr,
      'error: Cannot open "/nonexistent/x.jsonl": no such file or directory\n',
    );
  });
  await t.step("bad usage", async () => {
    const cases = [["show"], ["show", "a", "b"], ["show", "a", "--nope"]];
    for (const [i, r] of (await cliCases(cases)).entries()) {
      equal(r.code, 2, cases[i]!.join(" "));
      ok(r.stderr.startsWith("error: show: ") || r.stderr.includes("--nope"));
    }
  });
});

Deno.test("cli show prints no terminal escape from the file", async () => {
  await using d = await makeDataDir();
  const file = join(d.root, "hostile.jsonl");
  await writeHostileSession(file);
  const r = await cliInProcess(["show", file]);
  equal(r.code, 0, r.stderr);
  ok(!CONTROL.test(r.stdout), JSON.stringify(r.stdout));
  ok(r.stdout.includes("title     T  ]52;c;aGFjaw==  [2J  31m (manual)"));
  ok(r.stdout.includes("  cwd        /home/ ]52;"));
});

Deno.test("cli show counts entry types named like Object.prototype's keys", async () => {
  await using d = await makeDataDir();
  const file = join(d.root, "proto.jsonl");
  await writePrototypeNamesSession(file);
  const r = await cliInProcess(["show", file]);
  equal(r.code, 0, r.stderr);
  ok(
    r.stdout.includes(
      "\n  __proto__    1\n  constructor  1\n  message      3\n",
    ),
    r.stdout,
  );
  const json = await cliInProcess(["show", file, "--json"]);
  deepStrictEqual(JSON.parse(json.stdout).entriesByType, {
    constructor: 1,
    ["__proto__"]: 1,
    message: 3,
  });
  ok(json.stdout.includes('"__proto__": 1'));
});

Deno.test("cli show: a folder is exit code 1, naming it", async () => {
  await using d = await makeDataDir();
  const r = await cliInProcess(["show", d.sessions]);
  equal(r.code, 1);
  equal(r.stderr, `error: Cannot open "${d.sessions}": it is a folder\n`);
});
