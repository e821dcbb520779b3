/**
 * A real line over the loader's 64 MiB limit (`DEFAULT_MAX_LINE_BYTES`),
 * an assistant turn with its usage: every reader skips it unread (none
 * parses it in bounded memory), and every one says so, in its result and,
 * in the CLI, on stderr: `usageReport` and `searchSessions` (files and
 * index), `cli usage` and `cli search`, `Session.open` and `cli show`, and
 * `cli blobs gc`, which deletes nothing rather than miss a reference.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  searchSessions,
  Session,
  SessionIndex,
  usageReport,
} from "../../mod.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../../src/read/lines.ts";
import { cliInProcess } from "../_cli.ts";
import {
  assistant,
  backdate,
  HEADER,
  sessionBytes,
  tempDir,
  user,
} from "../_session_files.ts";

const USAGE = {
  input: 100,
  output: 10,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 110,
  cost: { input: 0.1, output: 0.01, total: 0.11 },
};

/**
 * A session in `root`'s data dir: a user turn, a call, a user turn, a call
 * whose line is 65 MiB (its text starts with "needle"), a last user turn,
 * the huge call's child (on the active path) or its sibling (off it).
 */
async function sessionWithHugeLine(
  root: string,
  n: number,
  onPath: boolean,
): Promise<{ path: string; offset: number; length: number }> {
  const folder = join(root, "sessions", "-home-dev-src-app");
  await Deno.mkdir(folder, { recursive: true });
  const id = HEADER.id.slice(0, -1) + n;
  const path = join(folder, `2026-10-0${n}T09-00-00-000Z_${id}.jsonl`);
  const big = "needle " + "x".repeat(DEFAULT_MAX_LINE_BYTES + (1 << 20));
  const before = sessionBytes([
    user("a1", null, "first needle"),
    assistant(`a2-${n}`, "a1", "short answer", { usage: USAGE }),
    user("a3", `a2-${n}`, "go on"),
  ], { header: { ...HEADER, id } });
  const line = JSON.stringify(assistant("a4", "a3", big, { usage: USAGE }));
  const after = new TextEncoder().encode(
    `${line}\n${JSON.stringify(user("a5", onPath ? "a4" : "a3", "after"))}\n`,
  );
  const bytes = new Uint8Array(before.length + after.length);
  bytes.set(before);
  bytes.set(after, before.length);
  await Deno.writeFile(path, bytes);
  return { path, offset: before.length, length: line.length };
}

Deno.test("a call on a line over the loader's limit is reported by every reader, through the index too", async (t) => {
  await using dir = await tempDir();
  const root = dir.path;
  // (Each session's short call has its own id: not a fork's copy.)
  // On the path, the line cuts it: the index keeps no resume state, and a
  // search scans the file. Off it, the index holds the file whole.
  const huge = await sessionWithHugeLine(root, 1, true);
  const aside = await sessionWithHugeLine(root, 2, false);
  const both = [huge, aside];

  await t.step(
    "usageReport() counts the other call and names the line",
    async () => {
      const r = await usageReport(root);
      equal(r.totals.requests, 2);
      equal(r.source, "files");
      deepStrictEqual(r.oversizedLines, both);
    },
  );

  await t.step(
    "searchSessions() finds the other lines and names the line",
    async () => {
      const r = await searchSessions(root, "needle");
      deepStrictEqual(r.hits.map((h) => h.entryId), ["a1", "a1"]);
      deepStrictEqual(r.oversizedLines, both);
    },
  );

  await t.step("Session.open() reports it as oversized-line", async () => {
    await using s = await Session.open(huge.path);
    const issue = s.issues.find((i) => i.kind === "oversized-line");
    equal(issue?.offset, huge.offset);
    ok(s.entries.every((e) => e.id !== "a4"));
  });

  await t.step(
    "cli usage and cli search say it on stderr and in --json",
    async () => {
      for (const args of [["usage"], ["search", "needle"]]) {
        const r = await cliInProcess([
          ...args,
          "--data-dir",
          root,
          "--no-index",
        ]);
        equal(r.code, 0, r.stderr);
        match(r.stderr, /skipped 1 line over the 64 MiB line limit in "/);
        for (const { path } of both) ok(r.stderr.includes(path), r.stderr);
        const json = await cliInProcess([
          ...args,
          "--data-dir",
          root,
          "--no-index",
          "--json",
        ]);
        deepStrictEqual(JSON.parse(json.stdout).oversizedLines, both);
      }
    },
  );

  await t.step("cli show lists the issue", async () => {
    const r = await cliInProcess(["show", huge.path]);
    equal(r.code, 0, r.stderr);
    match(r.stdout, /oversized-line/);
  });

  await t.step(
    "the index records it: usage and search through it say it",
    async () => {
      await backdate(root); // settled: the index holds it whole
      {
        using index = await SessionIndex.open(root);
        await index.refresh();
      }
      using index = await SessionIndex.open(root);
      const u = await index.usageReport();
      equal(u.source, "index");
      equal(u.totals.requests, 2);
      deepStrictEqual(u.oversizedLines, both);
      const s = await index.search("needle");
      equal(s.indexed, true);
      equal(s.scanned, 1); // the first file: the second is held whole
      deepStrictEqual(s.hits.map((h) => h.entryId), ["a1", "a1"]);
      deepStrictEqual(s.oversizedLines, both); // each once
      for (const args of [["usage"], ["search", "needle"]]) {
        const r = await cliInProcess([...args, "--data-dir", root]);
        for (const { path } of both) ok(r.stderr.includes(path), r.stderr);
      }
    },
  );

  await t.step("cli blobs gc deletes nothing and says why", async () => {
    await Deno.mkdir(join(root, "blobs"));
    const blob = join(root, "blobs", "a".repeat(64));
    await Deno.writeTextFile(blob, "x");
    const old = new Date(Date.now() - 30 * 86400_000);
    await Deno.utime(blob, old, old);
    const r = await cliInProcess(["blobs", "gc", "--data-dir", root, "--yes"]);
    ok(r.code !== 0, r.stdout);
    match(r.stderr, /more than the \d+ gc decodes/);
    await Deno.stat(blob); // still there
  });
});
