/**
 * Paths as the user typed them: relative to the folder the command was
 * typed in. `deno task cli` runs in the project's folder, not the user's,
 * and Deno says where the user was in `INIT_CWD` (as npm does); a relative
 * session path, data dir or output file is resolved against it, else
 * against the process's folder. The one place the CLI resolves a path it
 * was given.
 *
 * @module
 */

import { resolve } from "node:path";
import process from "node:process";

/**
 * The folder the user typed the command in: `INIT_CWD` when set (a Deno or
 * npm task), else the process's.
 *
 * @returns An absolute path.
 */
export function userCwd(): string {
  let init: string | undefined;
  try {
    init = process.env.INIT_CWD;
  } catch {
    init = undefined; // no permission to read the environment: the process's
  }
  return init !== undefined && init !== "" ? resolve(init) : process.cwd();
}

/**
 * A path the user gave, made absolute against {@linkcode userCwd}.
 *
 * @example From a task run in another folder
 * ```ts
 * import { userPath } from "./_user_path.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(userPath("/abs/a.jsonl"), "/abs/a.jsonl");
 * ```
 *
 * @param path The path as typed.
 * @returns The absolute path.
 */
export function userPath(path: string): string {
  return resolve(userCwd(), path);
}

/**
 * {@linkcode userPath} of an option's value, when it was given.
 *
 * @param path The path as typed, or undefined.
 * @returns The absolute path, or undefined.
 */
export function userPathOf(path: string | undefined): string | undefined {
  return path === undefined ? undefined : userPath(path);
}
