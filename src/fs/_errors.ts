/**
 * Error messages for filesystem work: what the action was, on which file.
 *
 * @module
 */

import { seam } from "./_seam.ts";

const _DENO_ERRORS: ReadonlySet<unknown> = new Set(Object.values(Deno.errors));

/** Quoted values longer than this are cut (a hostile ref or name stays readable). */
const _QUOTE_MAX_CHARS = 200;

/**
 * A value for an error message: JSON-quoted, so control characters and
 * quotes in a path cannot break the message, and cut when very long.
 *
 * @param value A path or a name.
 * @returns The quoted text.
 */
export function quote(value: unknown): string {
  const text = String(value);
  return JSON.stringify(
    text.length > _QUOTE_MAX_CHARS
      ? `${text.slice(0, _QUOTE_MAX_CHARS)}…`
      : text,
  );
}

/**
 * An error that names the action, a colon, then the state: an OS error
 * ("No space left on device") becomes `<action>: No space left on device`,
 * keeping its class (Deno's error classes), its `code` and the original as
 * `cause`. Errors of
 * this library already say what they could not do and pass unchanged.
 *
 * @param err What was thrown.
 * @param action What could not be done, e.g. `Cannot append to "a.jsonl"`.
 * @returns The error to throw.
 */
export function named(err: unknown, action: string): unknown {
  if (!(err instanceof Error) || err.message.startsWith("Cannot ")) return err;
  // Keep the class of Deno's errors, so `instanceof Deno.errors.NotFound` holds.
  const Class = _DENO_ERRORS.has(err.constructor)
    ? err.constructor as ErrorConstructor
    : Error;
  const out = new Class(`${action}: ${err.message}`, { cause: err });
  const code = (err as { code?: unknown }).code;
  if (code !== undefined) Object.assign(out, { code });
  out.name = err.name;
  return out;
}

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
