/**
 * The data dirs a command covers: those named with `--data-dir` (each must
 * be a folder), else every one of xdev's, omp's and pi's that exists
 * (`store/_agent_dirs.ts`), each with whose it is; and where each one's
 * session index lives. The index of xdev's own data dir (or of any other
 * folder named with `--data-dir`) is `<dataDir>/index.sqlite`; that of
 * omp's or pi's lives in xdev's cache folder (`$XDG_CACHE_HOME/xdev`, else
 * `~/.cache/xdev`), `indexes/<agent>-<hash of the dir's real path>.sqlite`:
 * nothing is written into their folders, and no xdev data dir is made.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { fs, isNotFound, statOrUndefined } from "../_fs.ts";
import { hashBytes } from "../index/_hash.ts";
import {
  type AgentDataDir,
  agentDataDirs,
  xdevCacheDir,
} from "../store/_agent_dirs.ts";
import { quote } from "../format/errors.ts";
import { SessionIndex } from "../index/session_index.ts";
import { listSessions, type ListSessionsOptions } from "../store/list.ts";
import { sessionsDir } from "../store/places.ts";
import type { SessionInfo } from "../store/session_info.ts";
import { userPath } from "./_user_path.ts";

/** A data dir a command covers: whose it is (`other`: none of the three). */
export interface CoveredDataDir {
  /** Whose it is. */
  agent: AgentDataDir["agent"] | "other";
  /** The data dir (absolute). */
  dataDir: string;
}

let _known: Promise<AgentDataDir[]> | undefined;

/** xdev's, omp's and pi's data dirs, read once per process. */
export function knownDataDirs(): Promise<AgentDataDir[]> {
  _known ??= agentDataDirs();
  return _known;
}

/**
 * The data dirs to cover: each of `given` (`--data-dir`, repeatable; made
 * absolute against the user's folder), which must be a folder; else those
 * of xdev, omp and pi that exist.
 *
 * @param given The `--data-dir` values, in order.
 * @returns The data dirs; none when none of the three exists.
 * @throws {Error} `Cannot read the data dir "<d>": no such folder` (exit 1).
 */
export async function coveredDataDirs(
  given: readonly string[],
): Promise<CoveredDataDir[]> {
  const known = await knownDataDirs();
  if (given.length > 0) {
    const out: CoveredDataDir[] = [];
    for (const g of given) {
      const dataDir = userPath(g);
      const info = await fs().stat(dataDir).catch((err) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
      if (info?.kind !== "directory") {
        const state = info === undefined ? "no such folder" : "not a folder";
        throw new Error(`Cannot read the data dir ${quote(dataDir)}: ${state}`);
      }
      if (out.some((d) => d.dataDir === dataDir)) continue;
      const agent = known.find((k) => k.dataDir === dataDir)?.agent ?? "other";
      out.push({ agent, dataDir });
    }
    return out;
  }
  const out: CoveredDataDir[] = [];
  for (const k of known) {
    const info = await statOrUndefined(k.dataDir).catch(() => undefined);
    if (info?.kind === "directory") out.push(k);
  }
  return out;
}

/**
 * Where a data dir's session index is: `{}` (its own `index.sqlite`) for
 * xdev's and any other, `{ indexPath }` in xdev's cache folder for omp's
 * and pi's.
 *
 * @param dataDir The data dir.
 * @returns The options to open its index with.
 */
export async function indexOptionsOf(
  dataDir: string,
): Promise<{ indexPath?: string }> {
  const known = await knownDataDirs();
  const absolute = resolve(dataDir);
  const real = await fs().realPath(absolute).catch(() => absolute);
  for (const k of known) {
    if (k.agent === "xdev") continue;
    const kReal = await fs().realPath(k.dataDir).catch(() => k.dataDir);
    if (absolute !== k.dataDir && real !== kReal) continue;
    const key = hashBytes(new TextEncoder().encode(real));
    return {
      indexPath: join(xdevCacheDir(), "indexes", `${k.agent}-${key}.sqlite`),
    };
  }
  return {};
}

/**
 * A line for a data dir without sessions (or a command that found nothing
 * at all): where else there are data dirs, and how to name one.
 *
 * @param covered The data dirs looked in.
 * @returns `(other data dirs: omp ~/.omp/agent, …)`, or how to name one.
 */
export async function elsewhere(
  covered: readonly CoveredDataDir[],
): Promise<string> {
  const others: string[] = [];
  for (const k of await knownDataDirs()) {
    if (covered.some((c) => c.dataDir === k.dataDir)) continue;
    const info = await statOrUndefined(k.dataDir).catch(() => undefined);
    if (info?.kind === "directory") others.push(`${k.agent} ${k.dataDir}`);
  }
  if (others.length > 0) return `other data dirs: ${others.join(", ")}`;
  if (covered.length > 0) return "name another with --data-dir D";
  const looked = (await knownDataDirs()).map((k) => `${k.agent} ${k.dataDir}`);
  return `none of ${looked.join(", ")} exists; name one with --data-dir D`;
}

/**
 * The sessions of a data dir: through its index (made when missing and
 * `create`, at {@linkcode indexOptionsOf}'s place) when `indexed` and it
 * can be used, else from the files. A data dir without a sessions folder
 * gets no index: nothing to index, no file to leave behind.
 *
 * @param dataDir The data dir.
 * @param options As for `listSessions`.
 * @param use Whether the index may be used, and made.
 * @param onWarning Where the index's warnings go.
 * @returns The sessions, newest first.
 */
export async function sessionsIn(
  dataDir: string,
  options: ListSessionsOptions,
  use: { indexed: boolean; create: boolean },
  onWarning: (message: string) => void,
): Promise<SessionInfo[]> {
  const index = use.indexed && await statOrUndefined(sessionsDir(dataDir))
    ? await SessionIndex.tryOpen(dataDir, {
      ...await indexOptionsOf(dataDir),
      create: use.create,
      onWarning,
    })
    : undefined;
  try {
    if (index !== undefined) return await index.list(options);
    return await listSessions(dataDir, options);
  } finally {
    index?.[Symbol.dispose]();
  }
}
