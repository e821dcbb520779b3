/**
 * The session files of a data dir (`<dataDir>/sessions/<slug>/*.jsonl`,
 * and subagents' in artifacts folders), each one's head from its first
 * 4 KiB, and a bounded number of such reads in flight at once: the list,
 * the index, search and usage find the files here.
 *
 * @module
 */

import { join, sep } from "node:path";
import {
  type DirEntry,
  type FileInfo,
  fs,
  isNotFound,
  notAFile,
} from "../_fs.ts";
import { SessionSyntaxError } from "../format/errors.ts";
import { readFull } from "../read/_open.ts";
import { type Head, parseHead } from "../read/_head.ts";
import { canonicalCwdSlug, sessionsDir } from "./places.ts";

/**
 * Bytes read from the start of a file for its head: enough for the title
 * slot and the header (see `LIST_HEAD_BYTES`, which is this number).
 */
export const HEAD_BYTES = 4096;

/** How deep artifacts folders (subagent sessions) are looked into. */
const _MAX_NESTING = 4;

/** Which files {@linkcode sessionFiles} finds. */
export interface SessionFilesOptions {
  /** Only this working directory's folder (its cwd slug). */
  cwd?: string | undefined;
  /** Look into artifacts folders too (subagent sessions). */
  includeSubagents?: boolean | undefined;
}

/** A session file found, and how deep (0: directly in a cwd folder). */
export interface FoundFile {
  /** The file. */
  path: string;
  /** 0 in a cwd folder; 1 or more inside artifacts folders. */
  depth: number;
}

/**
 * The `*.jsonl` files of a data dir's cwd folders, and (with
 * `includeSubagents`) those in artifacts folders: a folder `<name>` beside
 * a `<name>.jsonl`.
 *
 * @param dataDir The data dir.
 * @param options One cwd; subagents.
 * @returns The files, in folder order; none when there is no sessions
 * folder (or no folder for the cwd).
 * @throws {Error} When a folder exists but cannot be read.
 */
export async function sessionFiles(
  dataDir: string,
  options: SessionFilesOptions,
): Promise<FoundFile[]> {
  const root = sessionsDir(dataDir);
  const folders = options.cwd === undefined
    ? (await _entries(root)).filter((e) => e.isDirectory).map((e) =>
      join(root, e.name)
    )
    : [join(root, await canonicalCwdSlug(options.cwd))];
  const depth = options.includeSubagents === true ? _MAX_NESTING : 0;
  // The folders are listed a few at once (each listing is many awaited
  // steps), and their files given in folder order.
  const each = await mapLimit(folders, _LISTINGS, async (folder) => {
    const out: FoundFile[] = [];
    await _collect(folder, depth, 0, out);
    return out;
  });
  return each.flat();
}

/** Folders listed at once. */
const _LISTINGS = 16;

/** A folder's entries; none when it does not exist. */
async function _entries(folder: string): Promise<DirEntry[]> {
  try {
    return await fs().readDir(folder);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

async function _collect(
  folder: string,
  depth: number,
  level: number,
  out: FoundFile[],
): Promise<void> {
  const files = new Set<string>();
  const dirs: string[] = [];
  for (const e of await _entries(folder)) {
    if (e.isFile && e.name.endsWith(".jsonl")) files.add(e.name);
    else if (e.isDirectory) dirs.push(e.name);
  }
  // The folder is a joined path already and a name has no separator: a
  // concatenation spares normalizing every path of a large data dir.
  for (const name of files) {
    out.push({ path: folder + sep + name, depth: level });
  }
  if (depth <= 0) return;
  for (const dir of dirs) {
    if (files.has(`${dir}.jsonl`)) {
      await _collect(join(folder, dir), depth - 1, level + 1, out);
    }
  }
}

/** A file's metadata and head, or why it has none. */
export type HeadRead =
  | { info: FileInfo; head: Head; headBytes: Uint8Array }
  | { skip: string };

/**
 * A file's metadata and head, from its first {@linkcode HEAD_BYTES} (one
 * read call on a local file; none for an empty file).
 *
 * @param path The file.
 * @param known What the caller knows of it: `isFile` when a folder listing
 * or a stat just said it is a regular file (it is then not stat'ed by path
 * again before it is opened).
 * @returns The head, or the reason it was skipped: the file cannot be
 * read, is not a regular file, or holds no complete header in its first
 * bytes.
 */
export async function readSessionHead(
  path: string,
  known: { isFile?: boolean } = {},
): Promise<HeadRead> {
  let info: FileInfo;
  let bytes: Uint8Array;
  try {
    ({ info, bytes } = await _firstBytes(path, known.isFile === true));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { skip: `cannot read the first bytes: ${why}` };
  }
  try {
    const head = parseHead(bytes, {
      name: path,
      complete: bytes.length === info.size,
    });
    return { info, head, headBytes: bytes.subarray(0, head.bodyStart) };
  } catch (err) {
    if (!(err instanceof SessionSyntaxError)) throw err;
    return { skip: err.reason };
  }
}

/**
 * A file's metadata (of the open file) and first bytes. A path not known
 * to be a regular file is stat'ed first: opening a FIFO would wait for a
 * writer.
 */
async function _firstBytes(
  path: string,
  isFile: boolean,
): Promise<{ info: FileInfo; bytes: Uint8Array }> {
  const what = isFile ? undefined : notAFile(await fs().stat(path));
  if (what !== undefined) throw new Error(`it is ${what}`);
  const file = await fs().open(path, { read: true });
  try {
    const info = await file.stat();
    const buffer = new Uint8Array(Math.min(info.size, HEAD_BYTES));
    const n = buffer.length === 0 ? 0 : await readFull(file, buffer, 0);
    return { info, bytes: buffer.subarray(0, n) };
  } finally {
    await file[Symbol.asyncDispose]();
  }
}

/**
 * `fn` over `items`, at most `limit` at a time, results in order: small
 * files' reads overlap without all of them open at once. Once one call
 * fails no other starts, and the failure is thrown only when the calls
 * running have ended: no work of it goes on after it has failed.
 *
 * @param items The items.
 * @param limit How many at once.
 * @param fn The work.
 * @returns The results.
 * @throws {unknown} What the first call to fail threw.
 */
export async function mapLimit<T, U>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<U>,
): Promise<U[]> {
  const out: U[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        out[i] = await fn(items[i] as T);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const n = Math.min(limit, items.length);
  let first: { reason: unknown } | undefined;
  await Promise.all(
    Array.from({ length: n }, () =>
      worker().catch((reason) => {
        first ??= { reason };
      })),
  );
  if (first !== undefined) throw first.reason;
  return out;
}
