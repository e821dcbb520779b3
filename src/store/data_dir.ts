/**
 * The data dir: where sessions and blobs live. The one place in `store/`
 * that reads the environment (through `node:process` and `node:os`, which
 * every runtime the store runs on provides).
 *
 * @module
 */

import { homedir } from "node:os";
import process from "node:process";
import {
  basename,
  dirname,
  isAbsolute,
  join,
  relative,
  resolve,
  sep,
} from "node:path";
import type { ParseError } from "jsonc-parser";
import { errorCode, fs, isDenied, isNotFound } from "../_fs.ts";

/** The environment variable that names the data dir; it beats the config. */
const _DATA_DIR_ENV = "XDEV_DATA_DIR";

/** Options for {@linkcode resolveDataDir}. */
export interface ResolveDataDirOptions {
  /** Environment to read `XDEV_DATA_DIR` (and `HOME`) from. Default: the process's. */
  env?: Record<string, string | undefined>;
  /** The home directory. Default: `HOME`, else `USERPROFILE`, else `os.homedir()`. */
  home?: string;
}

/**
 * The data dir: `XDEV_DATA_DIR` when set and not blank (a value of only
 * spaces, tabs or newlines counts as unset), else `dataDir` from
 * `~/.xdev/config.jsonc` (JSON with comments and trailing commas), else
 * `~/.xdev/agent`.
 *
 * A leading `~` or `~/` is expanded to the home directory in both. A relative
 * `XDEV_DATA_DIR` is resolved against the current directory; a relative
 * `dataDir` in the config against `~/.xdev`. A missing config file is not an
 * error; an empty one (or only comments) sets nothing.
 *
 * @example Overriding the data dir for one process
 * ```ts
 * import { resolveDataDir } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await resolveDataDir({ env: { XDEV_DATA_DIR: "/srv/xdev" } });
 * equal(dir, "/srv/xdev");
 * ```
 *
 * @param options Environment and home directory, injectable for tests.
 * @returns The absolute path of the data dir (which may not exist yet).
 * @throws {SyntaxError} When the config file is not valid JSON with comments.
 * @throws {TypeError} When the config is not an object or its `dataDir` is
 * not a non-empty string.
 */
export async function resolveDataDir(
  options: ResolveDataDirOptions = {},
): Promise<string> {
  const env = options.env ?? process.env;
  const home = (): string => options.home ?? homeDir(env);
  const fromEnv = env[_DATA_DIR_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    return resolve(_expandHome(fromEnv, home));
  }
  const xdev = join(home(), ".xdev");
  const fromConfig = await _readConfigDataDir(join(xdev, "config.jsonc"));
  if (fromConfig !== undefined) {
    return resolve(xdev, _expandHome(fromConfig, home));
  }
  return join(xdev, "agent");
}

/**
 * The home directory: `HOME`, else `USERPROFILE`, else `os.homedir()`
 * (which needs `--allow-sys`), as omp finds it.
 *
 * @param env The environment. Default: the process's.
 * @returns The home directory.
 */
export function homeDir(
  env: Record<string, string | undefined> = process.env,
): string {
  return env.HOME || env.USERPROFILE || homedir();
}

function _expandHome(path: string, home: () => string): string {
  if (path === "~") return home();
  if (path.startsWith("~/") || path.startsWith("~\\")) {
    return join(home(), path.slice(2));
  }
  return path;
}

async function _readConfigDataDir(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = new TextDecoder().decode(await fs().readFile(path));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`Cannot read config "${path}": ${reason}`, { cause: err });
  }
  // Loaded only when there is a config to read: the parser is an npm
  // package, whose loading every process would otherwise pay at its start.
  const { parse, printParseErrorCode, stripComments } = await import(
    "jsonc-parser"
  );
  if (stripComments(text).trim() === "") return undefined;
  const errors: ParseError[] = [];
  const config: unknown = parse(text, errors, { allowTrailingComma: true });
  const first = errors[0];
  if (first !== undefined) {
    const lines = text.slice(0, first.offset).split("\n");
    const column = (lines.at(-1)?.length ?? 0) + 1;
    const what = printParseErrorCode(first.error);
    throw new SyntaxError(
      `Cannot read config "${path}": ${what} at line ${lines.length}, column ${column}`,
    );
  }
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new TypeError(
      `Cannot read config "${path}": it is not a JSON object`,
    );
  }
  const dataDir = (config as { dataDir?: unknown }).dataDir;
  if (dataDir === undefined) return undefined;
  if (typeof dataDir !== "string" || dataDir === "") {
    throw new TypeError(
      `Cannot read config "${path}": "dataDir" is not a non-empty string`,
    );
  }
  return dataDir;
}

/** Folders searched by {@linkcode findDataDir}: for `blobs/`, for `sessions`. */
const _DATA_DIR_SEARCH_DEPTH = 8;
const _SESSIONS_SEARCH_DEPTH = 4;

/**
 * The data dir a session file belongs to, where its blobs are read from and
 * written to. In this order:
 *
 * 1. the configured data dir ({@linkcode resolveDataDir}: `XDEV_DATA_DIR`,
 *    the config, `~/.xdev/agent`) when the file is under its `sessions/`;
 * 2. else the parent of the nearest folder named `sessions` among the file's
 *    folder and the three above it (the layout
 *    `<dataDir>/sessions/<cwd slug>/<file>.jsonl`; subagents one or two
 *    levels deeper), whether or not it has a `blobs/` folder yet;
 * 3. else the nearest of the file's folder and the 7 above it that holds a
 *    `blobs/` folder (a copied data dir, omp's fixtures);
 * 4. else undefined: the session's images stay inline.
 *
 * Only the paths are compared (symbolic links are not resolved).
 *
 * @example Finding the blobs of a fixture
 * ```ts
 * import { findDataDir } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const file = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
 * const dataDir = new URL("../../fixtures/omp", import.meta.url);
 * equal(await findDataDir(file.pathname), dataDir.pathname);
 * ```
 *
 * @example A file in a data dir that has no blobs yet
 * ```ts
 * import { findDataDir } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const file = "/nowhere/agent/sessions/-src-app/2026-10-01T09-00-00-000Z_x.jsonl";
 * equal(await findDataDir(file, { env: {}, home: "/home/ann" }), "/nowhere/agent");
 * ```
 *
 * @param file A session file.
 * @param options Environment and home directory for the configured data
 * dir, injectable for tests.
 * @returns The data dir, or undefined.
 * @throws {SyntaxError} When the config file is not valid JSON with comments.
 * @throws {TypeError} When the config is not an object or its `dataDir` is
 * not a non-empty string.
 */
export async function findDataDir(
  file: string,
  options: ResolveDataDirOptions = {},
): Promise<string | undefined> {
  const path = resolve(file);
  const configured = await resolveDataDir(options);
  if (_isInside(path, join(configured, "sessions"))) return configured;
  let dir = dirname(path);
  for (let i = 0; i < _SESSIONS_SEARCH_DEPTH; i++) {
    const up = dirname(dir);
    if (up === dir) break;
    if (basename(dir) === "sessions") return up;
    dir = up;
  }
  return await _nearestWithBlobs(path);
}

/** Whether `path` lies strictly inside `folder`. */
function _isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel !== "" && rel.split(sep)[0] !== ".." && !isAbsolute(rel);
}

/** The nearest ancestor of `file` holding a `blobs/` folder, up to 8 levels. */
async function _nearestWithBlobs(file: string): Promise<string | undefined> {
  let dir = dirname(file);
  for (let i = 0; i < _DATA_DIR_SEARCH_DEPTH; i++) {
    try {
      const info = await fs().stat(join(dir, "blobs"));
      if (info.kind === "directory") return dir;
    } catch (err) {
      // Absent, not a folder, or off limits (a system folder, a permission
      // the sandbox withholds): no blobs/ this process could use; go on up.
      const gone = isNotFound(err) || errorCode(err) === "ENOTDIR";
      if (!gone && !isDenied(err)) throw err;
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}
