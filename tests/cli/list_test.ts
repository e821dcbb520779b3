import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { textWidth, truncate } from "../../src/cli/_format.ts";
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

Deno.test("cli list prints the sessions last active first, by their last entry, as a picker shows them", async () => {
  await using d = await makeDataDir();
  // A file touched last is not the session last active.
  await Deno.utime(d.session("s1-edge.jsonl"), new Date(), new Date(2030, 0));
  const r = await cli(["list", "--data-dir", d.root]);
  equal(r.code, 0, r.stderr);
  equal(r.stderr, "");
  const lines = r.stdout.trimEnd().split("\n");
  ok(
    /^last active +id +title or first message +msgs +parent +cwd$/.test(
      lines[0]!,
    ),
    lines[0],
  );
  equal(lines.length, 1 + FIXTURE_SESSIONS);
  const json: { lastActivity: string | null; timestamp: string; id: string }[] =
    JSON.parse(
      (await cli(["list", "--data-dir", d.root, "--json"])).stdout,
    );
  const times = json.map((s) => Date.parse(s.lastActivity ?? s.timestamp));
  ok(
    times.every((t, i) => i === 0 || times[i - 1]! >= t),
    "sorted by last activity",
  );
  ok(!lines[1]!.startsWith("2030-01-01"), lines[1]);
  // An untitled session shows its first user message, quoted.
  ok(r.stdout.includes("“Find every caller of appendEntry.”"), r.stdout);
  // A subagent's parent is a file: its name's id is shown.
  const child = lines.find((l) => l.includes("“Find every caller"))!;
  ok(/ 4 {2}01a0e7(75|ab) /.test(child), child);
  // Message counts, and a fork's parent by its id's first 8 characters.
  const main = lines.find((l) => l.includes(" 47  "));
  ok(main !== undefined, r.stdout);
  ok(lines.some((l) => / 49 {2}01a0e775 /.test(l)), r.stdout);
  // Not a terminal: full titles, never cut.
  ok(r.stdout.includes("beyond the slot width limit"));
  ok(!r.stdout.includes("…"));
});

Deno.test('truncate(…, "middle") keeps both ends, the start\'s half the larger', () => {
  equal(truncate("abcdefghij", 5, "middle"), "ab…ij");
  equal(truncate("abcdefghij", 6, "middle"), "ab…hij");
  equal(truncate("abc", 6, "middle"), "abc");
  equal(
    textWidth(truncate("去掉全局状态保持行为一致", 9, "middle")) <= 9,
    true,
  );
});

Deno.test("cli list --limit N keeps the N last active; a bad N is exit code 2", async () => {
  await using d = await makeDataDir();
  const all = JSON.parse(
    (await cli(["list", "--data-dir", d.root, "--json"])).stdout,
  );
  const two = JSON.parse(
    (await cli(["list", "--data-dir", d.root, "--json", "--limit", "2"]))
      .stdout,
  );
  equal(two.length, 2);
  equal(JSON.stringify(two), JSON.stringify(all.slice(0, 2)));
  for (const bad of ["0", "-1", "x", "1.5"]) {
    const r = await cli(["list", "--data-dir", d.root, "--limit", bad]);
    equal(r.code, 2, bad);
    ok(
      r.stderr.startsWith(
        "error: list: --limit must be a positive whole number",
      ),
      r.stderr,
    );
  }
});

Deno.test("cli list --json is complete: full id, path, summary fields, the same with and without the index", async () => {
  await using d = await makeDataDir();
  const indexed = JSON.parse(
    (await cli(["list", "--data-dir", d.root, "--json"])).stdout,
  );
  const scanned = JSON.parse(
    (await cli(["list", "--data-dir", d.root, "--json", "--no-index"])).stdout,
  );
  equal(JSON.stringify(indexed), JSON.stringify(scanned));
  for (const s of indexed) {
    ok(/^[0-9a-f-]{36}$/.test(s.id), s.id);
    ok(s.path.endsWith(".jsonl") && s.path.startsWith("/"), s.path);
    ok(typeof s.messageCount === "number");
    ok("firstMessage" in s && "lastActivity" in s);
  }
  const main = indexed.find((s: { path: string }) =>
    s.path.endsWith("s1-main.jsonl")
  );
  equal(main.messageCount, 47);
  ok(main.firstMessage.startsWith("Explain what src/session/store.ts does"));
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
    // The columns left out are named under the table (a note that may wrap).
    const all = r.stdout.trimEnd().split("\n");
    const note = all.findIndex((l) => /^\(.* left out at/.test(l));
    const lines = note === -1 ? all : all.slice(0, note);
    equal(lines.length, 1 + FIXTURE_SESSIONS);
    for (const line of lines) ok(textWidth(line) <= columns, `${columns}`);
    // The title gives way, cut in its middle; the counts stay whole.
    ok(lines.some((l) => l.includes("…")), `${columns}`);
    if (columns >= 80) ok(/ msgs/.test(lines[0]!), `${columns}: ${lines[0]}`);
    // No two rows cut to the same text unless their titles are the same:
    // the middle goes, both ends stay.
    if (columns === 80) {
      const cells = lines.slice(1).map((l) => l.split(/ {2,}/)[2]!);
      const whole = new Map<string, Set<string>>();
      const full = await cli(["list", "--data-dir", d.root]);
      const titles = full.stdout.trimEnd().split("\n").slice(1).map((l) =>
        l.split(/ {2,}/)[2]!
      );
      cells.forEach((c, i) => {
        if (!whole.has(c)) whole.set(c, new Set());
        whole.get(c)!.add(titles[i]!);
      });
      for (const [cell, from] of whole) equal(from.size, 1, cell);
    }
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
