/**
 * `--helpers N`, shared by the commands whose passes over many files use
 * helper threads (`cli usage`, `cli search`).
 *
 * @module
 */

import type { Call } from "./_command.ts";

/**
 * The value of `--helpers`: a whole number from 0 to 64.
 *
 * @param call The command's call.
 * @returns The count, or undefined when the flag is not given.
 * @throws {CliUsageError} For anything else.
 */
export function helpersFlag<F extends string>(
  call: Call<F | "helpers">,
): number | undefined {
  const text = call.value("helpers");
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 64) {
    throw call.usageError(
      `--helpers must be a whole number from 0 to 64, not "${text}"`,
    );
  }
  return n;
}
