/**
 * Generated transcripts shared by the benchmarks, made once and cached in
 * `bench/out/` (not committed).
 *
 * @module
 */

import { generateFile, type GenerateOptions } from "../src/gen/_generate.ts";

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
