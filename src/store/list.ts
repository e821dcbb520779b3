/**
 * Listing sessions: every session under a data dir, newest first, read from
 * the first 4 KiB of each file.
 *
 * @module
 */

import { join } from "node:path";
import { seam } from "../fs/_seam.ts";
import { SessionSyntaxError } from "../format/errors.ts";
import { headerTitleSource, headerVersion } from "../format/header.ts";
import type { TitleSource } from "../format/title_slot.ts";
import { readFull } from "../fs/_read.ts";
import { parseHead } from "../read/_head.ts";
import { canonicalCwdSlug } from "./cwd_slug.ts";
import { sessionsDir } from "./places.ts";

/**
 * Bytes read from the start of each file: enough for the title slot and the
 * header. The slot is 256 bytes and a header a few hundred, so 4 KiB (one
 * page, omp's listing prefix too) holds both with room to spare, and listing
 * costs the same for a 1 KB session as for a 1 GB one.
 *
 * @example The head fits: the header ends well within the first 4 KiB
 * ```ts
 * import { LIST_HEAD_BYTES } from "@xdev/session";
 * import { ok } from "node:assert/strict";
 *
 * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
 * using file = await Deno.open(url);
 * const buffer = new Uint8Array(LIST_HEAD_BYTES);
 * const n = await file.read(buffer) ?? 0;
 * const lines = new TextDecoder().decode(buffer.subarray(0, n)).split("\n");
 * ok(JSON.parse(lines[1]!).type === "session");
 * ```
 */
export const LIST_HEAD_BYTES = 4096;

/** One session as {@linkcode listSessions} reports it. */
export interface SessionInfo {
  /** The file. */
  path: string;
  /** The header's id. */
  id: string;
  /** The title: the slot's when there is a slot (empty means none), else the header's. */
  title?: string;
  /** Who set the title. */
  titleSource?: TitleSource;
  /** The header's working directory (`""` when it has none). */
  cwd: string;
  /** The header's `parentSession`: a session id (fork) or a file path (child). */
  parentSession?: string;
  /** The header's timestamp (`""` when it has none). */
  timestamp: string;
  /** File size in bytes. */
  size: number;
  /** Last modification time. */
  mtime: Date;
  /** The header's version (1 when it has none). */
  version: number;
}

/** Options for {@linkcode listSessions}. */
export interface ListSessionsOptions {
  /** Only this working directory's folder (its cwd slug). */
  cwd?: string;
  /** Include subagent sessions. Default false. */
  includeSubagents?: boolean;
  /**
   * Called for each file skipped (unreadable prefix, no header within the
   * prefix, not a session), with path and reason.
   */
  onSkip?: (path: string, reason: string) => void;
}

/**
 * The sessions under `<dataDir>/sessions/<slug>/*.jsonl`, newest first (by
 * mtime, then header timestamp, then path), reading only the first
 * {@linkcode LIST_HEAD_BYTES} of each file: never the whole file.
 *
 * Subagent sessions are left out unless `includeSubagents`: those whose
 * title source is `subagent`, and files inside another session's artifacts
 * folder (`<slug>/<session>/<agent>.jsonl`, where omp puts them). The title
 * is the slot's when there is a slot (an empty slot title means no title; the
 * header's is then ignored), else the header's. A file whose header does not
 * end within the prefix, or that is not a session, is skipped and reported
 * through `onSkip`.
 *
 * @example Listing the sessions of a data dir
 * ```ts
 * import { listSessions } from "@xdev/session";
 * import { deepEqual } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   deepEqual(await listSessions(dataDir), []);
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 *
 * @param dataDir The data dir (its `sessions/` folder is listed).
 * @param options One cwd's folder only, subagents, skip reporting.
 * @returns The sessions, newest first; `[]` when there is no sessions folder.
 * @throws {Error} When a folder exists but cannot be read.
 */
export async function listSessions(
  dataDir: string,
  options: ListSessionsOptions = {},
): Promise<SessionInfo[]> {
  const root = sessionsDir(dataDir);
  const folders = options.cwd === undefined
    ? await _subfolders(root)
    : [join(root, await canonicalCwdSlug(options.cwd))];
  const depth = options.includeSubagents === true ? _MAX_NESTING : 0;
  const files: string[] = [];
  for (const folder of folders) await _collect(folder, depth, files);
  const found = await _mapLimit(files, _CONCURRENCY, (p) => _scan(p, options));
  const sessions = found.filter((s): s is SessionInfo => s !== undefined);
  return sessions.sort(_newestFirst);
}

/** Folders searched below a session for subagents' sessions. */
const _MAX_NESTING = 4;
/** Files read at once. */
const _CONCURRENCY = 16;

/** The folders right under `root`; none when it does not exist. */
async function _subfolders(root: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of seam().readDir(root)) {
      if (e.isDirectory) out.push(join(root, e.name));
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  return out;
}

/**
 * The `*.jsonl` files in `folder`, then (while `depth` lasts) those in each
 * artifacts folder, a folder `<name>` beside a `<name>.jsonl`.
 */
async function _collect(
  folder: string,
  depth: number,
  out: string[],
): Promise<void> {
  const files = new Set<string>();
  const dirs: string[] = [];
  try {
    for await (const e of seam().readDir(folder)) {
      if (e.isFile && e.name.endsWith(".jsonl")) files.add(e.name);
      else if (e.isDirectory) dirs.push(e.name);
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  for (const name of files) out.push(join(folder, name));
  if (depth <= 0) return;
  for (const dir of dirs) {
    if (files.has(`${dir}.jsonl`)) {
      await _collect(join(folder, dir), depth - 1, out);
    }
  }
}

/** One file's entry, or undefined (reported when it is not a subagent's). */
async function _scan(
  path: string,
  options: ListSessionsOptions,
): Promise<SessionInfo | undefined> {
  let read: { info: Deno.FileInfo; bytes: Uint8Array };
  try {
    read = await _readHead(path);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    options.onSkip?.(path, `cannot read the first bytes: ${why}`);
    return undefined;
  }
  const { info, bytes } = read;
  let head;
  try {
    head = parseHead(bytes, {
      name: path,
      complete: bytes.length === info.size,
    });
  } catch (err) {
    if (!(err instanceof SessionSyntaxError)) throw err;
    options.onSkip?.(path, err.reason);
    return undefined;
  }
  const { slot, header } = head;
  const source = slot === undefined ? headerTitleSource(header) : slot.source;
  if (source === "subagent" && options.includeSubagents !== true) {
    return undefined;
  }
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
 * The file's metadata and its first {@linkcode LIST_HEAD_BYTES} (fewer when
 * it is shorter), read into one 4 KiB buffer: one read call on a local file.
 */
async function _readHead(
  path: string,
): Promise<{ info: Deno.FileInfo; bytes: Uint8Array }> {
  using file = await seam().openHandle(path, { read: true });
  const info = await file.stat();
  const buffer = new Uint8Array(LIST_HEAD_BYTES);
  const want = Math.min(info.size, LIST_HEAD_BYTES);
  const n = await readFull(file, buffer.subarray(0, want));
  return { info, bytes: buffer.subarray(0, n) };
}

function _newestFirst(a: SessionInfo, b: SessionInfo): number {
  return b.mtime.getTime() - a.mtime.getTime() ||
    _time(b.timestamp) - _time(a.timestamp) ||
    (a.path < b.path ? 1 : a.path > b.path ? -1 : 0);
}

/** A timestamp's milliseconds; one that does not parse sorts oldest. */
function _time(timestamp: string): number {
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? -Infinity : t;
}

/** `fn` over `items`, at most `limit` at a time, results in order. */
async function _mapLimit<T, U>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<U>,
): Promise<U[]> {
  const out: U[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  const n = Math.min(limit, items.length);
  await Promise.all(Array.from({ length: n }, worker));
  return out;
}
