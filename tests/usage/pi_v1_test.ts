/**
 * A real pi session in the first (version 1) format, whose entries have no
 * ids: its calls are counted (they have times and costs), once, with a
 * fork of it, from the files and from the index; `stats` and `usage` give
 * the same figures for it. The expected figures are read from the
 * fixture's JSON lines here, not written down.
 */

import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { forkSession, Session, type UsageReport } from "../../mod.ts";
import { cliInProcess } from "../_cli.ts";
import { reported } from "../_indexed.ts";
import { buildIndex } from "./_usage_dirs.ts";

const FIXTURE = new URL(
  "../../fixtures/pi/large-session-v1.jsonl",
  import.meta.url,
);

/** What the fixture records, read with `JSON.parse` line by line. */
interface Recorded {
  sessionId: string;
  name: string;
  requests: number;
  tokens: number;
  cost: number;
}

async function recorded(): Promise<Recorded> {
  const lines = (await Deno.readTextFile(FIXTURE)).split("\n")
    .filter((l) => l.length > 0).map((l) => JSON.parse(l));
  const header = lines[0];
  equal(header.type, "session");
  equal(header.version, undefined, "a version 1 file");
  let requests = 0, tokens = 0, cost = 0;
  for (const e of lines.slice(1)) {
    equal(e.id, undefined, "version 1 entries have no id");
    const m = e.message;
    if (e.type !== "message" || m?.role !== "assistant" || !m.usage) continue;
    requests++;
    const u = m.usage;
    tokens += u.input + u.output + u.cacheRead + u.cacheWrite;
    cost += u.cost.total;
  }
  // The file's name as pi (and omp, and this library) name one.
  const name = `${header.timestamp.replace(/[:.]/g, "-")}_${header.id}.jsonl`;
  return { sessionId: header.id, name, requests, tokens, cost };
}

/** A data dir holding the fixture under its pi name, removed on dispose. */
async function piDataDir(
  r: Recorded,
): Promise<{ dir: string; file: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "xdev-usage-pi-" });
  const folder = join(dir, "sessions", "--Users-badlogic-workspaces-pi-mono--");
  await Deno.mkdir(folder, { recursive: true });
  const file = join(folder, r.name);
  await Deno.copyFile(FIXTURE, file);
  return {
    dir,
    file,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** The report's figures against the fixture's: every call, its tokens, its cost. */
function assertCounts(report: UsageReport, r: Recorded, what: string): void {
  const t = report.totals;
  equal(t.requests, r.requests, `${what}: requests`);
  equal(
    t.inputTokens + t.outputTokens + t.cacheReadTokens + t.cacheWriteTokens,
    r.tokens,
    `${what}: tokens`,
  );
  ok(Math.abs(t.cost - r.cost) < 1e-9, `${what}: cost ${t.cost} ≠ ${r.cost}`);
  deepStrictEqual(report.rows.map((row) => row.key), [r.sessionId], what);
}

Deno.test("the pi fixture: what it records, read line by line", async () => {
  const r = await recorded();
  equal(r.requests, 453);
  equal(r.cost.toFixed(2), "30.33");
});

Deno.test("usageReport() counts a version 1 session's calls, from the files and from the index", async () => {
  const r = await recorded();
  await using d = await piDataDir(r);
  const files = await reported(d.dir, { by: "session", index: false });
  equal(files.source, "files");
  assertCounts(files, r, "files");
  await buildIndex(d.dir);
  const indexed = await reported(d.dir, { by: "session" });
  equal(indexed.source, "index");
  deepStrictEqual({ ...indexed, source: "files" }, files);
});

Deno.test("usageReport() counts a version 1 session and its fork once, in the source", async () => {
  const r = await recorded();
  await using d = await piDataDir(r);
  const fork = await forkSession(d.file);
  equal(fork.migrated, true);
  const files = await reported(d.dir, { by: "session", index: false });
  assertCounts(files, r, "files");
  await buildIndex(d.dir);
  const indexed = await reported(d.dir, { by: "session" });
  equal(indexed.source, "index");
  deepStrictEqual({ ...indexed, source: "files" }, files);
  // The fork goes on: its new call counts in it, the copies still in the source.
  {
    await using s = await Session.open(fork.path);
    await s.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: "Next." }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: { input: 10, output: 5, cost: { total: 0.5 } },
      stopReason: "stop",
    });
  }
  const after = await reported(d.dir, { by: "session", index: false });
  equal(after.totals.requests, r.requests + 1);
  const bySession = new Map(after.rows.map((row) => [row.key, row]));
  equal(bySession.get(r.sessionId)?.requests, r.requests);
  equal(bySession.get(fork.id)?.requests, 1);
  await buildIndex(d.dir);
  const reindexed = await reported(d.dir, { by: "session" });
  deepStrictEqual({ ...reindexed, source: "files" }, after);
});

Deno.test("usageReport() mints a large version 1 file's ids as the loader does: long and damaged lines take their places", async () => {
  const r = await recorded();
  await using d = await piDataDir(r);
  const [header, ...body] = (await Deno.readTextFile(d.file)).split("\n");
  const user = (text: string) =>
    JSON.stringify({
      type: "message",
      timestamp: "2025-11-20T23:33:00.000Z",
      message: { role: "user", content: [{ type: "text", text }] },
    });
  // Lines too long for the pass to keep (a pasted log), a line that is no
  // JSON, one that is no object, then the calls; read in chunks (> 2 MiB).
  const long = Array.from(
    { length: 24 },
    (_, i) => user(`${i}`.repeat(100_000)),
  );
  const lines = [header, ...long, "{not json", "[1, 2]", ...body];
  await Deno.writeTextFile(d.file, lines.join("\n"));
  ok((await Deno.stat(d.file)).size > 2 << 20);
  const fork = await forkSession(d.file);
  const files = await reported(d.dir, { by: "session", index: false });
  assertCounts(files, r, "files");
  await buildIndex(d.dir);
  const indexed = await reported(d.dir, { by: "session" });
  deepStrictEqual({ ...indexed, source: "files" }, files);
  // The fork alone: its calls are the source's, all counted in it.
  await Deno.remove(d.file);
  const alone = await reported(d.dir, { by: "session", index: false });
  equal(alone.totals.requests, r.requests);
  deepStrictEqual(alone.rows.map((row) => row.key), [fork.id]);
});

Deno.test("usageReport() counts a version 1 session migrated in place at its first append as before", async () => {
  const r = await recorded();
  await using d = await piDataDir(r);
  await buildIndex(d.dir);
  const before = await reported(d.dir, { by: "session" });
  assertCounts(before, r, "before");
  await forkSession(d.file); // a fork made before the migration
  {
    await using s = await Session.open(d.file);
    await s.appendMessage({ role: "user", content: "and now?" });
  }
  const head = (await Deno.readTextFile(d.file)).slice(0, 4096);
  ok(/"version":3/.test(head), "migrated to version 3");
  const files = await reported(d.dir, { by: "session", index: false });
  assertCounts(files, r, "files");
  await buildIndex(d.dir);
  const indexed = await reported(d.dir, { by: "session" });
  deepStrictEqual({ ...indexed, source: "files" }, files);
});

Deno.test("cli stats and cli usage (with and without the index) give a version 1 session the same figures", async () => {
  const r = await recorded();
  await using d = await piDataDir(r);
  const stats = await cliInProcess(["stats", d.file, "--json"]);
  equal(stats.code, 0, stats.stderr);
  const s = JSON.parse(stats.stdout);
  const usage = async (...flags: string[]) => {
    const run = await cliInProcess([
      "usage",
      "--data-dir",
      d.dir,
      "--by",
      "session",
      "--json",
      ...flags,
    ]);
    equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as UsageReport;
  };
  const files = await usage("--no-index");
  equal(files.source, "files");
  const index = await cliInProcess(["index", "--data-dir", d.dir]);
  equal(index.code, 0, index.stderr);
  const indexed = await usage();
  equal(indexed.source, "index");
  for (const report of [files, indexed]) {
    assertCounts(report, r, report.source);
    const t = report.totals;
    equal(s.requests, t.requests);
    equal(
      s.tokens.usage,
      t.inputTokens + t.outputTokens + t.cacheReadTokens + t.cacheWriteTokens,
    );
    equal(s.cost, t.cost);
  }
  const text = await cliInProcess(["stats", d.file]);
  ok(
    text.stdout.includes(
      `calls       ${r.requests} model calls, $${r.cost.toFixed(2)} recorded`,
    ),
    text.stdout,
  );
});
