/**
 * A new session's head in memory: the header and the title slot.
 *
 * @module
 */

import { SESSION_VERSION, type SessionHeader } from "../format/header.ts";
import { cleanTitle, type TitleSlot } from "../format/title_slot.ts";
import type { LoadedSession } from "../read/_records.ts";
import type { SessionCreateOptions } from "./options.ts";

/** Header fields a caller's extra fields never replace. */
const _HEADER_KEYS = new Set([
  "type",
  "version",
  "id",
  "timestamp",
  "cwd",
  "parentSession",
]);

/**
 * A session with no entries yet, as if read from a file.
 *
 * @param options What the caller asked for.
 * @param head The id, the creation time and the absolute cwd.
 * @returns The loaded state of the new session.
 */
export function newSession(
  options: SessionCreateOptions,
  head: { id: string; timestamp: string; cwd: string },
): LoadedSession {
  const { id, timestamp, cwd } = head;
  const header: SessionHeader = {
    type: "session",
    version: SESSION_VERSION,
    id,
    timestamp,
    cwd,
    ...(options.parentSession === undefined
      ? {}
      : { parentSession: options.parentSession }),
    // Extra fields come last in the line but never replace the ones above.
    ...Object.fromEntries(
      Object.entries(options.header ?? {}).filter(([k]) =>
        !_HEADER_KEYS.has(k)
      ),
    ),
  };
  const title = options.title === undefined ? "" : cleanTitle(options.title);
  const slot: TitleSlot = {
    title,
    updatedAt: timestamp,
    ...(options.titleSource === undefined
      ? {}
      : { source: options.titleSource }),
  };
  return {
    slot,
    slotState: "ok",
    header,
    entries: [],
    byId: new Map(),
    issues: [],
    migrated: false,
    seen: 0,
    bytes: 0,
    windowed: false,
  };
}
