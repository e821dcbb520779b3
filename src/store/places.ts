/**
 * Where sessions live: the data dir, the per-cwd folder and the file name.
 * The UUIDv7 session ids in the name come from `uuid.ts`.
 *
 * @module
 */

import { homedir, tmpdir } from "node:os";
import { join, posix, resolve, win32 } from "node:path";
import {
  parse,
  type ParseError,
  printParseErrorCode,
  stripComments,
} from "jsonc-parser";
import { _fs } from "../fs/_seam.ts";

// Ids live in uuid.ts; re-exported for the modules that import them from here.
export { uuidv7 } from "../format/uuid.ts";

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
    text = new TextDecoder().decode(await _fs().readFile(path));
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

/** Options for {@linkcode cwdSlug} and {@linkcode sessionDirFor}. */
export interface CwdSlugOptions {
  /** The home directory. Default: `HOME`, else `USERPROFILE`, else `os.homedir()`. */
  home?: string;
  /** The temp directory. Default: `os.tmpdir()`. */
  tmpDir?: string;
}

/** `HOME`, else `USERPROFILE`, else `os.homedir()` (which needs --allow-sys). */
function _home(): string {
  return Deno.env.get("HOME") || Deno.env.get("USERPROFILE") || homedir();
}

/** A drive-letter (`C:\`) or UNC (`\\host`) path: Windows rules on any host. */
const _WIN_ABSOLUTE = /^(?:[A-Za-z]:[\\/]|\\\\[^\\])/;

/**
 * The name of the folder under `<dataDir>/sessions` for a working directory,
 * by omp's rule: inside HOME, `-` plus the relative path (HOME itself: `-`);
 * else inside the temp dir, `-tmp-` plus the relative path (the temp dir
 * itself: `-tmp`); else `--` plus the absolute path without its leading
 * separator, plus `--`. Every `/`, `\` and `:` becomes `-`. HOME is checked
 * before the temp dir.
 *
 * The path is taken as given: omp first resolves symbolic links, which
 * {@linkcode canonicalCwdSlug} does. As in omp, a relative path starting with
 * `..` (a folder named `..x` right under HOME) counts as outside.
 *
 * @example A project under HOME
 * ```ts
 * import { cwdSlug } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const slug = cwdSlug("/home/ann/src/lumen-api", { home: "/home/ann" });
 * equal(slug, "-src-lumen-api");
 * equal(cwdSlug("/srv/app", { home: "/home/ann", tmpDir: "/tmp" }), "--srv-app--");
 * ```
 *
 * @param cwd An absolute path (POSIX, or Windows with a drive letter or UNC).
 * @param options HOME and the temp dir, injectable for tests.
 * @returns The slug: never empty, never containing a path separator.
 * @throws {TypeError} When `cwd` is not absolute.
 */
export function cwdSlug(cwd: string, options: CwdSlugOptions = {}): string {
  const path = _WIN_ABSOLUTE.test(cwd) ? win32 : posix;
  if (path === posix && !cwd.startsWith("/")) {
    throw new TypeError(
      `Cannot compute the session folder for "${cwd}": the path is not absolute`,
    );
  }
  const target = _normalize(path, cwd);
  const encode = (s: string): string => s.replace(/[/\\:]/g, "-");
  const inHome = _relativeWithin(path, options.home ?? _home(), target);
  if (inHome !== undefined) return inHome === "" ? "-" : `-${encode(inHome)}`;
  const inTmp = _relativeWithin(path, options.tmpDir ?? tmpdir(), target);
  if (inTmp !== undefined) {
    return inTmp === "" ? "-tmp" : `-tmp-${encode(inTmp)}`;
  }
  return `--${encode(target.replace(/^[/\\]/, ""))}--`;
}

/**
 * {@linkcode cwdSlug} after resolving `cwd` against the current directory and
 * resolving symbolic links in it, HOME and the temp dir, as omp does. A path
 * that does not exist is used as resolved.
 *
 * @example The slug of the current directory
 * ```ts
 * import { canonicalCwdSlug } from "@xdev/session";
 * import { ok } from "node:assert/strict";
 *
 * const slug = await canonicalCwdSlug(".");
 * ok(slug.startsWith("-"));
 * ```
 *
 * @param cwd A path, relative or absolute.
 * @param options HOME and the temp dir, injectable for tests.
 * @returns The slug.
 */
export async function canonicalCwdSlug(
  cwd: string,
  options: CwdSlugOptions = {},
): Promise<string> {
  return cwdSlug(await _realPathOrSelf(cwd), {
    home: await _realPathOrSelf(options.home ?? _home()),
    tmpDir: await _realPathOrSelf(options.tmpDir ?? tmpdir()),
  });
}

async function _realPathOrSelf(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await _fs().realPath(absolute);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return absolute;
    throw err;
  }
}

function _normalize(path: typeof posix, p: string): string {
  const n = path.normalize(p);
  const root = path.parse(n).root;
  let end = n.length;
  while (end > root.length && (n[end - 1] === "/" || n[end - 1] === path.sep)) {
    end--;
  }
  return n.slice(0, end);
}

/** `target` relative to `base` ("" when equal), or undefined when outside. */
function _relativeWithin(
  path: typeof posix,
  base: string,
  target: string,
): string | undefined {
  if (!path.isAbsolute(base) || (path === win32) !== _WIN_ABSOLUTE.test(base)) {
    return undefined;
  }
  const b = _normalize(path, base);
  const same = path === win32
    ? (x: string, y: string) => x.toLowerCase() === y.toLowerCase()
    : (x: string, y: string) => x === y;
  if (same(b, target)) return "";
  const prefix = b.endsWith(path.sep) ? b : b + path.sep;
  if (!same(target.slice(0, prefix.length), prefix)) return undefined;
  const rel = target.slice(prefix.length);
  return rel.startsWith("..") ? undefined : rel;
}

/**
 * `<dataDir>/sessions`, the root of all session folders.
 *
 * @example The sessions root
 * ```ts
 * import { sessionsDir } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * equal(sessionsDir("/data"), "/data/sessions");
 * ```
 *
 * @param dataDir The data dir, as {@linkcode resolveDataDir} returns it.
 * @returns The sessions root.
 */
export function sessionsDir(dataDir: string): string {
  return join(dataDir, "sessions");
}

/**
 * `<dataDir>/sessions/<cwd slug>`: the folder that holds the sessions started
 * in `cwd` (see {@linkcode cwdSlug}; symbolic links in `cwd` are not resolved).
 *
 * @example The folder for a project's sessions
 * ```ts
 * import { sessionDirFor } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const dir = sessionDirFor("/data", "/home/ann/src/app", { home: "/home/ann" });
 * equal(dir, "/data/sessions/-src-app");
 * ```
 *
 * @param dataDir The data dir.
 * @param cwd An absolute working directory.
 * @param options HOME and the temp dir, injectable for tests.
 * @returns The folder path.
 * @throws {TypeError} When `cwd` is not absolute.
 */
export function sessionDirFor(
  dataDir: string,
  cwd: string,
  options: CwdSlugOptions = {},
): string {
  return join(sessionsDir(dataDir), cwdSlug(cwd, options));
}

const _ISO_UTC =
  /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;
const _UUID =
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const _FILE_NAME =
  /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})(?:-(\d{1,9}))?Z_([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$/;

/** A session file name taken apart by {@linkcode parseSessionFileName}. */
export interface SessionFileName {
  /** The header timestamp, ISO-8601 UTC (`2026-09-28T10:00:00.000Z`). */
  timestamp: string;
  /** The session id (a UUID). */
  id: string;
}

/**
 * The file name of a session: `<timestamp>_<id>.jsonl`, with every `:` and
 * `.` of the timestamp turned into `-` (`2026-09-28T10-00-00-000Z_<id>.jsonl`).
 *
 * @example Naming a session file
 * ```ts
 * import { sessionFileName } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const id = "01a0e775-0100-7eee-9510-1c122060007d";
 * const name = sessionFileName("2026-09-28T10:00:00.000Z", id);
 * equal(name, `2026-09-28T10-00-00-000Z_${id}.jsonl`);
 * ```
 *
 * @param timestamp The header timestamp, ISO-8601 UTC ending in `Z`.
 * @param id The session id, a UUID.
 * @returns The file name (no folder).
 * @throws {TypeError} When the timestamp or the id has another shape.
 */
export function sessionFileName(timestamp: string, id: string): string {
  if (!_ISO_UTC.test(timestamp)) {
    throw new TypeError(
      `Cannot name a session file: "${timestamp}" is not an ISO-8601 UTC timestamp`,
    );
  }
  if (!_UUID.test(id)) {
    throw new TypeError(`Cannot name a session file: "${id}" is not a UUID`);
  }
  return `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`;
}

/**
 * The timestamp and id in a session file name, or undefined when the name has
 * any other shape. Only digits, hex, `-`, `T`, `Z`, `_` and `.jsonl` pass, so
 * a name read from disk never yields a separator or `..`.
 *
 * @example Reading a name found on disk
 * ```ts
 * import { parseSessionFileName } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const parsed = parseSessionFileName(
 *   "2026-09-28T10-00-00-000Z_01a0e775-0100-7eee-9510-1c122060007d.jsonl",
 * );
 * equal(parsed?.timestamp, "2026-09-28T10:00:00.000Z");
 * equal(parseSessionFileName("../x.jsonl"), undefined);
 * ```
 *
 * @param name A file name (no folder).
 * @returns The parts, or undefined.
 */
export function parseSessionFileName(
  name: string,
): SessionFileName | undefined {
  const m = _FILE_NAME.exec(name);
  if (m === null) return undefined;
  const [, date, h, min, s, frac, id] = m;
  const fraction = frac === undefined ? "" : `.${frac}`;
  return {
    timestamp: `${date}T${h}:${min}:${s}${fraction}Z`,
    id: id as string,
  };
}
