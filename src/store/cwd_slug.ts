/**
 * The per-cwd folder of a session: omp's slug of the working directory.
 *
 * @module
 */

import { homedir, tmpdir } from "node:os";
import { posix, resolve, win32 } from "node:path";
import { seam } from "../fs/_seam.ts";

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
    return await seam().realPath(absolute);
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
