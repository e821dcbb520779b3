/**
 * OLD, do not import from ported code (deleted with `src/fs/`): the
 * session files' heads read synchronously, from snapshots, with event-loop
 * turns, kept for the index and the search scan until they move onto
 * `_session_files.ts` (awaited reads, a bounded number in flight) and
 * `session_info.ts`. The list and the fork no longer use it.
 *
 * @module
 */

import { join, sep } from "node:path";
import { SessionSyntaxError } from "../format/errors.ts";
import { headerTitleSource, headerVersion } from "../format/header.ts";
import { notAFile, readFull, readFullSync } from "../fs/_read.ts";
import { seam } from "../fs/_seam.ts";
import { openToRead, pathOf, type ReadFrom } from "../fs/_snapshot.ts";
import { type Head, parseHead } from "../read/_head.ts";
import { canonicalCwdSlug, sessionsDir } from "./places.ts";
import type { SessionInfo } from "./session_info.ts";
import { EventLoopTurns } from "../fs/_turns.ts";

/** Bytes read from the start of a file for its head (see `LIST_HEAD_BYTES`). */
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
 * @returns The files, in folder order.
 */
export async function sessionFiles(
  dataDir: string,
  options: SessionFilesOptions,
): Promise<FoundFile[]> {
  const root = sessionsDir(dataDir);
  const folders = options.cwd === undefined
    ? _subfolders(root)
    : [join(root, await canonicalCwdSlug(options.cwd))];
  const depth = options.includeSubagents === true ? _MAX_NESTING : 0;
  const out: FoundFile[] = [];
  for (const folder of folders) _collect(folder, depth, 0, out);
  return out;
}

/** The folders right under `root`; none when it does not exist. */
function _subfolders(root: string): string[] {
  const out: string[] = [];
  try {
    for (const e of seam().readDirSync(root)) {
      if (e.isDirectory) out.push(join(root, e.name));
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  return out;
}

function _collect(
  folder: string,
  depth: number,
  level: number,
  out: FoundFile[],
): void {
  const files = new Set<string>();
  const dirs: string[] = [];
  try {
    for (const e of seam().readDirSync(folder)) {
      if (e.isFile && e.name.endsWith(".jsonl")) files.add(e.name);
      else if (e.isDirectory) dirs.push(e.name);
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  // The folder is a joined path already, a name has no separator: a
  // concatenation (node:path's join normalized 10,000 paths in ~25 ms).
  for (const name of files) {
    out.push({ path: folder + sep + name, depth: level });
  }
  if (depth <= 0) return;
  for (const dir of dirs) {
    if (files.has(`${dir}.jsonl`)) {
      _collect(join(folder, dir), depth - 1, level + 1, out);
    }
  }
}

/** A file's metadata and head, or why it has none. */
export type HeadRead =
  | { info: Deno.FileInfo; head: Head; headBytes: Uint8Array }
  | { skip: string };

/**
 * A file's metadata and head from its first {@linkcode HEAD_BYTES} (one
 * read call on a local file).
 *
 * @param from The file, or a snapshot of it.
 * @param known What the caller knows of it: `isFile` when a directory
 * listing or a stat just said it is a regular file (it is not stat'ed
 * again: a stat by path costs ~10 µs here).
 * @returns The head, or the reason it was skipped.
 */
export async function readSessionHead(
  from: ReadFrom,
  known: { isFile?: boolean } = {},
): Promise<HeadRead> {
  const path = pathOf(from);
  let info: Deno.FileInfo;
  let bytes: Uint8Array;
  try {
    ({ info, bytes } = _firstBytesSync(from, known.isFile === true) ??
      await _firstBytes(from));
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

/** A file's metadata and first bytes, as they were read. */
interface _FirstBytes {
  info: Deno.FileInfo;
  bytes: Uint8Array;
}

/**
 * A file's first bytes read synchronously: a stat, an open, a stat of the
 * open file, a read and a close, ~20 µs from the page cache, where the
 * asynchronous open, stat and read cost ~70 µs (a list of 10,000 sessions
 * spent most of its time in them). Undefined where the file system's
 * files cannot read synchronously.
 *
 * @throws {Error} When it is not a regular file (opening a FIFO would wait
 * for a writer), or cannot be read.
 */
function _firstBytesSync(
  from: ReadFrom,
  isFile: boolean,
): _FirstBytes | undefined {
  if (typeof from !== "string") return undefined;
  const fs = seam();
  const what = isFile ? undefined : notAFile(fs.statSync(from));
  if (what !== undefined) throw new Error(`it is ${what}`);
  using file = fs.openSync(from, { read: true });
  if (file.readSync === undefined) return undefined;
  const info = file.statSync();
  const buffer = new Uint8Array(Math.min(info.size, HEAD_BYTES));
  const n = readFullSync(file.readSync.bind(file), buffer);
  return { info, bytes: buffer.subarray(0, n) };
}

/** The same through the file system's asynchronous calls, or from a snapshot. */
async function _firstBytes(from: ReadFrom): Promise<_FirstBytes> {
  using file = await openToRead(from);
  const info = await file.stat();
  const buffer = new Uint8Array(HEAD_BYTES);
  const want = Math.min(info.size, HEAD_BYTES);
  const n = await readFull(file, buffer.subarray(0, want));
  return { info, bytes: buffer.subarray(0, n) };
}

/**
 * What the list says of a file from its head and metadata.
 *
 * @param path The file.
 * @param info Its metadata.
 * @param head Its head.
 * @returns The entry.
 */
export function sessionInfo(
  path: string,
  info: Pick<Deno.FileInfo, "size" | "mtime">,
  head: Pick<Head, "slot" | "header">,
): SessionInfo {
  const { slot, header } = head;
  const source = slot === undefined ? headerTitleSource(header) : slot.source;
  const title = slot === undefined ? header.title : slot.title;
  const session: SessionInfo = {
    path,
    id: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    timestamp: typeof header.timestamp === "string" ? header.timestamp : "",
    size: info.size,
    mtime: info.mtime ?? new Date(0),
    version: headerVersion(header),
  };
  if (typeof title === "string" && title.length > 0) session.title = title;
  if (source !== undefined) session.titleSource = source;
  const parent = header.parentSession;
  if (typeof parent === "string" && parent.length > 0) {
    session.parentSession = parent;
  }
  return session;
}

/**
 * Sort in the list's order: newest mtime first, then newest header time,
 * then path (each key computed once, not at every comparison).
 *
 * @param sessions The sessions.
 * @returns The same array, sorted.
 */
export function sortNewestFirst(sessions: SessionInfo[]): SessionInfo[] {
  const keys = sessions.map((s) => ({
    s,
    mtime: s.mtime.getTime(),
    time: _time(s.timestamp),
  }));
  keys.sort((a, b) =>
    b.mtime - a.mtime || b.time - a.time ||
    (a.s.path < b.s.path ? 1 : a.s.path > b.s.path ? -1 : 0)
  );
  for (let i = 0; i < keys.length; i++) sessions[i] = keys[i]!.s;
  return sessions;
}

/** A timestamp's milliseconds; one that does not parse sorts oldest. */
function _time(timestamp: string): number {
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? -Infinity : t;
}

/**
 * `fn` over `items`, at most `limit` at a time, results in order.
 *
 * @param items The items.
 * @param limit How many at once.
 * @param fn The work.
 * @returns The results.
 */
export async function mapLimit<T, U>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<U>,
): Promise<U[]> {
  const out: U[] = new Array(items.length);
  let next = 0;
  const turns = new EventLoopTurns(); // `fn` may read synchronously
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      await turns.give();
      if (next >= items.length) break;
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  const n = Math.min(limit, items.length);
  await Promise.all(Array.from({ length: n }, worker));
  return out;
}
