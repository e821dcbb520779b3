import { ok } from "node:assert/strict";
import { cliInProcess, makeDataDir } from "../_cli.ts";

/** Run `work` with NO_COLOR set to `value` (undefined: unset), then put it back. */
async function withNoColor<T>(
  value: string | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const before = Deno.env.get("NO_COLOR");
  const set = (v: string | undefined) =>
    v === undefined ? Deno.env.delete("NO_COLOR") : Deno.env.set("NO_COLOR", v);
  set(value);
  try {
    return await work();
  } finally {
    set(before);
  }
}

Deno.test("cli NO_COLOR (any non-empty value) and a non-terminal output mean no escape at all", async (t) => {
  await using d = await makeDataDir();
  const runs = {
    search: ["search", "--data-dir", d.root, "--limit", "3", "readslot"],
    tree: ["tree", d.session("s1-main.jsonl")],
  };
  for (const [name, args] of Object.entries(runs)) {
    await t.step(name, async () => {
      const coloured = await withNoColor(
        undefined,
        () => cliInProcess(args, { isTerminal: true }),
      );
      ok(coloured.stdout.includes("\x1b["), "a terminal gets colours");
      for (const value of ["1", "true", "0"]) {
        const r = await withNoColor(
          value,
          () => cliInProcess(args, { isTerminal: true }),
        );
        ok(r.stdout.length > 0 && !r.stdout.includes("\x1b"), value);
        ok(!r.stderr.includes("\x1b"), value);
      }
      const empty = await withNoColor(
        "",
        () => cliInProcess(args, { isTerminal: true }),
      );
      ok(empty.stdout.includes("\x1b["), "an empty NO_COLOR is unset");
      const piped = await withNoColor(undefined, () => cliInProcess(args));
      ok(piped.stdout.length > 0 && !piped.stdout.includes("\x1b"), "a pipe");
    });
  }
});
