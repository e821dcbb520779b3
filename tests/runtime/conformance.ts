/**
 * The conformance suite: what the library must do alike on Deno, Node and
 * Bun, through `mod.ts` as each runtime imports it. A plain script (no test
 * runner, no `using`: Node 22 cannot parse it), run as
 *
 *     node tests/runtime/conformance.ts      # Node >= 22.18
 *     bun tests/runtime/conformance.ts       # Bun >= 1.4
 *     deno run -A tests/runtime/conformance.ts
 *
 * It prints a line per case, then one `N passed, N failed` line, and exits
 * 1 when a case failed. The race against a Deno writer needs Deno: `$DENO`,
 * else `deno` on the PATH (without it, that case fails and says so).
 *
 * @module
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  BlobStore,
  contextToJson,
  exportSession,
  forkSession,
  listSessions,
  outlineTree,
  searchSessions,
  Session,
  SessionTree,
  usageReport,
  watchSession,
} from "../../mod.ts";
import { isNotFound, realFs, setFs } from "../../src/_fs.ts";
import { CONTEXT_JSON_FIELDS } from "../../src/context/context_json.ts";
import { encodeEntry } from "../../src/format/entries.ts";
import { crashAtEveryByte } from "./_crash.ts";
import { raceWithDeno } from "./_race.ts";
import { RUNTIME } from "./_runtime.ts";

const FIXTURES = new URL("../../fixtures/omp/", import.meta.url);
const T = Date.parse("2026-10-01T09:00:00.000Z");
const usage = { input: 10, output: 5, totalTokens: 15 };
const cases: { name: string; run: () => Promise<void> }[] = [];

function test(name: string, run: () => Promise<void>): void {
  cases.push({ name, run });
}

/** A fresh temporary folder, removed after `work`. */
async function inTemp<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `xdev-conf-${RUNTIME}-`));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A clock that ticks a second a call, from `T`. */
function clock(): () => Date {
  let n = 0;
  return () => new Date(T + 1000 * n++);
}

/** A session on disk with a user turn and an answer that cost tokens. */
async function written(dataDir: string): Promise<Session> {
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir,
    now: clock(),
  });
  await s.appendModelChange("anthropic/claude-sonnet-4-5");
  await s.appendMessage({ role: "user", content: "Explain the zebra module" });
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "The zebra module draws stripes." }],
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    api: "anthropic-messages",
    usage,
    stopReason: "stop",
  });
  await s.ensureOnDisk();
  return s;
}

const fixtures = (await realFs.readDir(FIXTURES.pathname))
  .map((e) => e.name)
  .filter((n) => n.endsWith(".jsonl"))
  .sort();

test(`fixtures/omp holds the 14 omp-written sessions`, () => {
  assert.equal(fixtures.length, 14);
  return Promise.resolve();
});

for (const name of fixtures) {
  test(`${name} opens with omp's context`, async () => {
    const path = new URL(name, FIXTURES).pathname;
    const expected = JSON.parse(
      await readFile(path.replace(/\.jsonl$/, ".context.json"), "utf8"),
    );
    const session = await Session.open(path);
    try {
      const actual = JSON.parse(JSON.stringify(
        await contextToJson(
          session.buildContext(),
          session.title,
          session.titleSource,
        ),
      ));
      for (const field of CONTEXT_JSON_FIELDS) {
        assert.deepEqual(actual[field], expected[field], field);
      }
    } finally {
      await session.close();
    }
  });
}

test("a missing file is not-found (ENOENT), as on every runtime", async () => {
  await assert.rejects(
    Session.open(join(tmpdir(), "xdev-conf-no-such-file.jsonl")),
    (err) => isNotFound(err),
  );
});

test("create, append, setTitle and branch; a reopen sees it all", async () => {
  await inTemp(async (dataDir) => {
    const s = await written(dataDir);
    const first = s.entries.find((e) => e.type === "message")!;
    await s.setTitle("Zebra stripes ✓");
    const marker = await s.branch(first.id);
    assert.equal(marker.customType, "branch");
    assert.equal(s.leafId, first.id);
    await s.close();
    const again = await Session.open(s.path!);
    try {
      assert.equal(again.title, "Zebra stripes ✓");
      assert.equal(again.leafId, first.id);
      assert.equal(again.buildContext().messages.length, 1);
      assert.deepEqual(again.issues, []);
    } finally {
      await again.close();
    }
  });
});

test("appendBatch is one write of exactly the batch's lines", async () => {
  await inTemp(async (dataDir) => {
    const s = await written(dataDir);
    const path = s.path!;
    await s.close();
    let writes = 0;
    const restore = setFs({
      ...realFs,
      open: async (p, o) => {
        const h = await realFs.open(p, o);
        if (p !== path) return h;
        return { ...h, write: (b, at) => (writes++, h.write(b, at)) };
      },
    });
    try {
      const again = await Session.open(path);
      try {
        for (const n of [1, 3, 20]) {
          const before = (await stat(path)).size;
          writes = 0;
          const batch = await again.appendBatch(
            Array.from({ length: n }, (_, i) => ({
              type: "message" as const,
              message: { role: "user" as const, content: `batch ${n}, ${i} ü` },
            })),
          );
          const bytes = new TextEncoder().encode(
            batch.map((e) => `${encodeEntry(e)}\n`).join(""),
          ).length;
          assert.equal(writes, 1, `a batch of ${n}: writes`);
          assert.equal((await stat(path)).size - before, bytes, `batch ${n}`);
        }
      } finally {
        await again.close();
      }
    } finally {
      restore();
    }
  });
});

test("fork, list, usage and search over a data dir", async () => {
  await inTemp(async (dataDir) => {
    const s = await written(dataDir);
    await s.close();
    const fork = await forkSession(s.path!);
    assert.equal(fork.parentSession, s.header.id);
    const forked = await Session.open(fork.path);
    try {
      assert.deepEqual(
        forked.buildContext().messages,
        (await Session.open(s.path!)).buildContext().messages,
      );
    } finally {
      await forked.close();
    }
    const listed = await listSessions(dataDir);
    assert.deepEqual(
      listed.map((i) => i.path).sort(),
      [s.path!, fork.path].sort(),
    );
    const report = await usageReport(dataDir, { timeZone: "UTC" });
    // The fork copies the answer: its call is counted once.
    assert.equal(report.totals.requests, 1);
    assert.equal(report.totals.inputTokens, usage.input);
    const found = await searchSessions(dataDir, "zebra");
    assert.ok(found.hits.length >= 2, `hits: ${found.hits.length}`);
    const none = await searchSessions(dataDir, "okapi");
    assert.equal(none.hits.length, 0);
  });
});

test("blobs: put, then get the same bytes", async () => {
  await inTemp(async (dir) => {
    const store = new BlobStore(join(dir, "blobs"));
    const bytes = crypto.getRandomValues(new Uint8Array(5000));
    const ref = await store.put(bytes);
    assert.match(ref, /^blob:sha256:[0-9a-f]{64}$/);
    assert.deepEqual(await store.get(ref), bytes);
    assert.equal(await store.verify(ref), true);
  });
});

test("export as Markdown and as HTML", async () => {
  await inTemp(async (dir) => {
    const session = new URL("s1-main.jsonl", FIXTURES).pathname;
    const html = await exportSession(session, { out: join(dir, "s1.html") });
    assert.equal(html.messages, 19);
    assert.equal(html.images.files, 1);
    const page = await readFile(join(dir, "s1.html"), "utf8");
    assert.ok(page.startsWith("<!doctype html>"));
    const md = await exportSession(session, { out: join(dir, "s1.md") });
    assert.equal(md.format, "md");
    assert.ok(
      (await readFile(join(dir, "s1.md"), "utf8")).includes("## Turn "),
    );
  });
});

test("tree: the outline of a branched session", async () => {
  const path = new URL("s1-branched.jsonl", FIXTURES).pathname;
  const tree = await SessionTree.read(path);
  const rows = outlineTree(tree);
  assert.ok(rows.some((r) => r.kind === "entry" && r.leaf), "a leaf row");
  assert.ok(rows.length > 3);
});

test("tail: watchSession yields what is appended", async () => {
  await inTemp(async (dataDir) => {
    const s = await written(dataDir);
    try {
      const stop = new AbortController();
      const seen: string[] = [];
      const done = (async () => {
        for await (const e of watchSession(s.path!, { signal: stop.signal })) {
          seen.push(e.type);
          if (e.type === "title_change") stop.abort();
        }
      })();
      await new Promise((r) => setTimeout(r, 50)); // the watch has begun
      await s.appendMessage({ role: "user", content: "and the stripes?" });
      await s.setTitle("Stripes");
      const late = setTimeout(() => stop.abort(), 10_000);
      await done;
      clearTimeout(late);
      assert.deepEqual(seen, ["message", "title_change"]);
    } finally {
      await s.close();
    }
  });
});

/** `cli.ts` with `args` on this runtime, as a child: exit code, stdout, stderr. */
function cli(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const entry = new URL("../../cli.ts", import.meta.url).pathname;
  const argv = RUNTIME === "deno" ? ["run", "-A", entry] : [entry];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...argv, ...args],
      { env: { ...process.env, NO_COLOR: "1" } },
      (err, stdout, stderr) => {
        const code = (err as { code?: unknown } | null)?.code ?? 0;
        if (typeof code !== "number") reject(err);
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A script beside this one on this runtime, as a child: it must end with "ok <runtime>". */
function script(name: string): Promise<{ code: number; out: string }> {
  const entry = new URL(`./${name}`, import.meta.url).pathname;
  const argv = RUNTIME === "deno" ? ["run", "-A", entry] : [entry];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, (err, stdout, stderr) => {
      const code = (err as { code?: unknown } | null)?.code ?? 0;
      if (typeof code !== "number") reject(err);
      else resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

test("the index on this runtime's SQLite: the driver's every call, then a whole index over the fixtures", async () => {
  for (const name of ["sqlite_driver.ts", "index_runtime.ts"]) {
    const r = await script(name);
    assert.equal(r.code, 0, `${name}: ${r.out}`);
    assert.match(r.out, /^ok (deno|node|bun)$/m, `${name}: ${r.out}`);
  }
});

test("the CLI runs here: --version, list, context, and a clear error", async () => {
  const version = await cli(["--version"]);
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^@xdev\/session \d+\.\d+\.\d+/);
  await inTemp(async (dataDir) => {
    const s = await written(dataDir);
    await s.setTitle("Zebra stripes");
    await s.close();
    const list = await cli(["list", "--data-dir", dataDir, "--no-index"]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /Zebra stripes/);
    // Through the index, which loads the runtime's SQLite: Node's warning
    // that node:sqlite is experimental stays off the command's stderr.
    const indexed = await cli(["list", "--data-dir", dataDir]);
    assert.equal(indexed.code, 0, indexed.stderr);
    assert.match(indexed.stdout, /Zebra stripes/);
    assert.doesNotMatch(indexed.stderr, /ExperimentalWarning/);
    const context = await cli(["context", s.path!]);
    assert.equal(context.code, 0, context.stderr);
    assert.match(context.stdout, /^# Zebra stripes\n/);
    assert.match(context.stdout, /The zebra module draws stripes\./);
  });
  const missing = join(tmpdir(), "xdev-conf-no-such-file.jsonl");
  const bad = await cli(["context", missing]);
  assert.equal(bad.code, 1);
  assert.match(
    bad.stderr,
    new RegExp(
      `^error: Cannot open "${missing}": no such file or directory$`,
      "m",
    ),
  );
  assert.equal((await cli(["list", "--bogus"])).code, 2);
});

test("crash at every byte of an append: the reader recovers", async () => {
  await inTemp((dir) => crashAtEveryByte(dir));
});

test("a writer here and a writer on Deno append at once: nothing lost", async () => {
  await inTemp((dir) => raceWithDeno(dir, RUNTIME));
});

let passed = 0;
let failed = 0;
for (const c of cases) {
  try {
    await c.run();
    passed++;
    console.log(`ok   ${c.name}`);
  } catch (err) {
    failed++;
    console.log(
      `FAIL ${c.name}\n     ${
        String((err as Error | undefined)?.stack ?? err)
      }`,
    );
  }
}
console.log(`conformance on ${RUNTIME} ${_version()}`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;

function _version(): string {
  const v = process.versions as Record<string, string | undefined>;
  return v.bun ?? v.deno ?? v.node ?? "?";
}
