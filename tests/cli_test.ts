import { deepStrictEqual, equal, ok } from "node:assert/strict";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const FIXTURES = new URL("../fixtures/omp/", import.meta.url);

/** Run the CLI as a subprocess. */
export async function cli(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", CLI, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

Deno.test("cli context --json prints omp's fields for a fixture", async () => {
  const file = new URL("s2-reset.jsonl", FIXTURES).pathname;
  const r = await cli("context", file, "--json");
  equal(r.code, 0, r.stderr);
  const actual = JSON.parse(r.stdout);
  const expected = JSON.parse(
    await Deno.readTextFile(new URL("s2-reset.context.json", FIXTURES)),
  );
  for (
    const k of [
      "title",
      "titleSource",
      "leafId",
      "activePath",
      "models",
      "model",
      "thinkingLevel",
      "labels",
      "messages",
    ]
  ) {
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

Deno.test("cli exit codes: 2 for bad usage, 1 for a file that cannot be read", async (t) => {
  await t.step("no arguments", async () => equal((await cli()).code, 2));
  await t.step("an unknown command", async () => {
    const r = await cli("frobnicate");
    equal(r.code, 2);
    ok(r.stderr.includes('unknown command "frobnicate"'));
  });
  await t.step(
    "an unknown option",
    async () => equal((await cli("context", "x", "--nope")).code, 2),
  );
  await t.step("a missing file", async () => {
    const r = await cli("context", "/nonexistent/x.jsonl");
    equal(r.code, 1);
    ok(r.stderr.startsWith("error: "));
  });
  await t.step("--help", async () => {
    const r = await cli("context", "--help");
    equal(r.code, 0);
    ok(r.stdout.startsWith("Usage: cli context"));
  });
});
