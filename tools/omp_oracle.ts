/**
 * The omp peer oracle (real omp 18.3.4 under Bun, in `../shared/peers/omp`),
 * installed once in a writable copy under `.cache/omp`, and a way to ask it.
 *
 * @module
 */

import { join } from "node:path";

const SHARED = new URL("../../shared/peers/omp/", import.meta.url).pathname;
const CACHE = new URL("../.cache/omp/", import.meta.url).pathname;

/**
 * The oracle's folder, installing it first when needed; undefined (with a
 * message on stderr) where `../shared/peers/omp` is absent or the install
 * fails.
 */
export async function ompOracle(who: string): Promise<string | undefined> {
  try {
    await Deno.stat(join(SHARED, "oracle.ts"));
  } catch {
    console.error(
      `${who}: ../shared/peers/omp is absent: skipping what needs omp`,
    );
    return undefined;
  }
  try {
    await Deno.stat(join(CACHE, "node_modules", ".bin", "bun"));
    return CACHE;
  } catch {
    // install below
  }
  console.error(
    `${who}: installing the omp oracle in .cache/omp (npm install, once)`,
  );
  await Deno.mkdir(CACHE, { recursive: true });
  await new Deno.Command("cp", { args: ["-r", `${SHARED}.`, CACHE] }).output();
  await new Deno.Command("chmod", { args: ["-R", "u+w", CACHE] }).output();
  const r = await new Deno.Command("npm", {
    args: ["install", "--no-audit", "--no-fund"],
    cwd: CACHE,
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!r.success) {
    console.error(
      `${who}: npm install of the omp oracle failed: skipping what needs omp`,
    );
    return undefined;
  }
  return CACHE;
}

/** Run `npx bun oracle.ts ...args` in the oracle's folder; its exit code and stdout parsed as JSON. */
export async function askOmp(
  oracle: string,
  args: string[],
): Promise<
  { code: number; json: Record<string, unknown> | undefined; stderr: string }
> {
  const out = await new Deno.Command("npx", {
    args: ["bun", "oracle.ts", ...args],
    cwd: oracle,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { code: out.code, json, stderr: new TextDecoder().decode(out.stderr) };
}
