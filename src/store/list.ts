/**
 * Listing sessions: every session under a data dir, newest first, read from
 * the first 4 KiB of each file. The files are the only source: the session
 * index has its own list (`SessionIndex.list`), which takes a row in place
 * of each unchanged file's head and reads the rest as this list does.
 *
 * @module
 */

import {
  HEAD_BYTES,
  mapLimit,
  readSessionHead,
  sessionFiles,
} from "./_session_files.ts";
import {
  type SessionInfo,
  sessionInfo,
  sortNewestFirst,
  withSummary,
} from "./session_info.ts";
import { type SessionSummary, SummaryTally } from "../context/summary.ts";
import { quote } from "../format/errors.ts";
import { openRegular } from "../read/_open.ts";
import { IssueLog } from "../read/_decode.ts";
import { sessionRecords } from "../read/_records.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";
import { readLines } from "../read/lines.ts";

export type { SessionInfo } from "./session_info.ts";

/**
 * Bytes read from the start of each file: enough for the title slot and the
 * header. The slot is 256 bytes and a header a few hundred, so 4 KiB (one
 * page, omp's listing prefix too) holds both with room to spare, and listing
 * costs the same for a 1 KB session as for a 1 GB one.
 *
 * @example The head fits: the header ends well within the first 4 KiB
 * ```ts
 * import { LIST_HEAD_BYTES } from "./list.ts";
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
export const LIST_HEAD_BYTES: number = HEAD_BYTES;

/** Options for {@linkcode listSessions}. */
export interface ListSessionsOptions {
  /** Only this working directory's folder (its cwd slug). */
  cwd?: string;
  /** Include subagent sessions. Default false. */
  includeSubagents?: boolean;
  /**
   * Give each entry `firstMessage`, `messageCount` and `lastActivity`, and
   * sort by `lastActivity`. Default false. Without an index this reads
   * every file whole (streamed, one at a time per reader); a
   * `SessionIndex` keeps them and reads only what changed.
   */
  summary?: boolean;
  /**
   * Called for each file skipped (unreadable prefix, no header within the
   * prefix, not a session), with path and reason.
   */
  onSkip?: (path: string, reason: string) => void;
}

/**
 * The sessions under `<dataDir>/sessions/<slug>/*.jsonl`, newest first (by
 * mtime, then header timestamp, then path), reading only the first
 * 4 KiB of each file (the title slot and the header): never the whole file.
 *
 * Subagent sessions are left out unless `includeSubagents`: those whose
 * title source is `subagent`, and files inside another session's artifacts
 * folder (`<slug>/<session>/<agent>.jsonl`, where omp puts them). The title
 * is the slot's when there is a slot (an empty slot title means no title; the
 * header's is then ignored), else the header's. A file whose header does not
 * end within the prefix, or that is not a session, is skipped and reported
 * through `onSkip`. The heads are read a few files at a time, each read
 * awaited, so a list of thousands of sessions leaves the event loop free.
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
  const files = await sessionFiles(dataDir, options);
  const found = await mapLimit(
    files,
    _CONCURRENCY,
    (f) => _listed(f.path, options),
  );
  const sessions = found.filter((s): s is SessionInfo => s !== undefined);
  return sortNewestFirst(sessions);
}

/**
 * Heads read at once: enough for the reads to overlap and keep the disk
 * (or the page cache) busy, few enough to hold few files open.
 */
const _CONCURRENCY = 16;

/** One file's entry, or undefined (reported when it is not a subagent's). */
async function _listed(
  path: string,
  options: ListSessionsOptions,
): Promise<SessionInfo | undefined> {
  const read = await readSessionHead(path, { isFile: true }); // so its folder listed it
  if ("skip" in read) {
    options.onSkip?.(path, read.skip);
    return undefined;
  }
  const info = sessionInfo(path, read.info, read.head);
  if (info.titleSource === "subagent" && options.includeSubagents !== true) {
    return undefined;
  }
  if (options.summary !== true) return info;
  try {
    return withSummary(info, await summarizeFile(path));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    options.onSkip?.(path, `cannot read its entries: ${why}`);
    return info;
  }
}

/**
 * A file's summary (`SessionInfo.firstMessage`, `messageCount`,
 * `lastActivity`): its entries streamed in file order through the one
 * fold ({@linkcode SummaryTally}) the index's `summary` facet runs too.
 * Damage is read around as `Session.open` reads it.
 *
 * @example The summary of a session omp wrote
 * ```ts
 * import { summarizeFile } from "./list.ts";
 * import { equal } from "node:assert/strict";
 * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
 * const s = await summarizeFile(url.pathname);
 * equal(s.messageCount, 47);
 * equal(s.firstMessage?.startsWith("Explain what src/session/store.ts does"), true);
 * ```
 *
 * @param path The session file.
 * @returns The summary.
 * @throws {Error} When the file cannot be read; {@linkcode SessionSyntaxError} without a header.
 */
export async function summarizeFile(path: string): Promise<SessionSummary> {
  const file = await openRegular(path, `Cannot summarize ${quote(path)}`);
  try {
    const tally = new SummaryTally();
    const lines = readLines(file, { maxLineBytes: DEFAULT_MAX_LINE_BYTES });
    for await (const r of sessionRecords(lines, path, new IssueLog())) {
      if (r.kind === "entry") tally.take(r.value);
    }
    return tally.summary;
  } finally {
    await file?.[Symbol.asyncDispose]();
  }
}
