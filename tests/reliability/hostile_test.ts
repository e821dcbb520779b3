/**
 * The hostile corpus in one place: the files people really have (damaged
 * disks, FIFOs, huge lines, NUL tails, glued lines, byte order marks), each
 * opened both ways (windowed and whole) with the outcome pinned. Big inputs
 * are sparse files or are generated, never committed; memory bounds are
 * checked in a child process.
 */
import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import { type LoadIssueKind, Session, SessionSyntaxError } from "../../mod.ts";
import { HEADER, sessionBytes, tempDir, user } from "../_session_files.ts";

const enc = new TextEncoder();
const a = user("0000000a", null, "first");
const b = user("0000000b", "0000000a", "second");
const MB = 1 << 20;

const kinds = (s: Session): LoadIssueKind[] => s.issues.map((i) => i.kind);
const texts = (s: Session): string[] =>
  s.buildContext().messages.map((m) =>
    (m as { content: { text: string }[] }).content[0]!.text
  );

/** A file of `bytes`, then `extend` NUL bytes (a sparse hole: no disk used). */
async function fileOf(
  dir: string,
  bytes: Uint8Array,
  extend = 0,
): Promise<string> {
  const path = `${dir}/s.jsonl`;
  await Deno.writeFile(path, bytes);
  if (extend > 0) {
    using f = await Deno.open(path, { write: true });
    await f.truncate(bytes.length + extend);
  }
  return path;
}

/** Open windowed and whole; both must pass `check`. */
async function bothWays(
  path: string,
  check: (s: Session, how: string) => void,
): Promise<void> {
  for (const window of [true, false]) {
    await using s = await Session.open(path, { window });
    check(s, window ? "windowed" : "whole");
  }
}

/**
 * The resident memory a child process gains opening `path` (both ways), so a
 * bound can be checked without the test runner's own heap in the figure.
 */
async function rssGrowthMB(path: string): Promise<number> {
  const code = `
    import { Session } from ${
    JSON.stringify(new URL("../../mod.ts", import.meta.url).href)
  };
    const rss = () => Number(/VmHWM:\\s+(\\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))[1]) / 1024;
    const before = rss();
    for (const window of [true, false]) {
      try { await using s = await Session.open(${
    JSON.stringify(path)
  }, { window }); s.buildContext(); }
      catch (err) { if (!(err instanceof Error && err.name === "SessionSyntaxError")) throw err; }
    }
    console.log(rss() - before);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      code,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return Number(new TextDecoder().decode(out.stdout).trim());
}

const HAS_PROC = Deno.build.os === "linux";

Deno.test("Session.open() on a NUL-filled tail of 256 MB: the entries before it, in bounded memory", async () => {
  await using dir = await tempDir();
  const path = await fileOf(dir.path, sessionBytes([a, b]), 256 * MB);
  await bothWays(path, (s, how) => {
    deepStrictEqual(kinds(s), ["nul-fill"], how);
    deepStrictEqual(texts(s), ["first", "second"], how);
  });
  if (HAS_PROC) {
    const mb = await rssGrowthMB(path);
    ok(mb < 64, `peak RSS grew ${mb} MB`);
  }
});

Deno.test("Session.open() on a file of NUL bytes only: a clear SessionSyntaxError, in bounded memory", async () => {
  await using dir = await tempDir();
  const path = await fileOf(dir.path, new Uint8Array(0), 300 * MB);
  for (const window of [true, false]) {
    await rejects(Session.open(path, { window }), (err) => {
      ok(err instanceof SessionSyntaxError);
      equal(err.reason, "the header is missing");
      return true;
    });
  }
  if (HAS_PROC) {
    const mb = await rssGrowthMB(path);
    ok(mb < 64, `peak RSS grew ${mb} MB`);
  }
});

Deno.test("Session.open() skips a last line over maxLineBytes unread, and reports it", async () => {
  await using dir = await tempDir();
  const huge = enc.encode(
    `${JSON.stringify(user("0000000c", "0000000b", "x".repeat(3 * MB)))}\n`,
  );
  const path = await fileOf(dir.path, sessionBytes([a, b, huge]));
  for (const window of [true, false]) {
    await using s = await Session.open(path, { window, maxLineBytes: MB });
    deepStrictEqual(kinds(s), ["oversized-line"]);
    deepStrictEqual(texts(s), ["first", "second"]);
    equal(s.leafId, "0000000b");
  }
  // Under the default limit (64 MiB) the line is read.
  await bothWays(path, (s, how) => equal(s.leafId, "0000000c", how));
});

Deno.test("Session.open() on a line 1 of 40 MB: skipped, the header on line 2 still read", async () => {
  await using dir = await tempDir();
  const junk = enc.encode(`${"j".repeat(40 * MB)}\n`);
  const bytes = sessionBytes([a, b], { slot: false });
  const path = await fileOf(dir.path, new Uint8Array([...junk, ...bytes]));
  await bothWays(path, (s, how) => {
    equal(s.header.id, HEADER.id, how);
    deepStrictEqual(texts(s), ["first", "second"], how);
    deepStrictEqual(kinds(s), ["oversized-line"], how); // line 1, unread
  });
  if (HAS_PROC) {
    const mb = await rssGrowthMB(path);
    ok(mb < 64, `peak RSS grew ${mb} MB for a 40 MB line`);
  }
});

Deno.test("Session.open() on two JSON objects glued on one line keeps the first, as omp does", async () => {
  await using dir = await tempDir();
  // omp appends right after a line that lost its "\n".
  const glued = `${JSON.stringify(b)}${
    JSON.stringify(user("0000000c", "0000000b", "third"))
  }`;
  const path = await fileOf(dir.path, sessionBytes([a, glued]));
  await bothWays(path, (s, how) => {
    deepStrictEqual(kinds(s), ["glued-line"], how);
    deepStrictEqual(texts(s), ["first", "second"], how);
    equal(s.leafId, "0000000b", how);
  });
});

Deno.test("Session.open() reads a file with a UTF-8 byte order mark before the title slot", async () => {
  await using dir = await tempDir();
  const bytes = sessionBytes([a, b], { title: "Keep me" });
  const path = await fileOf(
    dir.path,
    new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]),
  );
  await bothWays(path, (s, how) => {
    equal(s.title, "Keep me", how);
    deepStrictEqual(kinds(s), ["title-slot"], how);
    deepStrictEqual(texts(s), ["first", "second"], how);
  });
});

Deno.test("Session.open() agrees both ways on a damaged line over 4 KiB on the path before the window", async () => {
  await using dir = await tempDir();
  const big = JSON.stringify(user("0000000b", "0000000a", "y".repeat(10_000)))
    .replace('"timestamp"', '"x":\u0001bad,"timestamp"');
  const reset = {
    type: "reset_boundary",
    id: "0000000c",
    parentId: "0000000b",
    timestamp: HEADER.timestamp,
  };
  const path = await fileOf(
    dir.path,
    sessionBytes([
      {
        type: "thinking_level_change",
        id: "00000001",
        parentId: null,
        timestamp: HEADER.timestamp,
        thinkingLevel: "high",
      },
      { ...a, parentId: "00000001" },
      big,
      reset,
      user("0000000d", "0000000c", "after"),
    ]),
  );
  const contexts: string[] = [];
  await bothWays(path, (s) => {
    const ctx = s.buildContext();
    equal(ctx.thinkingLevel, "high");
    equal(ctx.pathEnd, "root");
    contexts.push(JSON.stringify(ctx));
  });
  equal(contexts[0], contexts[1]);
});

Deno.test("Session.windowStats().bytesRead counts each byte read once", async () => {
  await using dir = await tempDir();
  const bytes = sessionBytes([a, b]);
  const path = await fileOf(dir.path, bytes);
  await using s = await Session.open(path);
  equal(s.windowStats().bytesRead, bytes.length);
});
