/**
 * OLD, do not import from ported code (deleted with `src/fs/`): the
 * session files' heads read synchronously, from snapshots, with event-loop
 * turns, kept for the index and the search scan until they move onto
 * `_session_files.ts` (awaited reads, a bounded number in flight) and
 * `session_info.ts`. The list and the fork no longer use it.
 *
 * @module
 */

import { SessionSyntaxError } from "../format/errors.ts";
import { headerTitleSource, headerVersion } from "../format/header.ts";
import { notAFile, readFull, readFullSync } from "../fs/_read.ts";
import { seam } from "../fs/_seam.ts";
import { openToRead, pathOf, type ReadFrom } from "../fs/_snapshot.ts";
import { type Head, parseHead } from "../read/_head.ts";
import { HEAD_BYTES } from "./_session_files.ts";
import type { SessionInfo } from "./session_info.ts";
import { EventLoopTurns } from "../fs/_turns.ts";

export {
  type FoundFile,
  HEAD_BYTES,
  sessionFiles,
  type SessionFilesOptions,
} from "./_session_files.ts";
export { sortNewestFirst } from "./session_info.ts";

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
