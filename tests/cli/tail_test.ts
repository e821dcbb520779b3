import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { Session } from "../../mod.ts";
import {
  cli,
  cliInProcess,
  CONTROL,
  makeDataDir,
  writeHostileSession,
} from "../_cli.ts";
import { sessionBytes, tempDir, user } from "../_session_files.ts";
import { resyncNote } from "../../src/cli/_tail.ts";

const FIXTURES = new URL("../../fixtures/omp/", import.meta.url);
const MAIN = new URL("s1-main.jsonl", FIXTURES).pathname;
const CLI = new URL("../../cli.ts", import.meta.url).pathname;

Deno.test("cli tail prints the last N entries as context renders them", async () => {
  const r = await cli(["tail", MAIN, "-n", "3"]);
  equal(r.code, 0, r.stderr);
  const blocks = r.stdout.trimEnd().split("\n\n");
  equal(blocks.length, 3);
  ok(
    blocks[0]!.startsWith(
      "f621121f 2026-09-28T10:05:06.082Z\n── title_change ──\ntitle: Refactor",
    ),
  );
  equal(
    blocks[2],
    "5ce1f5f1 2026-09-28T10:05:38.159Z\n── assistant (openai/gpt-5.1-codex) ──\nNo flaky tests in this run: 42 passed, 0 failed. 🎉",
  );
  const ten = await cliInProcess(["tail", MAIN]);
  equal(ten.stdout.trimEnd().split("\n\n").length, 10);
});

Deno.test("cli tail --json prints the entries as JSON lines, as written", async () => {
  const r = await cliInProcess(["tail", MAIN, "-n2", "--json"]);
  equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  await using s = await Session.open(MAIN, { resolveBlobs: false });
  deepStrictEqual(lines, s.entries.slice(-2));
});

Deno.test("cli tail sanitizes what it prints", async () => {
  await using d = await makeDataDir();
  const file = join(d.root, "hostile.jsonl");
  await writeHostileSession(file);
  const r = await cliInProcess(["tail", file]);
  equal(r.code, 0, r.stderr);
  ok(!CONTROL.test(r.stdout), JSON.stringify(r.stdout));
});

Deno.test("cli tail -f prints each entry appended, as it comes, until interrupted", async () => {
  await using d = await makeDataDir();
  const file = d.session("s2-main.jsonl");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "tail", file, "-n", "1", "-f", "--json"],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  const until = async (n: number) => {
    while (out.split("\n").length - 1 < n) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`tail ended after: ${out}`);
      out += value;
    }
  };
  // Started: the last entry there is printed (a sign that does not depend
  // on how long a process takes to start, as a sleep did). What comes
  // after the bytes it read is followed.
  await until(1);
  await using s = await Session.open(file);
  await s.appendMessage({ role: "user", content: "first" });
  await until(2);
  await s.appendMessage({ role: "user", content: "second" });
  await until(3);
  child.kill("SIGTERM");
  const status = await child.status;
  await reader.cancel();
  const stderr = await new Response(child.stderr).text();
  equal(status.code, 0, stderr);
  const printed = out.trimEnd().split("\n").map((l) => JSON.parse(l));
  equal(printed[0].id, s.entries.at(-3)!.id); // the last before the appends
  deepStrictEqual(
    printed.slice(1).map((e) => e.message.content),
    ["first", "second"],
  );
});

Deno.test("cli tail: a bad -n is a usage error (2); a missing file fails (1)", async () => {
  const bad = await cliInProcess(["tail", MAIN, "-n", "x"]);
  equal(bad.code, 2);
  ok(bad.stderr.startsWith('error: tail: -n must be a whole number, not "x"'));
  const missing = await cliInProcess(["tail", "/nowhere/x.jsonl"]);
  equal(missing.code, 1);
  equal(
    missing.stderr,
    'error: Cannot read "/nowhere/x.jsonl": no such file or directory\n',
  );
});

/** `cli tail` in a child process, its output gathered as it comes. */
function spawnTail(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "tail", ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const out = { stdout: "", stderr: "" };
  const gather = async (
    stream: ReadableStream<Uint8Array>,
    key: "stdout" | "stderr",
  ) => {
    for await (const s of stream.pipeThrough(new TextDecoderStream())) {
      out[key] += s;
    }
  };
  const done = Promise.all([
    gather(child.stdout, "stdout"),
    gather(child.stderr, "stderr"),
  ]);
  return {
    out,
    /** Wait (10 s at most) until `ready` holds of the output so far. */
    async until(ready: (o: typeof out) => boolean): Promise<void> {
      for (let waited = 0; !ready(out); waited += 20) {
        if (waited > 10_000) throw new Error(`waited for: ${out.stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    /** Interrupt it; its exit code. */
    async stop(): Promise<number> {
      try {
        child.kill("SIGTERM");
      } catch {
        // It has ended already: its status says how.
      }
      const status = await child.status;
      await done;
      return status.code;
    },
    async [Symbol.asyncDispose]() {
      await this.stop();
    },
  };
}

Deno.test("cli tail -f prints a line written again after a rolled-back append, and says from where it went on", async (t) => {
  await using dir = await tempDir();
  const file = join(dir.path, "s.jsonl");
  const line = (id: string, text: string) =>
    `${JSON.stringify(user(id, null, text))}\n`;
  const torn = line("00000009", "x".repeat(200)).slice(0, -20);
  const retry = line("00000009", "written again");
  const ids = (stdout: string) =>
    stdout.trimEnd().split("\n").filter((l) => l !== "").map((l) =>
      JSON.parse(l).id
    );
  const cases = [
    {
      name: "nothing printed yet",
      // A damaged line and no entry: the note for it says tail has read its
      // start, and nothing is printed before the cut.
      body: "not json\n",
      args: ["-n", "5"],
      ready: (o: { stderr: string }) => o.stderr.includes("not JSON"),
      printed: [] as string[],
      note: (at: number) =>
        `! the file was cut short; nothing was printed yet: following on from byte ${at}, the end of the last complete line before the cut\n`,
    },
    {
      name: "an entry printed",
      body: line("00000001", "one"),
      args: ["-n", "1"],
      ready: (o: { stdout: string }) => o.stdout.includes("\n"),
      printed: ["00000001"],
      note: (at: number) =>
        `! the file was cut short; following on after the last entry printed (00000001), at byte ${at}\n`,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      await Deno.writeFile(file, sessionBytes([]));
      await Deno.writeTextFile(file, c.body + torn, { append: true });
      const mark = (await Deno.stat(file)).size - torn.length;
      await using tail = spawnTail([file, ...c.args, "-f", "--json"]);
      await tail.until(c.ready);
      // Its first look, right after the start, reads the torn bytes.
      await new Promise((r) => setTimeout(r, 1000));
      await Deno.truncate(file, mark);
      await Deno.writeTextFile(file, retry, { append: true });
      await tail.until((o) => o.stdout.includes("written again"));
      await tail.until((o) => o.stderr.includes("cut short"));
      equal(await tail.stop(), 0, tail.out.stderr);
      deepStrictEqual(ids(tail.out.stdout), [...c.printed, "00000009"]);
      ok(tail.out.stderr.endsWith(c.note(mark)), tail.out.stderr);
    });
  }
});

Deno.test("resyncNote() names where tail -f goes on in each case", () => {
  equal(
    resyncNote({ reason: "truncated", offset: 300, after: "0000000a" }),
    "the file was cut short; following on after the last entry printed (0000000a), at byte 300",
  );
  equal(
    resyncNote({ reason: "replaced", offset: 300, after: "0000000a" }),
    "the file was replaced; following on after the last entry printed (0000000a), at byte 300",
  );
  equal(
    resyncNote({ reason: "truncated", offset: 300 }),
    "the file was cut short; nothing was printed yet: following on from byte 300, the end of the last complete line before the cut",
  );
  equal(
    resyncNote({ reason: "replaced", offset: 300 }),
    "the file was replaced; nothing was printed yet: following on from byte 300, the end of the new file's last complete line",
  );
});
