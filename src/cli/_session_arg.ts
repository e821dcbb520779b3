/**
 * The one way every command that takes a session reads its argument: a
 * path (relative to the folder the user typed the command in), a session
 * id or a unique prefix of one (looked up in the data dirs: `--data-dir`,
 * else xdev's, omp's and pi's, each through its session index when it has
 * one, else from the files' heads), or either followed by `#ENTRY` (what
 * `search` prints: `file#entryId`) for an entry of it.
 *
 * An id prefix that more than one session starts with is an error naming
 * them (exit 1); one no session starts with is an error (exit 1) saying
 * where it was looked for.
 *
 * @module
 */

import { fs } from "../_fs.ts";
import type { SessionInfo } from "../store/session_info.ts";
import type { CoveredDataDir } from "./_data_dirs.ts";
import { CliUsageError } from "./_command.ts";
import { userPath } from "./_user_path.ts";

/** A session argument, resolved. */
export interface SessionArg {
  /** The session file (absolute), or a folder for a command that takes one. */
  path: string;
  /** The entry after `#`, when one was named. */
  entryId: string | undefined;
  /** The data dir the id was found in, when it was looked up by id. */
  dataDir: string | undefined;
}

/** How {@linkcode resolveSessionArg} looks. */
export interface SessionArgOptions {
  /** The `--data-dir` values: the data dirs an id is looked up in. */
  dataDirs?: readonly string[];
  /** Where the index's warnings go. */
  onWarning?: (message: string) => void;
}

/** Session ids: UUIDs, or any id a header holds, without a path's separators. */
const _ID_PREFIX = /^[0-9A-Za-z][0-9A-Za-z._-]*$/;

/** Candidates an ambiguous prefix's error names, at most. */
const _NAMED = 8;

/**
 * Resolve a session argument: an existing path first, then `SESSION#ENTRY`,
 * then an id or id prefix.
 *
 * @example A path is taken as it is
 * ```ts
 * import { resolveSessionArg } from "./_session_arg.ts";
 * import { equal } from "node:assert/strict";
 *
 * const file = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url).pathname;
 * const arg = await resolveSessionArg(`${file}#375e1c4f`);
 * equal(arg.path, file);
 * equal(arg.entryId, "375e1c4f");
 * ```
 *
 * @param arg The argument as typed.
 * @param options The data dirs to look an id up in; where warnings go.
 * @returns The file, and the entry when one was named.
 * @throws {Error} `Cannot find the session "<arg>": …` for no match or an
 * ambiguous prefix (exit 1).
 */
export async function resolveSessionArg(
  arg: string,
  options: SessionArgOptions = {},
): Promise<SessionArg> {
  const path = userPath(arg);
  if (await _exists(path)) {
    return { path, entryId: undefined, dataDir: undefined };
  }
  const hash = arg.lastIndexOf("#");
  if (hash > 0 && hash < arg.length - 1) {
    const session = await resolveSessionArg(arg.slice(0, hash), options);
    if (session.entryId === undefined) {
      return { ...session, entryId: arg.slice(hash + 1) };
    }
  }
  // A path (a separator, a .jsonl name): the command's own open says it
  // is missing, in its words.
  if (!_ID_PREFIX.test(arg) || arg.endsWith(".jsonl")) {
    return { path, entryId: undefined, dataDir: undefined };
  }
  // Loaded only to look an id up: a command given a path loads no index.
  const { coveredDataDirs, sessionsIn } = await import("./_data_dirs.ts");
  const covered = await coveredDataDirs(options.dataDirs ?? []);
  const found = await _byId(
    arg.toLowerCase(),
    covered,
    (dataDir) =>
      sessionsIn(
        dataDir,
        { includeSubagents: true },
        { indexed: true, create: false },
        options.onWarning ?? (() => {}),
      ),
  );
  const exact = found.filter((f) =>
    f.session.id.toLowerCase() === arg.toLowerCase()
  );
  const matches = exact.length > 0 ? exact : found;
  const where = covered.length === 0
    ? "no data dir exists (name one with --data-dir D)"
    : `looked in ${covered.map((c) => c.dataDir).join(", ")}`;
  if (matches.length === 0) {
    throw new Error(
      `Cannot find the session ${
        JSON.stringify(arg)
      }: no such file, and no session id starts with it (${where})`,
    );
  }
  const paths = new Set(matches.map((m) => m.session.path));
  if (paths.size > 1) {
    const named = matches.slice(0, _NAMED)
      .map((m) => `${m.session.id} (${m.session.path})`);
    const more = matches.length > _NAMED
      ? `, and ${matches.length - _NAMED} more`
      : "";
    throw new Error(
      `Cannot find the session ${
        JSON.stringify(arg)
      }: ${matches.length} sessions start with it: ${
        named.join(", ")
      }${more}; give more of the id`,
    );
  }
  const [{ session, dataDir }] = matches as [(typeof matches)[0]];
  return { path: session.path, entryId: undefined, dataDir };
}

/** Whether something is at `path`; an error (permission) leaves it to the command's open to word. */
async function _exists(path: string): Promise<boolean> {
  try {
    await fs().stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The sessions (subagents included) whose id starts with `prefix`. */
async function _byId(
  prefix: string,
  covered: readonly CoveredDataDir[],
  list: (dataDir: string) => Promise<SessionInfo[]>,
): Promise<{ session: SessionInfo; dataDir: string }[]> {
  const out: { session: SessionInfo; dataDir: string }[] = [];
  for (const { dataDir } of covered) {
    for (const session of await list(dataDir)) {
      if (session.id.toLowerCase().startsWith(prefix)) {
        out.push({ session, dataDir });
      }
    }
  }
  return out;
}

/**
 * The entry a command stops at: `--at ENTRY`, or the `#ENTRY` of its
 * session argument (the same one when both are given).
 *
 * @param arg The resolved session argument.
 * @param at The `--at` value, when given.
 * @param command The command's name, for the error.
 * @returns The entry id, or undefined for the session's own leaf.
 * @throws {CliUsageError} When `--at` and `#ENTRY` name different entries.
 */
export function entryToStopAt(
  arg: SessionArg,
  at: string | undefined,
  command: string,
): string | undefined {
  if (at === "") throw new CliUsageError(`${command}: --at needs an entry id`);
  if (at !== undefined && arg.entryId !== undefined && at !== arg.entryId) {
    throw new CliUsageError(
      `${command}: --at ${at} and #${arg.entryId} name different entries`,
    );
  }
  return at ?? arg.entryId;
}

/**
 * A usage error for a command that takes a session but no entry of it.
 *
 * @param arg The resolved session argument.
 * @param command The command's name.
 * @throws {CliUsageError} When the argument named an entry.
 */
export function refuseEntry(arg: SessionArg, command: string): void {
  if (arg.entryId === undefined) return;
  throw new CliUsageError(
    `${command}: takes a session, not an entry ("#${arg.entryId}"); context, tree, export and fork take one`,
  );
}
