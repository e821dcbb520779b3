/**
 * What a row says, made from a file (its head columns) and read back (the
 * list entry of a row, the record a windowed open resumes from).
 *
 * @module
 */

import { PathSteps } from "../../context/_path_steps.ts";
import type { PathEnd } from "../../context/tree.ts";
import { headerTitleSource, headerVersion } from "../../format/header.ts";
import type { TitleSource } from "../../format/title_slot.ts";
import type { Head } from "../../read/_head.ts";
import { IdFlags } from "../../read/_id_set.ts";
import type { ResumeFrom } from "../../read/_resume.ts";
import type { SessionInfo } from "../session_info.ts";
import { hashBytes } from "./_hash.ts";
import type { HeadRow, SessionRow } from "./_rows.ts";

/**
 * The head columns of a file from its head and metadata.
 *
 * @param path The file.
 * @param info Its metadata.
 * @param head Its head.
 * @param headBytes Its first `head.bodyStart` bytes.
 * @param depth 0 in a cwd folder; more inside artifacts folders.
 * @returns The columns.
 */
export function headRow(
  path: string,
  info: Deno.FileInfo,
  head: Head,
  headBytes: Uint8Array,
  depth: number,
): HeadRow {
  const { slot, header } = head;
  const source = slot === undefined ? headerTitleSource(header) : slot.source;
  const title = slot === undefined ? header.title : slot.title;
  return {
    path,
    dev: info.dev ?? 0,
    ino: info.ino ?? 0,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? 0,
    id: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    title: typeof title === "string" && title.length > 0 ? title : null,
    titleSource: source ?? null,
    parentSession: typeof header.parentSession === "string" &&
        header.parentSession.length > 0
      ? header.parentSession
      : null,
    timestamp: typeof header.timestamp === "string" ? header.timestamp : "",
    version: headerVersion(header),
    subagent: depth > 0 || source === "subagent" ? 1 : 0,
    bodyStart: head.bodyStart,
    headHash: hashBytes(headBytes),
  };
}

/** Whether a row was made from a file that still has this inode, size and mtime. */
export function sameStat(
  row: Pick<HeadRow, "size" | "mtimeMs" | "ino" | "dev">,
  info: Deno.FileInfo,
): boolean {
  return row.size === info.size &&
    row.mtimeMs === (info.mtime?.getTime() ?? 0) &&
    row.ino === (info.ino ?? 0) && row.dev === (info.dev ?? 0);
}

/**
 * The list entry of a row, with the file's current metadata.
 *
 * @param row The head columns.
 * @param info The file's metadata now.
 * @returns The entry, as the list without the index gives it.
 */
export function infoOfRow(row: HeadRow, info: Deno.FileInfo): SessionInfo {
  const session: SessionInfo = {
    path: row.path,
    id: row.id,
    cwd: row.cwd,
    timestamp: row.timestamp,
    size: info.size,
    mtime: info.mtime ?? new Date(0),
    version: row.version,
  };
  if (row.title !== null) session.title = row.title;
  if (row.titleSource !== null) {
    session.titleSource = row.titleSource as TitleSource;
  }
  if (row.parentSession !== null) session.parentSession = row.parentSession;
  return session;
}

/**
 * What a resumed open needs, from a row, or undefined when it has no state.
 *
 * @param row The row.
 * @returns The record of the row's offset.
 * @throws {RangeError} When the stored bytes are damaged.
 */
export function resumeOfRow(row: SessionRow): ResumeFrom | undefined {
  if (
    row.offset === null || row.pathSteps === null || row.ids === null ||
    row.labels === null
  ) return undefined;
  return {
    offset: row.offset,
    path: PathSteps.decode(row.pathSteps),
    pathEnd: (row.pathEnd ?? "root") as PathEnd,
    labels: JSON.parse(row.labels) as Record<string, string>,
    ids: IdFlags.decode(row.ids),
    entries: row.entries ?? 0,
    messages: row.messages ?? 0,
  };
}
