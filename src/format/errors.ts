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
