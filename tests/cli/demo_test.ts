import { equal, ok } from "node:assert/strict";
import { dirname, join } from "node:path";
import { Session } from "../../mod.ts";
import {
  checkFolder,
  writeMainSession,
  writeResetSession,
  writeSubagentSession,
} from "../../src/cli/_demo.ts";
import { cli } from "../_cli.ts";
import { tempDir } from "../_session_files.ts";

Deno.test("cli demo writes sessions through the API, lists them and prints a context", async () => {
  await using dir = await tempDir();
  const r = await cli(["demo", "--data-dir", dir.path]);
  equal(r.code, 0, r.stderr);
  ok(r.stdout.startsWith(`Writing demo sessions to ${dir.path}\n`));
  ok(r.stdout.includes("listSessions() finds 3 sessions"));
  ok(r.stdout.includes("── summary of an abandoned branch ──"));
  ok(
    r.stdout.includes("[image image/png, 1536 bytes]"),
    "the image came back from the blob store",
  );
  const files: string[] = [];
  for await (const e of Deno.readDir(`${dir.path}/sessions`)) {
    for await (const f of Deno.readDir(`${dir.path}/sessions/${e.name}`)) {
      if (f.isFile && f.name.endsWith(".jsonl")) {
        files.push(`${dir.path}/sessions/${e.name}/${f.name}`);
      }
    }
  }
  equal(files.length, 3);
  for (const f of files) {
    await using s = await Session.open(f);
    equal(s.issues.length, 0, f);
    equal((await Deno.stat(f)).mode! & 0o777, 0o600);
  }
  let blobs = 0;
  for await (const _ of Deno.readDir(`${dir.path}/blobs`)) blobs++;
  equal(blobs, 2, "the image and its .png twin");
});

Deno.test("cli demo without --data-dir uses a fresh temporary data dir and says where", async () => {
  const r = await cli(["demo"]);
  equal(r.code, 0, r.stderr);
  const where = /^Writing demo sessions to (\S+) \(a fresh temporary data dir\)/
    .exec(r.stdout)?.[1];
  ok(where !== undefined, r.stdout.slice(0, 200));
  ok((await Deno.stat(`${where}/sessions`)).isDirectory);
  await Deno.remove(where, { recursive: true });
});

Deno.test("cli demo --data-dir naming a file is exit code 1, before writing anything", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/afile`;
  await Deno.writeTextFile(file, "not a folder\n");
  const r = await cli(["demo", "--data-dir", file]);
  equal(r.code, 1);
  equal(r.stdout, "");
  equal(
    r.stderr,
    `error: Cannot open the data dir "${file}": not a folder\n`,
  );
  equal(await Deno.readTextFile(file), "not a folder\n");
});

Deno.test("writeMainSession() and its children load without damage", async (t) => {
  await using dir = await tempDir();
  let tick = 0;
  const now = () => new Date(Date.UTC(2026, 10, 30, 9) + 1000 * tick++);
  const main = await writeMainSession(dir.path, now);
  await t.step(
    "the main session: renamed, compacted, with an image blob",
    async () => {
      await using s = await Session.open(main);
      equal(s.issues.length, 0);
      equal(s.title, "Fix CRLF handling in loadBlobs 🛠️");
      const ctx = s.buildContext();
      equal(ctx.model, "openai/gpt-5.1-codex");
      equal(ctx.thinkingLevel, "high");
      ok(ctx.messages.some((m) => m.role === "compactionSummary"));
    },
  );
  await t.step(
    "the subagent child, in the main session's artifacts folder",
    async () => {
      const child = await writeSubagentSession(dir.path, main, now);
      equal(dirname(child), main.slice(0, -".jsonl".length));
      await using s = await Session.open(child);
      equal(s.header.parentSession, main);
      equal(s.issues.length, 0);
    },
  );
  await t.step("the reset session keeps what follows the reset", async () => {
    await using s = await Session.open(await writeResetSession(dir.path, now));
    equal(s.title, "Quick questions");
    equal(s.buildContext().messages.length, 2);
  });
});

Deno.test("checkFolder() accepts a folder or nothing, and refuses a file", async () => {
  await using dir = await tempDir();
  await checkFolder(dir.path, "use");
  await checkFolder(join(dir.path, "absent"), "use");
  const file = join(dir.path, "f");
  await Deno.writeTextFile(file, "");
  const err = await checkFolder(file, "open the data dir").catch((e) => e);
  equal(err.message, `Cannot open the data dir "${file}": not a folder`);
});
