import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { forkSession } from "../../src/store/fork.ts";
import { Session } from "../../src/session/session.ts";
import {
  assistant,
  HEADER,
  sessionBytes,
  T0,
  tempDir,
  user,
} from "../_session_files.ts";

const enc = new TextEncoder();

/** Byte offset just past the `n`th "\n" (1-based). */
function afterLine(bytes: Uint8Array, n: number): number {
  let at = 0;
  for (let i = 0; i < n; i++) at = bytes.indexOf(10, at) + 1;
  return at;
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

const TWO = [
  user("00000001", null, "hi"),
  assistant("00000002", "00000001", "hello"),
];

Deno.test("forkSession() copies whole lines only: a torn last line is left out and reported", async (t) => {
  await using dir = await tempDir();
  const whole = sessionBytes(TWO);
  const cases: [string, Uint8Array, string[]][] = [
    ["half a line", enc.encode('{"type":"message","id":"000'), ["torn-line"]],
    ["NUL bytes a crash left", new Uint8Array(300), ["nul-fill"]],
    ["a lone carriage return", enc.encode("\r"), ["torn-line"]],
  ];
  for (const [name, tail, kinds] of cases) {
    await t.step(name, async () => {
      const src = join(dir.path, "torn.jsonl");
      const source = new Uint8Array([...whole, ...tail]);
      await Deno.writeFile(src, source);
      const fork = await forkSession(src, join(dir.path, `${name}.jsonl`));
      assert.deepEqual(fork.issues.map((i) => i.kind), kinds);
      assert.deepEqual(fork.issues.map((i) => [i.line, i.offset]), [[
        5,
        whole.length,
      ]]);
      assert.ok(!fork.issues[0]!.message.includes("000"), "no content");
      const bytes = await Deno.readFile(fork.path);
      assert.equal(fork.bytes, bytes.length);
      assert.deepEqual(
        bytes.subarray(afterLine(bytes, 2)),
        whole.subarray(afterLine(whole, 2)),
      );
      assert.deepEqual(await Deno.readFile(src), source, "untouched");
      await using s = await Session.open(fork.path);
      assert.deepEqual(s.issues, []);
      assert.equal(s.leafId, "00000002");
    });
  }
});

Deno.test("forkSession() keeps a last entry that lacks only its newline, and gives it one", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "src.jsonl");
  const last = JSON.stringify(user("00000003", "00000002", "and then"));
  await Deno.writeFile(
    src,
    new Uint8Array([...sessionBytes(TWO), ...enc.encode(last)]),
  );
  const fork = await forkSession(src);
  assert.deepEqual(fork.issues.map((i) => [i.kind, i.line]), [[
    "missing-newline",
    5,
  ]]);
  const text = await Deno.readTextFile(fork.path);
  assert.ok(text.endsWith(`${last}\n`));
  await using s = await Session.open(fork.path);
  assert.deepEqual(s.issues, []);
  assert.equal(s.leafId, "00000003");
});

Deno.test("forkSession() copies every whole line as it stands: CRLF ends, blank lines, NUL fill, a line longer than the copy buffer", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "src.jsonl");
  const long = user("00000003", "00000002", "y".repeat(3 << 20)); // 3 MiB
  const body = new Uint8Array([
    ...enc.encode(`${JSON.stringify(TWO[0])}\r\n`),
    ...enc.encode("\n"),
    ...new Uint8Array(40), // NUL bytes a crash left, then the next line
    ...enc.encode(`\n${JSON.stringify(TWO[1])}\n`),
    ...enc.encode(`${JSON.stringify(long)}\r\n`),
  ]);
  const head = sessionBytes([]);
  await Deno.writeFile(src, new Uint8Array([...head, ...body]));
  const fork = await forkSession(src);
  assert.deepEqual(fork.issues, []);
  const bytes = await Deno.readFile(fork.path);
  assert.equal(fork.bytes, bytes.length);
  assert.ok(
    Buffer.from(bytes.subarray(afterLine(bytes, 2))).equals(Buffer.from(body)),
    "the body is the source's, byte for byte",
  );
  await using s = await Session.open(fork.path);
  assert.equal(s.leafId, "00000003");
});

Deno.test("forkSession() forks a session whose header is its last line", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "src.jsonl");
  const bytes = sessionBytes([]);
  await Deno.writeFile(src, bytes.subarray(0, bytes.length - 1));
  const fork = await forkSession(src);
  assert.deepEqual(fork.issues.map((i) => i.kind), ["missing-newline"]);
  await using s = await Session.open(fork.path);
  assert.deepEqual([s.issues, s.entries.length], [[], 0]);
  assert.equal(s.header.parentSession, HEADER.id);
});

/**
 * Appends entries of 2–20 KB until `stop` exists or the file reaches 32 MB,
 * each in two writes 3 ms apart (a slow append: the tail is torn most of the
 * time; every 8th line is cut just before its "\n").
 */
const WRITER = `
const [path, stop] = Deno.args;
const file = Deno.openSync(path, { append: true });
const enc = new TextEncoder();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const writeAll = (bytes) => {
  for (let at = 0; at < bytes.length;) at += file.writeSync(bytes.subarray(at));
};
let parent = "00000002";
for (let n = 3; ; n++) {
  try { Deno.statSync(stop); break; } catch { /* go on */ }
  if (file.statSync().size > 32_000_000) break;
  const id = n.toString(16).padStart(8, "0");
  const text = "x".repeat(2_000 + (n * 7919) % 18_000);
  const line = JSON.stringify({ type: "message", id, parentId: parent,
    timestamp: "${T0}", message: { role: "user", content: [{ type: "text", text }] } });
  const bytes = enc.encode(line + "\\n");
  const cut = n % 8 === 0 ? bytes.length - 1 : 1 + (n * 104729) % (bytes.length - 1);
  writeAll(bytes.subarray(0, cut));
  await sleep(3);
  writeAll(bytes.subarray(cut));
  parent = id;
  await sleep(1);
}
file.close();
`;

Deno.test("forkSession() beside a process appending in a loop: every fork opens whole", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "busy.jsonl");
  const stop = join(dir.path, "stop");
  const script = join(dir.path, "writer.ts");
  await Deno.writeFile(src, sessionBytes(TWO));
  await Deno.writeTextFile(script, WRITER);
  const writer = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", script, src, stop],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const forks = join(dir.path, "forks");
  await Deno.mkdir(forks);
  let torn = 0;
  let kept = 0;
  const FORKS = 40;
  try {
    while ((await Deno.stat(src)).size < 1_000_000) {
      await new Promise((r) => setTimeout(r, 10));
    }
    for (let i = 0; i < FORKS; i++) {
      const fork = await forkSession(src, join(forks, `${i}.jsonl`));
      for (const issue of fork.issues) {
        assert.ok(
          issue.kind === "torn-line" || issue.kind === "missing-newline",
          issue.kind,
        );
        if (issue.kind === "torn-line") torn++;
        else kept++;
      }
      await using s = await Session.open(fork.path);
      assert.deepEqual(s.issues, [], `fork ${i}`);
    }
  } finally {
    await Deno.writeTextFile(stop, "");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise((r) => timer = setTimeout(r, 5000));
    const done = await Promise.race([writer.status, late]);
    clearTimeout(timer);
    if (done === undefined) writer.kill(); // our own child, by its handle
    await writer.status;
  }
  // Every fork is the source as it stood at one moment: a prefix of its lines.
  const final = await Deno.readFile(src);
  const body = final.subarray(afterLine(final, 2));
  let longest = 0;
  for (let i = 0; i < FORKS; i++) {
    const bytes = await Deno.readFile(join(forks, `${i}.jsonl`));
    const copied = bytes.subarray(afterLine(bytes, 2));
    assert.ok(
      Buffer.from(copied).equals(Buffer.from(body.subarray(0, copied.length))),
      `fork ${i} is a prefix of the source`,
    );
    longest = Math.max(longest, copied.length);
  }
  console.log(
    `${FORKS} forks beside a writer (source ${final.length} bytes, largest fork body ${longest}): ${torn} torn tails left out, ${kept} entries given their newline, 0 damaged forks`,
  );
});

Deno.test("forkSession() fails fast on a source that is not a regular file", async (t) => {
  await using dir = await tempDir();
  const fifo = join(dir.path, "pipe.jsonl");
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.ok(made.success);
  const cases: [string, string, RegExp][] = [
    ["a FIFO", fifo, /it is a FIFO/],
    ["/dev/zero", "/dev/zero", /it is a character device/],
    ["a folder", dir.path, /it is a folder/],
  ];
  for (const [name, src, why] of cases) {
    await t.step(name, async () => {
      const dst = join(dir.path, "fork.jsonl");
      await assert.rejects(forkSession(src, dst), (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.ok(err.message.startsWith(`Cannot fork "${src}": `));
        assert.match(err.message, why);
        return true;
      });
      assert.deepEqual(await names(dir.path), ["pipe.jsonl"]);
    });
  }
});

Deno.test("forkSession() names what is missing: the destination folder, or the source", async (t) => {
  await using dir = await tempDir();
  const src = join(dir.path, "src.jsonl");
  await Deno.writeFile(src, sessionBytes(TWO));
  await t.step("a destination in a missing folder", async () => {
    const folder = join(dir.path, "nope");
    const dst = join(folder, "fork.jsonl");
    await assert.rejects(
      forkSession(src, dst),
      Deno.errors.NotFound,
      `Cannot fork "${src}" to "${dst}": the folder "${folder}" does not exist`,
    );
  });
  await t.step("a destination under a file", async () => {
    const dst = join(src, "fork.jsonl");
    await assert.rejects(
      forkSession(src, dst),
      Deno.errors.NotADirectory,
      `Cannot fork "${src}" to "${dst}": "${src}" is not a folder`,
    );
  });
  await t.step("a missing source", async () => {
    const gone = join(dir.path, "gone.jsonl");
    await assert.rejects(
      forkSession(gone),
      Deno.errors.NotFound,
      `Cannot fork "${gone}": no such file or directory`,
    );
  });
  assert.deepEqual(await names(dir.path), ["src.jsonl"]);
});
