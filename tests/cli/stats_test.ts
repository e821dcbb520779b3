import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  type BlobSizes,
  fileFigures,
  tally,
  totalFigures,
} from "../../src/cli/_file_figures.ts";
import { Session } from "../../src/session/session.ts";
import {
  cli,
  cliCases,
  cliInProcess,
  CONTROL,
  FIXTURE_SESSIONS,
  HOSTILE,
  makeDataDir,
  writeHostileSession,
  writePrototypeNamesSession,
} from "../_cli.ts";

Deno.test("cli stats --json counts a file and reports its window", async () => {
  await using d = await makeDataDir();
  const file = d.session("s1-main.jsonl");
  const r = await cli(["stats", file, "--json"]);
  equal(r.code, 0, r.stderr);
  const stats = JSON.parse(r.stdout);
  // Whole-file counts agree with a full (not windowed) open.
  await using full = await Session.open(file, { window: false });
  const byType: Record<string, number> = {};
  for (const e of full.entries) byType[e.type] = (byType[e.type] ?? 0) + 1;
  deepStrictEqual(stats.entriesByType, byType);
  equal(stats.entries, 60);
  deepStrictEqual(stats.messagesByRole, {
    user: 14,
    assistant: 24,
    toolResult: 9,
  });
  equal(stats.compactions, 1);
  equal(stats.resets, 0);
  equal(stats.branches, 1);
  equal(stats.labels, 1);
  // The window figures are the windowed open's.
  await using windowed = await Session.open(file);
  const w = windowed.windowStats();
  deepStrictEqual(stats.window, {
    bytesRead: w.bytesRead,
    retained: w.retained,
    seen: w.seen,
  });
  equal(stats.tokens.context, windowed.buildContext().tokens);
  ok(stats.tokens.usage > stats.tokens.context);
  // Blobs: the two referenced images, sized from <dataDir>/blobs.
  const text = await Deno.readTextFile(file);
  const hexes = new Set(
    [...text.matchAll(/blob:sha256:([0-9a-f]{64})/g)].map((m) => m[1]!),
  );
  equal(stats.blobs, hexes.size);
  equal(stats.blobs, 2);
  let bytes = 0;
  for (const h of hexes) bytes += (await Deno.stat(join(d.blobs, h))).size;
  equal(stats.blobBytes, bytes);
  equal(stats.missingBlobs, 0);
  equal(stats.fileBytes, (await Deno.stat(file)).size);
  equal(stats.issues, 0);
});

Deno.test("cli stats prints a file's figures as text", async () => {
  await using d = await makeDataDir();
  const r = await cli(["stats", d.session("s1-reset.jsonl")]);
  equal(r.code, 0, r.stderr);
  ok(r.stdout.includes("\nentries     17: "));
  ok(r.stdout.includes("\nresets      1\n"));
  ok(
    /\nopen {8}reads [\d.]+ KB of 6\.5 KB \([\d.]+\s%\), keeps 4 of 17 entries/
      .test(r.stdout),
    r.stdout,
  );
});

Deno.test("cli stats of a folder: a table, then the totals", async (t) => {
  await using d = await makeDataDir();
  await t.step("text", async () => {
    const r = await cli(["stats", d.root]);
    equal(r.code, 0, r.stderr);
    const [table, totals] = r.stdout.split("\n\nTotals ");
    const lines = table!.split("\n");
    ok(/^file +entries +tokens used +in context +blobs +size +open reads +kept$/
      .test(lines[0]!));
    equal(lines.length, 1 + FIXTURE_SESSIONS);
    ok(lines[1]!.startsWith("sessions/-src-lumen-api/s1-branched.jsonl "));
    ok(totals!.startsWith(`(${FIXTURE_SESSIONS} files)\n`));
    ok(totals!.includes("\nentries     343: message 242,"));
  });
  await t.step(
    "--json: totals are the sums; shared blobs count once",
    async () => {
      const r = await cli(["stats", d.root, "--json"]);
      const { files, totals, errors } = JSON.parse(r.stdout);
      equal(files.length, FIXTURE_SESSIONS);
      deepStrictEqual(errors, []);
      type Figures = { [k: string]: number };
      const sum = (f: (s: Figures) => number) =>
        files.reduce((n: number, s: Figures) => n + f(s), 0);
      equal(totals.entries, sum((s) => s.entries!));
      equal(totals.fileBytes, sum((s) => s.fileBytes!));
      equal(totals.blobRefs, sum((s) => s.blobRefs!));
      equal(totals.blobs, 4); // the main sessions and their forks share them
      ok(sum((s) => s.blobs!) > totals.blobs);
    },
  );
});

Deno.test("cli stats of a folder: a file that is no session fails the run, not the rest", async () => {
  await using d = await makeDataDir();
  await Deno.writeTextFile(join(d.sessions, "notes.jsonl"), "hello\n");
  const r = await cli(["stats", d.root, "--json"]);
  equal(r.code, 1);
  const out = JSON.parse(r.stdout);
  equal(out.files.length, FIXTURE_SESSIONS);
  equal(out.errors.length, 1);
  ok(r.stderr.startsWith('error: Cannot read session "'), r.stderr);
  ok(r.stderr.includes("notes.jsonl"));
});

Deno.test("cli stats draws a progress bar on a terminal for many files", async () => {
  await using d = await makeDataDir();
  const r = await cliInProcess(["stats", d.root, "--json"], {
    stderrIsTerminal: true,
  });
  equal(r.code, 0, r.stderr);
  ok(r.stderr.startsWith("\r["), JSON.stringify(r.stderr));
  ok(/\] 100% 14\/14 files\r +\r$/.test(r.stderr), JSON.stringify(r.stderr));
  JSON.parse(r.stdout); // stdout holds only the JSON
  const quiet = await cliInProcess(["stats", d.root, "--json"]);
  equal(quiet.stderr, "");
});

Deno.test("cli stats: exit code 1 for a missing path, 2 for bad usage", async () => {
  const r = await cli(["stats", "/nonexistent/dir"]);
  equal(r.code, 1);
  equal(
    r.stderr,
    'error: Cannot read "/nonexistent/dir": no such file or directory\n',
  );
  const cases = [["stats"], ["stats", "a", "b"], ["stats", "a", "--x"]];
  for (const [i, r] of (await cliCases(cases)).entries()) {
    equal(r.code, 2, cases[i]!.join(" "));
  }
});

Deno.test("cli stats prints no terminal escape from a file or a file name", async (t) => {
  await using d = await makeDataDir();
  const file = join(d.sessions, "hostile.jsonl");
  await writeHostileSession(file);
  await t.step("a file", async () => {
    const r = await cliInProcess(["stats", file]);
    equal(r.code, 0, r.stderr);
    ok(!CONTROL.test(r.stdout), JSON.stringify(r.stdout));
  });
  await t.step("a folder, with a file that is no session", async () => {
    await Deno.writeTextFile(join(d.sessions, `n${HOSTILE}.jsonl`), "no\n");
    const r = await cliInProcess(["stats", d.root]);
    equal(r.code, 1);
    ok(!CONTROL.test(r.stdout), JSON.stringify(r.stdout));
    ok(r.stderr.startsWith('error: Cannot read session "'), r.stderr);
    ok(!CONTROL.test(r.stderr), JSON.stringify(r.stderr));
  });
});

Deno.test("cli stats counts types and roles named like Object.prototype's keys", async (t) => {
  await using d = await makeDataDir();
  const file = join(d.sessions, "proto.jsonl");
  await writePrototypeNamesSession(file);
  await t.step("text", async () => {
    const r = await cliInProcess(["stats", file]);
    equal(r.code, 0, r.stderr);
    ok(
      r.stdout.includes(
        "\nentries     5: message 3, constructor 1, __proto__ 1\n",
      ),
      r.stdout,
    );
    ok(
      r.stdout.includes(
        "\nmessages    3: toString 1, __proto__ 1, constructor 1\n",
      ),
      r.stdout,
    );
  });
  await t.step("--json", async () => {
    const r = await cliInProcess(["stats", file, "--json"]);
    const stats = JSON.parse(r.stdout);
    equal(
      JSON.stringify(stats.entriesByType),
      '{"constructor":1,"__proto__":1,"message":3}',
    );
    equal(
      JSON.stringify(stats.messagesByRole),
      '{"toString":1,"__proto__":1,"constructor":1}',
    );
  });
  await t.step("a folder's totals", async () => {
    const r = await cliInProcess(["stats", d.root, "--json"]);
    equal(r.code, 0, r.stderr);
    const { totals } = JSON.parse(r.stdout);
    equal(totals.entriesByType.constructor, 1);
    equal(totals.entriesByType["__proto__"], 1);
    equal(totals.messagesByRole.toString, 1);
    equal(totals.messagesByRole.constructor, 1);
  });
});

Deno.test("fileFigures() counts a whole file as a full open sees it", async () => {
  const file = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url)
    .pathname;
  const counts = await fileFigures(file, undefined, new Map());
  await using full = await Session.open(file, { window: false });
  equal(counts.entries, full.entries.length);
  const byType = new Map<string, number>();
  for (const e of full.entries) {
    byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
  }
  deepStrictEqual([...counts.entriesByType].sort(), [...byType].sort());
  equal(counts.compactions, 1);
  equal(counts.branches, 1);
  equal(counts.blobs, 2);
  equal(counts.issues, 0);
});

Deno.test("tally() counts any key, even one Object.prototype holds", () => {
  const counts = new Map<string, number>();
  for (const k of ["constructor", "__proto__", "toString", "constructor"]) {
    tally(counts, k);
  }
  tally(counts, "message", 3);
  deepStrictEqual([...counts], [
    ["constructor", 2],
    ["__proto__", 1],
    ["toString", 1],
    ["message", 3],
  ]);
});

Deno.test("totalFigures() sums the files and counts a shared blob once", async () => {
  await using d = await makeDataDir();
  const sizes: BlobSizes = new Map();
  const main = await fileFigures(d.session("s1-main.jsonl"), undefined, sizes);
  const fork = await fileFigures(d.session("s1-fork.jsonl"), undefined, sizes);
  equal(main.blobs, 2);
  equal(fork.blobs, 2);
  const t = totalFigures([main, fork], sizes);
  equal(t.entries, main.entries + fork.entries);
  equal(t.fileBytes, main.fileBytes + fork.fileBytes);
  equal(t.tokens.usage, main.tokens.usage + fork.tokens.usage);
  equal(t.window.bytesRead, main.window.bytesRead + fork.window.bytesRead);
  equal(t.blobs, 2, "the fork shares the main session's blobs");
  equal(t.blobBytes, main.blobBytes);
  equal(t.missingBlobs, 0);
});

Deno.test("fileFigures() of a file under no data dir: its blobs are missing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/a.jsonl`;
    await Deno.copyFile(
      new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url),
      file,
    );
    const sizes: BlobSizes = new Map();
    const f = await fileFigures(file, undefined, sizes);
    equal(f.blobs, 2);
    equal(f.missingBlobs, 2);
    equal(f.blobBytes, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
