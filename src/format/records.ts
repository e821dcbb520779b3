/**
 * A session file's lines as records: the title slot, the header, then the
 * entries, each with where it sits.
 *
 * @module
 */

import type { SessionEntry } from "./entries.ts";
import type { SessionHeader } from "./header.ts";
import type { TitleSlot } from "./title_slot.ts";

/** One parsed line of a session file, in file order. */
export type SessionRecord =
  | SessionRecordOf<"title", TitleSlot>
  | SessionRecordOf<"header", SessionHeader>
  | SessionRecordOf<"entry", SessionEntry>;

/** A parsed line of one kind, and where it sits. */
export interface SessionRecordOf<K extends string, V> {
  /** `title` (line 1), `header`, or `entry`. */
  kind: K;
  /** The parsed line (entries of version 1 and 2 files migrated). */
  value: V;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line. */
  offset: number;
  /** Bytes the line occupies, its line ending included. */
  size: number;
}
