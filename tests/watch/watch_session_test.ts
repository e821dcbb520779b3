import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { Session, type SessionEntry, watchSession } from "../../mod.ts";
import { marshalTitleSlot } from "../../src/format/title_slot.ts";
import { sessionBytes, tempDir, user } from "../_session_files.ts";
import { append, follow } from "./_watch.ts";

const WORKER = new URL("../_append_worker.ts", import.meta.url).pathname;
const line = (e: Record<string, unknown>) => `${JSON.stringify(e)}\n`;

async function sessionFile(dir: string, entries = 1): Promise<string> {
  const file = join(dir, "s.jsonl");
  const list = Array.from(
    { length: entries },
    (_, i) => user(`0000000${i + 1}`, i === 0 ? null : `0000000${i}`, `m${i}`),
  );
  await Deno.writeFile(file, sessionBytes(list));
  return file;
}

Deno.test("watchSession() yields what another process appends, in order, each once", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path);
  await using f = await follow(file);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", WORKER, file, "1", "60", "1"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const seen: number[] = [];
  for (let k = 0; k < 60; k++) {
    const e = await f.next();
    const m = (e as { message: { content: string | { text: string }[] } })
      .message;
    const text = typeof m.content === "string" ? m.content : m.content[0]!.text;
    seen.push(JSON.parse(text).i);
  }
  deepStrictEqual(seen, Array.from({ length: 60 }, (_, i) => i));
  ok(await f.quiet(300), "nothing more");
});

Deno.test("watchSession() never yields a torn line: a line written in pieces comes once, whole", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path);
  await using f = await follow(file);
  const text = line(user("00000002", "00000001", "x".repeat(100_000)));
  await append(file, text.slice(0, 50_000));
  ok(await f.quiet(300));
  await append(file, text.slice(50_000, -1)); // all but the "\n"
  ok(await f.quiet(300));
  await append(file, "\n");
  const e = await f.next();
  equal(e.id, "00000002");
  ok(await f.quiet(200));
});

Deno.test("watchSession() ignores the title slot's rewrite; a rename yields its title_change", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path);
  await using f = await follow(file);
  // A rewrite of bytes 0-255 in place, as omp's rename does it.
  {
    using h = await Deno.open(file, { write: true });
    await h.write(
      marshalTitleSlot({
        title: "Renamed",
        source: "manual",
        updatedAt: "2026-10-01T10:00:00.000Z",
      }),
    );
  }
  ok(await f.quiet(300));
  await using s = await Session.open(file);
  await s.setTitle("Renamed again");
  const e = await f.next();
  equal(e.type, "title_change");
  equal((e as { title?: string }).title, "Renamed again");
  ok(await f.quiet(300));
});

Deno.test("watchSession() reports a complete line that is not an entry, and goes on", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path);
  const issues: string[] = [];
  await using f = await follow(file, { onIssue: (i) => issues.push(i.kind) });
  await append(
    file,
    `not json\n[1]\n${line(user("00000002", "00000001", "ok"))}`,
  );
  equal((await f.next()).id, "00000002");
  deepStrictEqual(issues, ["not-json", "not-an-entry"]);
});

Deno.test("watchSession() re-syncs past a cut of bytes it had not yielded (a rolled-back append)", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path);
  const size = (await Deno.stat(file)).size;
  const resyncs: string[] = [];
  await using f = await follow(file, {
    onResync: (r) => resyncs.push(`${r.reason}@${r.offset}`),
  });
  await append(file, line(user("00000002", "00000001", "kept")));
  equal((await f.next()).id, "00000002");
  const kept = (await Deno.stat(file)).size;
  await append(file, '{"type":"message","id":"torn');
  ok(await f.quiet(500)); // read, and waiting for its end
  await Deno.truncate(file, kept);
  await append(file, line(user("00000003", "00000002", "after")));
  equal((await f.next()).id, "00000003");
  deepStrictEqual(resyncs, [`truncated@${kept}`]);
  ok(kept > size);
});

Deno.test("watchSession() ends with a clear error when a cut removes an entry it yielded", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path);
  const before = (await Deno.stat(file)).size;
  await using f = await follow(file);
  await append(file, line(user("00000002", "00000001", "soon gone")));
  equal((await f.next()).id, "00000002");
  await Deno.truncate(file, before);
  const err = await f.end();
  ok(err instanceof Error);
  ok(
    /^Cannot follow ".*s.jsonl": the file was cut short and no longer holds the last entry read \(00000002\); open it again$/
      .test(err.message),
    err.message,
  );
});

Deno.test("watchSession() follows a replacement (a whole rewrite) from the last entry it yielded", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path, 3);
  const resyncs: string[] = [];
  await using f = await follow(file, {
    onResync: (r) => resyncs.push(r.reason),
  });
  await append(file, line(user("00000004", "00000003", "four")));
  equal((await f.next()).id, "00000004");
  // omp rewrites a file whole through a temp file and a rename.
  const tmp = join(dir.path, ".s.jsonl.tmp");
  await Deno.writeFile(
    tmp,
    sessionBytes(
      ["1", "2", "3", "4", "5"].map((n, i) =>
        user(`0000000${n}`, i === 0 ? null : `0000000${i}`, `m${n}`)
      ),
    ),
  );
  await Deno.rename(tmp, file);
  equal((await f.next()).id, "00000005");
  deepStrictEqual(resyncs, ["replaced"]);
  await append(file, line(user("00000006", "00000005", "six")));
  equal((await f.next()).id, "00000006");
});

Deno.test("watchSession() starts where asked: the start, the last N entries, an offset; follow: false ends", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path, 5);
  const ids = async (options: Parameters<typeof watchSession>[1]) => {
    const out: string[] = [];
    for await (const e of watchSession(file, { ...options, follow: false })) {
      out.push(e.id);
    }
    return out;
  };
  deepStrictEqual(await ids({ from: "start" }), [
    "00000001",
    "00000002",
    "00000003",
    "00000004",
    "00000005",
  ]);
  deepStrictEqual(await ids({ from: { last: 2 } }), ["00000004", "00000005"]);
  deepStrictEqual(await ids({ from: { last: 0 } }), []);
  deepStrictEqual(await ids({}), []);
  const text = await Deno.readTextFile(file);
  const third = text.indexOf('{"type":"message","id":"00000003"');
  deepStrictEqual(
    await ids({ from: new TextEncoder().encode(text.slice(0, third)).length }),
    [
      "00000003",
      "00000004",
      "00000005",
    ],
  );
  await rejects(
    ids({ from: third + 1 }),
    /^RangeError: Cannot read ".*" from byte \d+: no line starts there/,
  );
  await rejects(ids({ from: { last: -1 } }), RangeError);
  await rejects(ids({ pollInterval: 0 }), RangeError);
  // A last line being written is not an entry yet: { last } ends before it.
  await append(file, '{"type":"message","id":"00000006"');
  deepStrictEqual(await ids({ from: { last: 1 } }), ["00000005"]);
});

Deno.test("watchSession(): an abort ends the iteration while it waits, and releases the watcher", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path);
  const abort = new AbortController();
  const it = watchSession(file, { signal: abort.signal });
  const next = it.next();
  await new Promise((r) => setTimeout(r, 100));
  abort.abort();
  deepStrictEqual(await next, { value: undefined, done: true });
  const already = watchSession(file, { signal: abort.signal });
  deepStrictEqual(await already.next(), { value: undefined, done: true });
});

Deno.test("watchSession() refuses a version 1 file, whose ids are minted from its start", async () => {
  const v1 =
    new URL("../../fixtures/pi/large-session-v1.jsonl", import.meta.url)
      .pathname;
  await rejects(
    watchSession(v1, { follow: false }).next(),
    /^Error: Cannot read ".*": a version 1 file has no entry ids \(fork it to read it entry by entry\)$/,
  );
});

Deno.test("Session.watch() yields another writer's appends; a session not on disk cannot be watched", async () => {
  await using dir = await tempDir();
  await using s = await Session.create({
    cwd: "/home/dev/app",
    dataDir: dir.path,
  });
  let message = "";
  try {
    s.watch();
  } catch (err) {
    message = (err as Error).message;
  }
  equal(message, "Cannot watch the session: it is not on disk yet");
  await s.ensureOnDisk();
  const watching = s.watch({ from: "start" });
  const next = watching.next();
  await using other = await Session.open(s.path!);
  await other.appendMessage({ role: "user", content: "from another writer" });
  const e = (await next).value as SessionEntry;
  equal(e.type, "message");
  await watching.return();
});

Deno.test("watchSession() ends with a not-found error when the file is removed", async () => {
  await using dir = await tempDir();
  const file = await sessionFile(dir.path);
  await using f = await follow(file, { pollInterval: 50 });
  await Deno.remove(file);
  const err = await f.end();
  ok(err instanceof Deno.errors.NotFound, String(err));
  equal((err as { code?: string }).code, "ENOENT");
  ok(/^Cannot follow ".*s.jsonl": the file was removed$/.test(err.message));
});
