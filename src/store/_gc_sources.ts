/**
 * The files whose references keep a data dir's blobs alive: every file gc
 * reads. At least every file omp's storage gc reads (omp 18.3.4,
 * `pi-coding-agent/src/cli/gc-cli.ts`, `runBlobGc`), and every session that
 * stores its blobs in this data dir (`findDataDir`):
 *
 * - under the whole data dir, the blobs folder left out, every `*.jsonl`,
 *   `*.jsonl.gz` and `*.jsonl.*.bak` (omp's three globs, which it applies to
 *   `sessions/` and to its archive, `archive/sessions/`; a session kept
 *   beside them, `<dataDir>/keep/x.jsonl`, stores its images here too, as
 *   the nearest folder above it holding `blobs/`). Symbolic links are
 *   followed, each real folder walked once;
 * - each file named in omp's registry of sessions kept elsewhere,
 *   `<dataDir>/custom-session-files/<hash>` (a marker whose content is the
 *   file's absolute path; `recordCustomSessionFile` in omp's
 *   `session/session-paths.ts`), whatever its name;
 * - the session of each terminal breadcrumb,
 *   `<dataDir>/terminal-sessions/<id>` (its first line the cwd, its second
 *   the session file, relative to that cwd).
 *
 * A named file that is not there (or not a file) is skipped and counted, as
 * omp does. A marker or breadcrumb that cannot be read is an error: gc then
 * deletes nothing.
 *
 * @module
 */

import { basename, join, resolve } from "node:path";
import { errorCode, fs, isNotFound, statOrUndefined } from "../_fs.ts";
import { openRegular, readFull } from "../read/_open.ts";

/** The files gc reads, and the named ones it could not find. */
export interface GcSources {
  /** The files to read, sorted, each once. */
  files: string[];
  /** Files named by omp's registry or a breadcrumb that are not there (or not a file). */
  missing: string[];
  /** Markers or breadcrumbs that could not be read, in words. */
  errors: string[];
}

/**
 * Whether gc reads a file of this name: omp's `**\/*.jsonl`,
 * `**\/*.jsonl.gz` and `**\/*.jsonl.*.bak`.
 *
 * @param name A file name.
 * @returns Whether it is one of those.
 *
 * @example The names gc reads
 * ```ts
 * import { isGcSessionName } from "./_gc_sources.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isGcSessionName("a.jsonl.1.bak"), true);
 * equal(isGcSessionName("a.jsonl.tmp"), false);
 * ```
 */
export function isGcSessionName(name: string): boolean {
  return name.endsWith(".jsonl") || name.endsWith(".jsonl.gz") ||
    /\.jsonl\..*\.bak$/.test(name);
}

/** The registry and breadcrumb folders, as omp names them under its agent dir. */
const _REGISTRY = "custom-session-files";
const _BREADCRUMBS = "terminal-sessions";
/** A marker or breadcrumb holds a path or two: more than this is not one. */
const _MARKER_BYTES = 64 << 10;

/**
 * The files whose references gc counts for a data dir.
 *
 * @param dataDir The data dir.
 * @param blobsDir Its blobs folder, left out of the walk.
 * @returns The files, the missing named ones and the unreadable markers.
 * @throws {Error} When a folder of the data dir cannot be read.
 */
export async function gcSources(
  dataDir: string,
  blobsDir: string,
): Promise<GcSources> {
  const out: GcSources = { files: [], missing: [], errors: [] };
  const realBlobs = await fs().realPath(blobsDir).catch(() => blobsDir);
  const walked = await walkFiles(dataDir, {
    match: isGcSessionName,
    skip: (path, real) => path === blobsDir || real === realBlobs,
  });
  const named: string[] = [];
  for (const text of await _markers(join(dataDir, _REGISTRY), out)) {
    const recorded = text.trim();
    if (recorded !== "") named.push(resolve(recorded));
  }
  for (const text of await _markers(join(dataDir, _BREADCRUMBS), out)) {
    const [cwd, file] = text.split("\n").map((l) => l.trim());
    if (cwd && file) named.push(resolve(cwd, file));
  }
  const seen = new Set<string>();
  const add = async (path: string) => {
    const real = await fs().realPath(path).catch(() => path);
    if (seen.has(real)) return;
    seen.add(real);
    out.files.push(path);
  };
  for (const path of walked) await add(path);
  for (const path of named) {
    const kind = await statOrUndefined(path).then(
      (info) => info?.kind,
      (err) => {
        if (errorCode(err) === "ENOTDIR") return undefined;
        out.errors.push(`Cannot find "${path}": ${(err as Error).message}`);
        return "unreadable";
      },
    );
    if (kind === "file") await add(path);
    else if (kind !== "unreadable") out.missing.push(path);
  }
  out.files.sort();
  return out;
}

/** The text of each marker file in a folder (none when it is absent); unreadable ones go to `out.errors`. */
async function _markers(dir: string, out: GcSources): Promise<string[]> {
  let entries;
  try {
    entries = await fs().readDir(dir);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
  const texts: string[] = [];
  for (const e of entries.sort((a, b) => a.name < b.name ? -1 : 1)) {
    const path = join(dir, e.name);
    try {
      const file = await openRegular(path, `Cannot read "${path}"`);
      try {
        const size = (await file.stat()).size;
        if (size > _MARKER_BYTES) {
          throw new Error(`Cannot read "${path}": ${size} bytes is not a path`);
        }
        const bytes = new Uint8Array(size);
        await readFull(file, bytes, 0);
        texts.push(new TextDecoder().decode(bytes));
      } finally {
        await file[Symbol.asyncDispose]();
      }
    } catch (err) {
      if (isNotFound(err)) continue; // removed since the listing
      out.errors.push(
        `${basename(dir)}: ${err instanceof Error ? err.message : err}`,
      );
    }
  }
  return texts;
}

/** Which files {@linkcode walkFiles} finds. */
export interface WalkFilesOptions {
  /** Whether a file's name is wanted. */
  match: (name: string) => boolean;
  /** Folders not entered, by path as walked and real path. */
  skip?: (path: string, real: string) => boolean;
}

/**
 * The wanted files under `dir`, recursively, sorted. Symbolic links are
 * followed (a session kept elsewhere and linked in still counts, and still
 * protects its blobs from gc), each real folder walked once, so a link loop
 * cannot trap the walk.
 *
 * @param dir The folder.
 * @param options Which names; which folders to leave out.
 * @returns The paths (`dir` joined with each file's relative path).
 * @throws {Error} When `dir` does not exist (`ENOENT`) or cannot be read.
 */
export async function walkFiles(
  dir: string,
  options: WalkFilesOptions,
): Promise<string[]> {
  const out: string[] = [];
  const walked = new Set<string>();
  const walk = async (folder: string): Promise<void> => {
    const real = await fs().realPath(folder);
    if (walked.has(real) || options.skip?.(folder, real)) return;
    walked.add(real);
    for (const e of await fs().readDir(folder)) {
      const path = join(folder, e.name);
      let { isFile, isDirectory } = e;
      if (e.isSymlink) {
        const target = await statOrUndefined(path);
        isFile = target?.kind === "file";
        isDirectory = target?.kind === "directory";
      }
      if (isDirectory) await walk(path);
      else if (isFile && options.match(e.name)) out.push(path);
    }
  };
  await walk(dir);
  return out.sort();
}
