/**
 * The data dirs of the agents whose sessions share this format: xdev's own
 * ({@linkcode resolveDataDir}), omp's and pi's, found as each agent finds
 * its own (the same environment variables, in the same order), so that the
 * CLI's many-session commands cover the sessions a user already has. Like
 * `data_dir.ts`, it reads the environment (through `node:process`), and
 * nothing else: whether a dir exists is the caller's question.
 *
 * omp (`@oh-my-pi/pi-utils`, `dirs.ts`): the profile is `OMP_PROFILE`, or
 * when that is unset `PI_PROFILE` (blank or `default`: none); the config
 * root is `~/<PI_CONFIG_DIR or .omp>`, with `/profiles/<profile>` for a
 * profile; the agent dir is `<root>/agent`, or, without a profile,
 * `PI_CODING_AGENT_DIR` when set. Its sessions are in `<agent dir>/sessions`,
 * except that on Linux and macOS, for the default agent dir, an existing
 * `$XDG_DATA_HOME/omp` holds them (omp flattens `agent/` there).
 *
 * pi (`@mariozechner/pi-coding-agent`, `config.ts`): `PI_CODING_AGENT_DIR`
 * (a leading `~` expanded), else `~/.pi/agent`.
 *
 * @module
 */

import process from "node:process";
import { join, resolve } from "node:path";
import { statOrUndefined } from "../_fs.ts";
import {
  homeDir,
  resolveDataDir,
  type ResolveDataDirOptions,
} from "./data_dir.ts";

/** The agent a data dir belongs to. */
export type Agent = "xdev" | "omp" | "pi";

/** A data dir, and whose it is. */
export interface AgentDataDir {
  /** Whose it is: xdev's own, omp's or pi's. */
  agent: Agent;
  /** The data dir (absolute; the folder holding `sessions/`). */
  dataDir: string;
}

/** omp's and pi's shared override of the agent dir. */
const _AGENT_DIR_ENV = "PI_CODING_AGENT_DIR";

/** omp's profile names, as `normalizeProfileName` accepts them. */
const _PROFILE = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * The data dirs of xdev, omp and pi, in that order, each once (a dir two
 * agents share, `PI_CODING_AGENT_DIR` for both, is listed as the first's).
 *
 * @example The defaults of an empty environment
 * ```ts
 * import { agentDataDirs } from "./_agent_dirs.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const dirs = await agentDataDirs({ env: {}, home: "/home/ann" });
 * deepEqual(dirs.map((d) => d.dataDir), [
 *   "/home/ann/.xdev/agent",
 *   "/home/ann/.omp/agent",
 *   "/home/ann/.pi/agent",
 * ]);
 * ```
 *
 * @param options Environment and home directory, injectable for tests.
 * @returns The data dirs, which may not exist.
 * @throws {SyntaxError} When xdev's config file is not valid JSON with comments.
 */
export async function agentDataDirs(
  options: ResolveDataDirOptions = {},
): Promise<AgentDataDir[]> {
  const env = options.env ?? process.env;
  const home = options.home ?? homeDir(env);
  const found: AgentDataDir[] = [
    { agent: "xdev", dataDir: await resolveDataDir({ env, home }) },
    { agent: "omp", dataDir: await _ompDataDir(env, home) },
    { agent: "pi", dataDir: _piDataDir(env, home) },
  ];
  const seen = new Set<string>();
  return found.filter((d) => {
    if (seen.has(d.dataDir)) return false;
    seen.add(d.dataDir);
    return true;
  });
}

/**
 * xdev's cache folder, where the indexes of data dirs that are not xdev's
 * are kept: `$XDG_CACHE_HOME/xdev`, else `~/.cache/xdev`.
 *
 * @example The default
 * ```ts
 * import { xdevCacheDir } from "./_agent_dirs.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(xdevCacheDir({ env: {}, home: "/home/ann" }), "/home/ann/.cache/xdev");
 * ```
 *
 * @param options Environment and home directory, injectable for tests.
 * @returns The folder (which may not exist yet).
 */
export function xdevCacheDir(options: ResolveDataDirOptions = {}): string {
  const env = options.env ?? process.env;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg) return join(resolve(xdg), "xdev");
  return join(options.home ?? homeDir(env), ".cache", "xdev");
}

async function _ompDataDir(
  env: Record<string, string | undefined>,
  home: string,
): Promise<string> {
  const profile = _ompProfile(env);
  const root = join(home, env.PI_CONFIG_DIR || ".omp");
  const profiled = profile === undefined
    ? root
    : join(root, "profiles", profile);
  const fallback = join(profiled, "agent");
  const override = profile === undefined ? env[_AGENT_DIR_ENV] : undefined;
  if (override) return resolve(override);
  const xdg = env.XDG_DATA_HOME;
  if (xdg && (process.platform === "linux" || process.platform === "darwin")) {
    const app = profile === undefined
      ? join(xdg, "omp")
      : join(xdg, "omp", "profiles", profile);
    const info = await statOrUndefined(app).catch(() => undefined);
    if (info?.kind === "directory") return resolve(app);
  }
  return fallback;
}

/** omp's profile: `OMP_PROFILE` when set (even blank), else `PI_PROFILE`. */
function _ompProfile(
  env: Record<string, string | undefined>,
): string | undefined {
  const raw = (env.OMP_PROFILE !== undefined ? env.OMP_PROFILE : env.PI_PROFILE)
    ?.trim();
  if (!raw || raw === "default") return undefined;
  // An invalid name makes omp stop; a dir it would never use is not guessed.
  return _PROFILE.test(raw) ? raw : undefined;
}

function _piDataDir(
  env: Record<string, string | undefined>,
  home: string,
): string {
  const dir = env[_AGENT_DIR_ENV];
  if (!dir) return join(home, ".pi", "agent");
  if (dir === "~") return home;
  if (dir.startsWith("~/")) return join(home, dir.slice(2));
  return resolve(dir);
}
