/**
 * Error messages for filesystem work: what the action was, on which file.
 *
 * @module
 */

import { seam } from "./_seam.ts";

export { named, quote } from "../format/errors.ts";

/**
 * Remove a file after a failed write, keeping the write's error: a missing
 * file is fine; a failed removal joins both errors.
 *
 * @param path The file to remove.
 * @param cause The write's error.
 * @param message The joined error's message.
 * @throws {AggregateError} When the removal fails.
 */
export async function removeAfter(
  path: string,
  cause: unknown,
  message: string,
): Promise<void> {
  try {
    await seam().remove(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new AggregateError([cause, err], message);
    }
  }
}

/**
 * {@linkcode removeAfter}, synchronously (for the lock's short calls).
 *
 * @param path The file to remove.
 * @param cause The write's error.
 * @param message The joined error's message.
 * @throws {AggregateError} When the removal fails.
 */
export function removeAfterSync(
  path: string,
  cause: unknown,
  message: string,
): void {
  try {
    seam().removeSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new AggregateError([cause, err], message);
    }
  }
}
