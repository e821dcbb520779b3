/**
 * One session as the list reports it, made from its file's head and
 * metadata, and the list's order.
 *
 * @module
 */

import type { FileInfo } from "../_fs.ts";
import type { SessionSummary } from "../context/summary.ts";
import { headerTitleSource, headerVersion } from "../format/header.ts";
import type { TitleSource } from "../format/title_slot.ts";
import type { Head } from "../read/_head.ts";

/** One session as `listSessions` reports it. */
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
  /**
   * With the list's `summary` option: the first user message's text, cut
   * to 200 characters (see `SessionSummary`); absent when none has text.
   */
  firstMessage?: string;
  /** With `summary`: the `message` entries in the file, every branch. */
  messageCount?: number;
  /** With `summary`: the last entry's timestamp (the list sorts by it). */
  lastActivity?: string;
}

/**
 * What the list says of a file from its head and metadata.
 *
 * @param path The file.
 * @param info Its size and modification time.
 * @param head Its head.
 * @returns The entry.
 */
export function sessionInfo(
  path: string,
  info: Pick<FileInfo, "size" | "mtimeMs">,
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
    mtime: new Date(info.mtimeMs),
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
 * Sort in the list's order: newest last activity first (where the list
 * read the entries: the last entry's time, else the header's for a
 * session without entries; else the mtime), then newest header time,
 * then path (each key computed once, not at every comparison).
 *
 * @param sessions The sessions.
 * @returns The same array, sorted.
 */
export function sortNewestFirst(sessions: SessionInfo[]): SessionInfo[] {
  const keys = sessions.map((s) => ({
    s,
    mtime: s.messageCount === undefined
      ? s.mtime.getTime()
      : _time(s.lastActivity ?? s.timestamp, s.mtime.getTime()),
    time: _time(s.timestamp),
  }));
  keys.sort((a, b) =>
    b.mtime - a.mtime || b.time - a.time ||
    (a.s.path < b.s.path ? 1 : a.s.path > b.s.path ? -1 : 0)
  );
  for (let i = 0; i < keys.length; i++) sessions[i] = keys[i]!.s;
  return sessions;
}

/** A timestamp's milliseconds; one that does not parse gives `fallback` (sorts oldest). */
function _time(timestamp: string, fallback = -Infinity): number {
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? fallback : t;
}

/**
 * Put a summary's fields on a list entry.
 *
 * @param info The entry (changed).
 * @param summary What the fold gave.
 * @returns The entry.
 */
export function withSummary(
  info: SessionInfo,
  summary: SessionSummary,
): SessionInfo {
  if (summary.firstMessage !== undefined) {
    info.firstMessage = summary.firstMessage;
  }
  info.messageCount = summary.messageCount;
  if (summary.lastActivity !== undefined) {
    info.lastActivity = summary.lastActivity;
  }
  return info;
}
