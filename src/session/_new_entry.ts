/**
 * New entries: a payload under its envelope, and the settings checkpoint
 * written after a compaction or a reset.
 *
 * @module
 */

import {
  checkpointData,
  SETTINGS_CHECKPOINT_TYPE,
} from "../format/checkpoint.ts";
import { newEntryId } from "../format/_entry_id.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { IdSet } from "./_ids.ts";
import type { SessionView } from "./_view.ts";
import type { EntryPayload } from "./entry_appender.ts";

const _ENVELOPE_KEYS = new Set(["type", "id", "parentId", "timestamp"]);

/**
 * The payload under a new envelope: type, a new id, the parent and the
 * time first, then the payload's own fields (an envelope field it carries
 * is ignored).
 *
 * @param p The payload.
 * @param parentId The parent.
 * @param taken Ids the new one must avoid.
 * @param now The time.
 * @returns The entry.
 * @throws {TypeError} When the payload has no type.
 */
export function envelope(
  p: EntryPayload,
  parentId: string | null,
  taken: IdSet,
  now: Date,
): SessionEntry {
  if (typeof p.type !== "string" || p.type.length === 0) {
    throw new TypeError("Cannot append: an entry needs a type");
  }
  const entry: Record<string, unknown> = {
    type: p.type,
    id: newEntryId(taken),
    parentId,
    timestamp: now.toISOString(),
  };
  const payload = p as Record<string, unknown>;
  for (const key of Object.keys(payload)) {
    if (!_ENVELOPE_KEYS.has(key)) entry[key] = payload[key];
  }
  return entry as SessionEntry;
}

/**
 * The checkpoint after a boundary: the settings at the leaf and every label.
 *
 * @param view The session as it is now (its leaf is the boundary).
 * @param taken Ids the new one must avoid.
 * @param now The time.
 * @returns The checkpoint entry.
 */
export function checkpoint(
  view: SessionView,
  taken: IdSet,
  now: Date,
): SessionEntry {
  return {
    type: "custom",
    id: newEntryId(taken),
    parentId: view.leafId,
    timestamp: now.toISOString(),
    customType: SETTINGS_CHECKPOINT_TYPE,
    data: checkpointData(view.settings(), view.labels()),
  } as SessionEntry;
}
