/**
 * Asking real omp (the peer oracle, installed in `.cache/omp` by
 * `deno task interop`) from a test. Its output goes through a file: Bun cuts
 * a piped stdout at 64 KiB when the oracle exits.
 */

import { join } from "node:path";

/** The oracle's copy. */
export const OMP: string = new URL("../.cache/omp/", import.meta.url).pathname;
const BUN = join(OMP, "node_modules", ".bin", "bun");

/** Whether the oracle is installed; tests that need it are skipped otherwise. */
export const HAS_OMP: boolean = await Deno.stat(BUN).then(
  () => true,
  () => false,
);

/** What a test's name adds when the oracle is absent. */
export const SKIPPED: string = HAS_OMP
  ? ""
  : " (skipped: run `deno task interop` once)";

/**
 * Run `bun <script> ...args` in the oracle's folder; its exit code, its
 * stdout parsed as JSON (from its first `{` or `[`), and its stderr.
 */
export async function bun(
  script: string,
  args: string[],
): Promise<{ code: number; json: unknown; stderr: string }> {
  const out = await Deno.makeTempFile({ prefix: "xdev-omp-", suffix: ".json" });
  try {
    const r = await new Deno.Command("sh", {
      args: [
        "-c",
        'out="$1"; shift; exec "$0" "$@" > "$out"',
        BUN,
        out,
        script,
        ...args,
      ],
      cwd: OMP,
      stdout: "null",
      stderr: "piped",
    }).output();
    const text = await Deno.readTextFile(out);
    const at = text.search(/[[{]/);
    return {
      code: r.code,
      json: at === -1 ? undefined : JSON.parse(text.slice(at)),
      stderr: new TextDecoder().decode(r.stderr),
    };
  } finally {
    await Deno.remove(out);
  }
}

/** `bun oracle.ts ...args`: exit code and the JSON it printed. */
export async function oracle(
  args: string[],
): Promise<{ code: number; json: Record<string, unknown> }> {
  const r = await bun("oracle.ts", args);
  return { code: r.code, json: (r.json ?? {}) as Record<string, unknown> };
}
