/**
 * Where sessions live in a data dir: the sessions root, the per-cwd folder
 * (omp's slug of the working directory) and the file name.
 *
 * @module
 */

import { tmpdir } from "node:os";
import { join, posix, resolve, win32 } from "node:path";
import { fs, isNotFound } from "../_fs.ts";
import { homeDir } from "./data_dir.ts";

/** Options for {@linkcode canonicalCwdSlug} (and the slug helpers under it). */
export interface CwdSlugOptions {
  /** The home directory. Default: `HOME`, else `USERPROFILE`, else `os.homedir()`. */
  home?: string;
  /** The temp directory. Default: `os.tmpdir()`. */
  tmpDir?: string;
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
 * import { cwdSlug } from "./places.ts";
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
  const inHome = _relativeWithin(path, options.home ?? homeDir(), target);
  if (inHome !== undefined) return inHome === "" ? "-" : `-${encode(inHome)}`;
  const inTmp = _relativeWithin(path, options.tmpDir ?? tmpdir(), target);
  if (inTmp !== undefined) {
    return inTmp === "" ? "-tmp" : `-tmp-${encode(inTmp)}`;
  }
  return `--${encode(target.replace(/^[/\\]/, ""))}--`;
}

/**
 * The name of the folder under `<dataDir>/sessions` for a working directory,
 * by omp's rule: inside HOME, `-` plus the relative path; else inside the temp
 * dir, `-tmp-` plus it; else `--` plus the absolute path plus `--` (`/`, `\`
 * and `:` become `-`). `cwd` is resolved against the current directory, and
 * symbolic links in it, HOME and the temp dir are resolved, as omp does. A
 * path that does not exist is used as resolved.
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
    home: await _realPathOrSelf(options.home ?? homeDir()),
    tmpDir: await _realPathOrSelf(options.tmpDir ?? tmpdir()),
  });
}

async function _realPathOrSelf(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await fs().realPath(absolute);
  } catch (err) {
    if (isNotFound(err)) return absolute;
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
 * import { sessionDirFor } from "./places.ts";
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
 * import { sessionFileName } from "./places.ts";
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
 * import { parseSessionFileName } from "./places.ts";
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
