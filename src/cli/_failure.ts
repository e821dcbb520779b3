/**
 * How a command's work fails, the other half of the command helper
 * (`_command.ts`): every error names the action and the file, then the
 * state in plain words, `Cannot open "a.jsonl": no such file or directory`
 * (`_open_session.ts` opens a session file or fails that way).
 *
 * @module
 */

import { OutputClosed } from "./_io.ts";

/**
 * The error for work that failed (exit code 1), worded `Cannot <action>:
 * <state>`. Errors the library already words that way pass through; others
 * (the filesystem's `No such file or directory (os error 2)` …) get `action`
 * in front and their state in plain words.
 *
 * @example A missing file
 * ```ts
 * import { failure } from "./_failure.ts";
 * const err = failure('open "a.jsonl"', new Deno.errors.NotFound("os error 2"));
 * console.assert(
 *   err.message === 'Cannot open "a.jsonl": no such file or directory',
 * );
 * ```
 *
 * @param action What was being done, after `Cannot`: `open "a.jsonl"`.
 * @param err What went wrong (kept as the `cause`).
 * @returns An error to throw or report.
 */
export function failure(action: string, err: unknown): Error {
  if (err instanceof OutputClosed) return err; // not a failure: the CLI exits 0
  if (err instanceof Error && err.message.startsWith("Cannot ")) return err;
  return new Error(`Cannot ${action}: ${_state(err)}`, { cause: err });
}

function _state(err: unknown): string {
  if (err instanceof Deno.errors.NotFound) return "no such file or directory";
  if (err instanceof Deno.errors.AlreadyExists) return "it already exists";
  if (err instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (err instanceof Deno.errors.IsADirectory) return "it is a folder";
  if (err instanceof Deno.errors.NotADirectory) return "not a folder";
  return err instanceof Error ? err.message : String(err);
}

/**
 * Do `work`, or fail with {@linkcode failure}: `Cannot <action>: <state>`.
 *
 * @param action What `work` does, after `Cannot`: `fork "a.jsonl"`.
 * @param work The work.
 * @returns What `work` returns.
 * @throws {Error} What `work` threw, worded by {@linkcode failure}.
 */
export async function attempt<T>(
  action: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw failure(action, err);
  }
}

/**
 * Check that `dir` is a folder, or absent (to be made), before writing there.
 *
 * @param dir The folder.
 * @param action What is done there, after `Cannot`: `open the data dir`.
 * @throws {Error} `Cannot <action> "<dir>": not a folder` for a file.
 */
export async function checkFolder(dir: string, action: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw failure(`${action} "${dir}"`, err);
  }
  if (!info.isDirectory) {
    throw new Error(`Cannot ${action} "${dir}": not a folder`);
  }
}
