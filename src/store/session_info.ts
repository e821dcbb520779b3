/**
 * One session as the list reports it.
 *
 * @module
 */

import type { TitleSource } from "../format/title_slot.ts";

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
}
