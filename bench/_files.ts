/**
 * Generated transcripts shared by the benchmarks, made once and cached in
 * `bench/out/` (not committed).
 *
 * @module
 */

import { join } from "node:path";
import { generateFile, type GenerateOptions } from "../src/gen/generate.ts";

/** Where generated files are cached. */
export const OUT_DIR = new URL("./out/", import.meta.url).pathname;

/**
 * The path of a generated transcript of `size` bytes, generating it first
 * when missing. Same options, same bytes: the name encodes them.
 */
export async function benchFile(
  size: number,
  options: Omit<GenerateOptions, "size"> = {},
  onProgress?: (written: number, total: number) => void,
): Promise<string> {
  await Deno.mkdir(OUT_DIR, { recursive: true });
  const tag = Object.entries(options).filter(([, v]) => typeof v !== "function")
    .map(([k, v]) => `${k}-${Array.isArray(v) ? v.join("_") : v}`).join(".");
  const path = `${OUT_DIR}session-${size}${tag ? `.${tag}` : ""}.jsonl`;
  try {
    await Deno.stat(path);
    return path;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const tmp = `${path}.partial`;
  await generateFile(tmp, {
    size,
    ...options,
    ...(onProgress ? { onProgress } : {}),
  });
  await Deno.rename(tmp, path);
  return path;
}

/**
 * `readdir` of every cwd folder and one `stat` per file: what no list or
 * refresh that sees every change can skip, the floor both are measured
 * against.
 *
 * @param sessions A data dir's `sessions` folder.
 * @param expected How many files it holds (a wrong count throws).
 */
export function readdirAndStat(sessions: string, expected: number): void {
  let files = 0;
  for (const folder of Deno.readDirSync(sessions)) {
    const dir = join(sessions, folder.name);
    for (const file of Deno.readDirSync(dir)) {
      if (Deno.statSync(join(dir, file.name)).size > 0) files++;
    }
  }
  if (files !== expected) throw new Error(`${files} files, not ${expected}`);
}
