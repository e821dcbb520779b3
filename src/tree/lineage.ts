/**
 * A session's lineage across files: the chain of sessions it was forked or
 * branched from, and the sessions forked or branched from it in its data
 * dir.
 *
 * @module
 */

import { basename, dirname, resolve } from "node:path";
import { openRegular } from "../read/_open.ts";
import { readHead } from "../read/_head.ts";
import { findDataDir } from "../store/data_dir.ts";
import { listSessions, type SessionInfo } from "../store/list.ts";
import { parseSessionFileName } from "../store/places.ts";
import { sessionInfo } from "../store/session_info.ts";

/** What {@linkcode sessionLineage} finds. */
export interface SessionLineage {
  /** The session asked about (as {@linkcode listSessions} describes one). */
  session: SessionInfo;
  /** Its parent, the parent's parent …, nearest first. */
  parents: SessionInfo[];
  /** A `parentSession` the chain could not follow (no such session found). */
  unresolved?: string;
  /**
   * The sessions whose `parentSession` names this one (forks, branched
   * sessions, subagents), oldest first.
   */
  forks: SessionInfo[];
  /** The data dir searched; undefined when none was found. */
  dataDir?: string;
}

/** Options for {@linkcode sessionLineage}. */
export interface SessionLineageOptions {
  /**
   * The data dir to search. Default: the nearest ancestor of the file that
   * holds `blobs/`, else the data dir of a file in `<dataDir>/sessions/<slug>/`.
   */
  dataDir?: string;
}

/** Links followed at most up a chain (a longer one is a loop). */
const _MAX_CHAIN = 64;

/**
 * The lineage of a session file. A `parentSession` holding a session id
 * (omp's `fork()`) is found by id among the data dir's sessions; one
 * holding a path (a branched session, a subagent) is found at that path,
 * or, when the file moved, by the session id in its file name. Reads the
 * first bytes of each file only.
 *
 * @example A fork and its parent
 * ```ts
 * import { forkSession, Session } from "@xdev/session";
 * import { sessionLineage } from "./lineage.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using s = await Session.create({ cwd: "/home/dev/app", dataDir });
 *   await s.appendMessage({ role: "user", content: "hi" });
 *   await s.ensureOnDisk();
 *   const fork = await forkSession(s.path!);
 *   const down = await sessionLineage(s.path!, { dataDir });
 *   equal(down.forks.length, 1);
 *   const up = await sessionLineage(fork.path, { dataDir });
 *   equal(up.parents[0]?.id, s.header.id);
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 *
 * @param path A session file.
 * @param options The data dir to search.
 * @returns The session, its parents and its forks.
 * @throws {Error} `Cannot read the lineage of "<path>": …` when the file
 * cannot be read; {@linkcode SessionSyntaxError} when it has no header.
 */
export async function sessionLineage(
  path: string,
  options: SessionLineageOptions = {},
): Promise<SessionLineage> {
  const self = await _read(path, `Cannot read the lineage of "${path}"`);
  const dataDir = options.dataDir ?? await findDataDir(path);
  const known = dataDir === undefined
    ? []
    : await listSessions(dataDir, { includeSubagents: true });
  const lineage: SessionLineage = { session: self, parents: [], forks: [] };
  if (dataDir !== undefined) lineage.dataDir = dataDir;
  const seen = new Set([self.id]);
  for (let at = self; at.parentSession !== undefined;) {
    const parent = await _find(at.parentSession, at.path, known);
    if (parent === undefined) {
      lineage.unresolved = at.parentSession;
      break;
    }
    if (seen.has(parent.id) || seen.size > _MAX_CHAIN) break;
    seen.add(parent.id);
    lineage.parents.push(parent);
    at = parent;
  }
  lineage.forks = known
    .filter((s) =>
      s.id !== self.id && s.parentSession !== undefined &&
      _names(s.parentSession, s.path)(self)
    )
    .sort((a, b) => a.timestamp < b.timestamp ? -1 : 1);
  return lineage;
}

/**
 * Whether a session is the one a `parentSession` written in `from` names:
 * by id, by path (resolved from `from`'s folder), or by the id in its file
 * name (the file moved).
 */
function _names(parent: string, from: string): (s: SessionInfo) => boolean {
  const path = resolve(dirname(from), parent);
  const byName = parseSessionFileName(basename(parent))?.id;
  return (s) => s.id === parent || resolve(s.path) === path || s.id === byName;
}

/** The session a `parentSession` written in `from` names, if found. */
async function _find(
  parent: string,
  from: string,
  known: SessionInfo[],
): Promise<SessionInfo | undefined> {
  const hit = known.find(_names(parent, from));
  if (hit !== undefined) return hit;
  if (!parent.endsWith(".jsonl")) return undefined;
  const path = resolve(dirname(from), parent);
  try {
    return await _read(path, `Cannot read "${path}"`);
  } catch {
    return undefined; // gone, or not a session: the chain stops there
  }
}

/** A file's head as {@linkcode listSessions} describes it. */
async function _read(path: string, action: string): Promise<SessionInfo> {
  const file = await openRegular(path, action);
  try {
    const info = await file.stat();
    return sessionInfo(path, info, await readHead(file, path));
  } finally {
    await file[Symbol.asyncDispose]();
  }
}
