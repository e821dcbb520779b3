/**
 * The data dir: where sessions and blobs live.
 *
 * @module
 */

import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import {
  parse,
  type ParseError,
  printParseErrorCode,
  stripComments,
} from "jsonc-parser";
import { seam } from "../fs/_seam.ts";

/** The environment variable that names the data dir; it beats the config. */
const _DATA_DIR_ENV = "XDEV_DATA_DIR";

/** Options for {@linkcode resolveDataDir}. */
export interface ResolveDataDirOptions {
  /** Environment to read `XDEV_DATA_DIR` (and `HOME`) from. Default: `Deno.env`. */
  env?: Record<string, string | undefined>;
  /** The home directory. Default: `HOME`, else `USERPROFILE`, else `os.homedir()`. */
  home?: string;
}

/**
 * The data dir: `XDEV_DATA_DIR` when set and non-empty, else `dataDir` from
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
  const env = options.env;
  const get = (name: string): string | undefined =>
    env === undefined ? Deno.env.get(name) : env[name];
  const home = (): string =>
    options.home ?? (get("HOME") || get("USERPROFILE") || homedir());
  const fromEnv = get(_DATA_DIR_ENV);
  if (fromEnv) return resolve(_expandHome(fromEnv, home));
  const xdev = join(home(), ".xdev");
  const fromConfig = await _readConfigDataDir(join(xdev, "config.jsonc"));
  if (fromConfig !== undefined) {
    return resolve(xdev, _expandHome(fromConfig, home));
  }
  return join(xdev, "agent");
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
    text = new TextDecoder().decode(await seam().readFile(path));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`Cannot read config "${path}": ${reason}`, { cause: err });
  }
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

/** Ancestors searched for a `blobs/` folder by {@linkcode findDataDir}. */
const _DATA_DIR_SEARCH_DEPTH = 8;

/**
 * The nearest ancestor of `file` that holds a `blobs/` folder (the data dir),
 * searching up to 8 levels.
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
 * @param file A session file.
 * @returns The data dir, or undefined.
 */
export async function findDataDir(file: string): Promise<string | undefined> {
  let dir = dirname(resolve(file));
  for (let i = 0; i < _DATA_DIR_SEARCH_DEPTH; i++) {
    try {
      const info = await seam().stat(join(dir, "blobs"));
      if (info.isDirectory) return dir;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}
