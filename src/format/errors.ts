/**
 * Errors the store throws for bytes it cannot read.
 *
 * @module
 */

/** Where in a session file a problem sits. */
export interface SessionSyntaxErrorOptions {
  /** The file, or a name for the stream that was read. */
  path: string;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the start of that line. */
  offset: number;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * The bytes of a session file cannot be read as a session: the header is
 * missing or malformed, or it names a version this library does not know.
 *
 * Messages name the file and the position, never the content of the line.
 *
 * @example Catching an unreadable header
 * ```ts
 * import { SessionSyntaxError } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 * const err = new SessionSyntaxError("the header is not a JSON object", {
 *   path: "a.jsonl",
 *   line: 2,
 *   offset: 256,
 * });
 * equal(err instanceof SyntaxError, true);
 * equal(err.line, 2);
 * equal(
 *   err.message,
 *   'Cannot read session "a.jsonl": the header is not a JSON object (line 2, byte 256)',
 * );
 * ```
 */
export class SessionSyntaxError extends SyntaxError {
  /** What is wrong, without the line's content. */
  readonly reason: string;
  /** The file, or a name for the stream that was read. */
  readonly path: string;
  /** 1-based line number. */
  readonly line: number;
  /** Byte offset of the start of that line. */
  readonly offset: number;

  /**
   * Build the error from what is wrong and where.
   *
   * @param reason What is wrong, without the line's content.
   * @param options Where it is wrong.
   */
  constructor(reason: string, options: SessionSyntaxErrorOptions) {
    super(
      `Cannot read session "${options.path}": ${reason} (line ${options.line}, byte ${options.offset})`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "SessionSyntaxError";
    this.reason = reason;
    this.path = options.path;
    this.line = options.line;
    this.offset = options.offset;
  }
}

/** Quoted values longer than this are cut (a hostile ref or name stays readable). */
const _QUOTE_MAX_CHARS = 200;

/**
 * A value for an error message: JSON-quoted, so control characters and
 * quotes in a path cannot break the message, and cut when very long.
 *
 * @param value A path or a name.
 * @returns The quoted text.
 *
 * @example Quoting a path with a newline in it
 * ```ts
 * import { quote } from "./errors.ts";
 * import { equal } from "node:assert/strict";
 * equal(quote("a\nb.jsonl"), '"a\\nb.jsonl"');
 * ```
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
 * keeping its class (so `instanceof` still holds), its `name`, its `code` and
 * the original as `cause`. Errors of this library already say what they
 * could not do (their message starts with "Cannot ") and pass unchanged.
 *
 * @param err What was thrown.
 * @param action What could not be done, e.g. `Cannot append to "a.jsonl"`.
 * @returns The error to throw.
 *
 * @example Naming the action of an OS error
 * ```ts
 * import { named } from "./errors.ts";
 * import { equal } from "node:assert/strict";
 * const os = Object.assign(new RangeError("No space left on device"), { code: "ENOSPC" });
 * const err = named(os, 'Cannot append to "a.jsonl"') as RangeError & { code: string };
 * equal(err.message, 'Cannot append to "a.jsonl": No space left on device');
 * equal(err instanceof RangeError, true);
 * equal(err.code, "ENOSPC");
 * ```
 */
export function named(err: unknown, action: string): unknown {
  if (!(err instanceof Error) || err.message.startsWith("Cannot ")) return err;
  const out = new Error(`${action}: ${err.message}`, { cause: err });
  Object.setPrototypeOf(out, Object.getPrototypeOf(err));
  const code = (err as { code?: unknown }).code;
  if (code !== undefined) Object.assign(out, { code });
  out.name = err.name;
  return out;
}
