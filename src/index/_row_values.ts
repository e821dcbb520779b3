/**
 * What a row says, made from a file (its head columns, and its state
 * columns from a read that recorded it) and read back (the list entry of a
 * row, the record a windowed open resumes from).
 *
 * @module
 */

import { PathSteps } from "../context/_path_steps.ts";
import { foldSettings } from "../context/settings.ts";
import { pathTo } from "../context/tree.ts";
import type { PathEnd } from "../context/tree.ts";
import type { FileInfo } from "../_fs.ts";
import { headerTitleSource, headerVersion } from "../format/header.ts";
import type { TitleSource } from "../format/title_slot.ts";
import type { Head } from "../read/_head.ts";
import { IdFlags } from "../read/_id_set.ts";
import type { LoadedSession } from "../read/_records.ts";
import type { ResumeFrom } from "../read/_resume.ts";
import { readSessionHead } from "../store/_session_files.ts";
import type { SessionInfo } from "../store/session_info.ts";
import { tailHashAt } from "./_facets.ts";
import { hashBytes } from "./_hash.ts";
import type { HeadRow, RowChecks, SessionRow, StateRow } from "./_rows.ts";

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
  info: FileInfo,
  head: Head,
  headBytes: Uint8Array,
  depth: number,
): HeadRow {
  const { slot, header } = head;
  const source = slot === undefined ? headerTitleSource(header) : slot.source;
  const title = slot === undefined ? header.title : slot.title;
  return {
    path,
    dev: info.dev,
    ino: info.ino,
    size: info.size,
    mtimeMs: info.mtimeMs,
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
  info: FileInfo,
): boolean {
  return row.size === info.size && row.mtimeMs === info.mtimeMs &&
    row.ino === info.ino && row.dev === info.dev;
}

/**
 * Whether a file still holds the bytes its row was made from, as far as a
 * changed stat would have them checked: the same head (title slot and
 * header), and the same bytes before the row's offset; for a row without
 * a state (a version 1 or 2 file, read whole), before where each facet
 * stopped.
 *
 * @param path The file.
 * @param checks Its row's hashes and offsets (undefined: no row).
 * @param facetEnds Where each facet stopped, and the hash before.
 * @returns Whether its head and those bytes hash as the row says.
 */
export async function holdsRow(
  path: string,
  checks: RowChecks | undefined,
  facetEnds: () => { offset: number; tailHash: string }[],
): Promise<boolean> {
  if (checks === undefined) return false;
  const ends = checks.offset !== null && checks.tailHash !== null
    ? [{ offset: checks.offset, tailHash: checks.tailHash }]
    : facetEnds();
  if (ends.length === 0) return false;
  const read = await readSessionHead(path, { isFile: true });
  if (
    "skip" in read || read.head.bodyStart !== checks.bodyStart ||
    hashBytes(read.headBytes) !== checks.headHash
  ) return false;
  for (const { offset, tailHash } of ends) {
    if (await tailHashAt(path, offset) !== tailHash) return false;
  }
  return true;
}

/**
 * The list entry of a row, with the file's current metadata.
 *
 * @param row The head columns.
 * @param info The file's metadata now.
 * @returns The entry, as the list without the index gives it.
 */
export function infoOfRow(row: HeadRow, info: FileInfo): SessionInfo {
  const session: SessionInfo = {
    path: row.path,
    id: row.id,
    cwd: row.cwd,
    timestamp: row.timestamp,
    size: info.size,
    mtime: new Date(info.mtimeMs),
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
    bodyStart: row.bodyStart,
    path: PathSteps.decode(row.pathSteps),
    pathEnd: (row.pathEnd ?? "root") as PathEnd,
    labels: JSON.parse(row.labels) as Record<string, string>,
    ids: IdFlags.decode(row.ids),
    entries: row.entries ?? 0,
    messages: row.messages ?? 0,
  };
}

/**
 * The state columns of a read that recorded the file.
 *
 * @param path The file.
 * @param loaded What the read gave.
 * @returns The columns, or undefined when the read recorded nothing.
 */
export async function stateOf(
  path: string,
  loaded: LoadedSession,
): Promise<StateRow | undefined> {
  const record = loaded.record;
  const end = loaded.recordEnd;
  if (record === undefined || end === undefined) return undefined;
  const tail = await tailHashAt(path, end);
  if (tail === undefined) return undefined;
  const window = pathTo(loaded.leafId ?? null, loaded.byId).entries;
  const settings = foldSettings(window, loaded.base?.settings);
  const leaf = loaded.leafId === undefined || loaded.leafId === null
    ? undefined
    : loaded.byId.get(loaded.leafId);
  return {
    offset: end,
    tailHash: tail,
    entries: record.entries,
    messages: record.messages,
    leafId: loaded.leafId ?? null,
    model: settings.models.default ?? null,
    thinkingLevel: settings.thinkingLevel,
    created: typeof loaded.header.timestamp === "string"
      ? loaded.header.timestamp
      : null,
    updated: typeof leaf?.timestamp === "string" ? leaf.timestamp : null,
    pathSteps: record.path.encode(),
    pathEnd: record.pathEnd,
    labels: JSON.stringify(record.labels),
    ids: record.ids.encode(),
  };
}
