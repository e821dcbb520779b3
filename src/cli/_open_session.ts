/**
 * Opening a session file for a command, or failing in the words of
 * `_failure.ts`. Apart from it, so that the commands that open no session
 * do not load the session's modules.
 *
 * @module
 */

import type { SessionOpenOptions } from "../session/options.ts";
import { Session } from "../session/session.ts";
import { attempt } from "./_failure.ts";

/** Options for {@linkcode openSession}. */
export interface OpenSessionOptions
  extends Omit<SessionOpenOptions, "dataDir"> {
  /** Where blobs/ lives: `--data-dir`; undefined for the default. */
  dataDir?: string | undefined;
}

/**
 * Open a session file (never modifying it), or fail with
 * `Cannot open "<file>": <state>`: `no such file or directory`,
 * `it is a folder`, or the loader's own words.
 *
 * @param file The session file.
 * @param options As for `Session.open`; `dataDir` may be undefined.
 * @returns The session; the caller disposes of it.
 * @throws {Error} When it cannot be opened.
 */
export function openSession(
  file: string,
  options: OpenSessionOptions = {},
): Promise<Session> {
  const { dataDir, ...rest } = options;
  const opts = dataDir === undefined ? rest : { ...rest, dataDir };
  return attempt(`open "${file}"`, () => Session.open(file, opts));
}
