import { deepStrictEqual, equal, ok } from "node:assert/strict";
import type { ContextMessage } from "../../mod.ts";
import { CONTEXT_JSON_FIELDS } from "../../src/context/context_json.ts";
import { openSession, renderMessage } from "../../src/cli/_context.ts";
import { join } from "node:path";
import {
  cli as run,
  cliCases,
  cliInProcess,
  CONTROL,
  makeDataDir,
  writeHostileSession,
} from "../_cli.ts";
import { tempDir } from "../_session_files.ts";

const FIXTURES = new URL("../../fixtures/omp/", import.meta.url);
const cli = (...args: string[]) => run(args);

Deno.test("cli context --json prints omp's fields for a fixture", async () => {
  const file = new URL("s2-reset.jsonl", FIXTURES).pathname;
  const r = await cli("context", file, "--json");
  equal(r.code, 0, r.stderr);
  const actual = JSON.parse(r.stdout);
  const expected = JSON.parse(
    await Deno.readTextFile(new URL("s2-reset.context.json", FIXTURES)),
  );
  for (const k of CONTEXT_JSON_FIELDS) {
    deepStrictEqual(actual[k], expected[k], k);
  }
});

Deno.test("cli context prints a readable transcript", async () => {
  const r = await cli("context", new URL("s1-main.jsonl", FIXTURES).pathname);
  equal(r.code, 0, r.stderr);
  ok(r.stdout.startsWith("# Refactor 🛠️"));
  ok(r.stdout.includes("── summary of earlier history ──"));
  ok(r.stdout.includes("[image image/png,"));
});

Deno.test("renderMessage() heads each role and lays out its blocks", () => {
  const render = (m: Record<string, unknown>) =>
    renderMessage(m as unknown as ContextMessage);
  equal(
    render({ role: "user", content: "plain text" }),
    "── user ──\nplain text",
  );
  equal(
    render({
      role: "assistant",
      provider: "openai",
      model: "gpt-5.1-codex",
      content: [
        { type: "thinking", thinking: "hmm" },
        { type: "text", text: "Done." },
        { type: "toolCall", name: "read", arguments: { path: "a.ts" } },
        { type: "image", mimeType: "image/png", data: "AAAA" },
        { type: "image", mimeType: "image/png", data: "blob:sha256:00" },
        { type: "other" },
      ],
    }),
    "── assistant (openai/gpt-5.1-codex) ──\n(thinking) hmm\nDone.\n" +
      '→ read({"path":"a.ts"})\n[image image/png, 3 bytes]\n' +
      "[image image/png, blob missing]\n[other]",
  );
  equal(
    render({
      role: "toolResult",
      toolName: "bash",
      isError: true,
      content: [],
    }),
    "── bash result (error) ──\n",
  );
  equal(
    render({
      role: "custom",
      customType: "note",
      display: false,
      content: "x",
    }),
    "── note (hidden) ──\nx",
  );
  equal(
    render({ role: "compactionSummary", summary: "S" }),
    "── summary of earlier history ──\nS",
  );
  equal(
    render({ role: "branchSummary", summary: "B" }),
    "── summary of an abandoned branch ──\nB",
  );
});

Deno.test("cli context: bad usage is exit code 2", async () => {
  const cases = [
    ["context"],
    ["context", "a.jsonl", "b.jsonl"],
    ["context", "a.jsonl", "--rule", "pi"],
    ["context", "a.jsonl", "--rule"],
  ];
  for (const [i, r] of (await cliCases(cases)).entries()) {
    equal(r.code, 2, cases[i]!.join(" "));
    ok(r.stderr.startsWith("error: "), r.stderr);
  }
  const [rule] = await cliCases([["context", "a.jsonl", "--rule=pi"]]);
  ok(
    rule!.stderr.startsWith(
      'error: context: --rule must be xdev or omp, not "pi"\n',
    ),
  );
});

Deno.test("cli context prints no terminal escape from the file", async () => {
  await using d = await makeDataDir();
  const file = join(d.root, "hostile.jsonl");
  await writeHostileSession(file);
  const r = await cliInProcess(["context", file]);
  equal(r.code, 0, r.stderr);
  ok(!CONTROL.test(r.stdout), JSON.stringify(r.stdout));
  // Each escape became spaces; the text around it is still there.
  ok(r.stdout.startsWith("# T  ]52;c;aGFjaw==  [2J  31m\n"), r.stdout);
  for (const s of ["hi ", " there", "ok ", "→ read ", "out ", "── read "]) {
    ok(r.stdout.includes(s), s);
  }
  ok(r.stdout.includes("── assistant (p ]52;"));
  // --json escapes them itself.
  const json = await cliInProcess(["context", file, "--json"]);
  equal(json.code, 0, json.stderr);
  ok(!CONTROL.test(json.stdout.replaceAll("\u009b", "")));
});

Deno.test("cli context: a missing file or a folder is exit code 1, naming the file", async () => {
  await using d = await makeDataDir();
  const missing = join(d.root, "nope.jsonl");
  const [gone, folder] = await cliCases([
    ["context", missing],
    ["context", d.sessions],
  ]);
  equal(gone!.code, 1);
  equal(
    gone!.stderr,
    `error: Cannot open "${missing}": no such file or directory\n`,
  );
  equal(folder!.code, 1);
  equal(
    folder!.stderr,
    `error: Cannot open "${d.sessions}": it is a folder\n`,
  );
});

Deno.test("openSession() fails naming the file: missing, a folder", async () => {
  await using dir = await tempDir();
  const missing = join(dir.path, "nope.jsonl");
  const err = async (p: string) => (await openSession(p).catch((e) => e));
  equal(
    (await err(missing)).message,
    `Cannot open "${missing}": no such file or directory`,
  );
  equal(
    (await err(dir.path)).message,
    `Cannot open "${dir.path}": it is a folder`,
  );
});
