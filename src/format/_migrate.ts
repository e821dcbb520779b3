/**
 * The migration of version 1 and 2 records to version 3: in memory on
 * every read, and on disk at a session's first write
 * (`session/_migrate_file.ts`).
 *
 * @module
 */

import { ENTRY_ID_LENGTH } from "./_entry_id.ts";
import { SESSION_VERSION } from "./header.ts";

/**
 * Bring one parsed line of a version 1 or 2 file to version 3, in place, as
 * omp does; lines must be given in file order. Version 1 lines get ids
 * (minted in file order, `00000001`, `00000002` …, so two opens of one file
 * agree) and a `parentId` chain in file order, and a compaction's
 * `firstKeptEntryIndex` (an index into the file's records, the header being
 * 0; only earlier records resolve, as in omp) becomes `firstKeptEntryId`;
 * version 2 messages with role `hookMessage` become role `custom`.
 *
 * @example Migrating version 1 lines
 * ```ts
 * import { recordMigrator } from "./_migrate.ts";
 * import { equal } from "node:assert/strict";
 *
 * const migrate = recordMigrator(1)!;
 * const a: Record<string, unknown> = { type: "message" };
 * const b: Record<string, unknown> = { type: "message" };
 * migrate({ index: 1, value: a });
 * migrate({ index: 2, value: b });
 * equal(b.parentId, a.id);
 * ```
 *
 * @param version The header's version.
 * @returns A function migrating one record (true when it changed it), or
 * undefined for version 3 and later.
 */
export function recordMigrator(
  version: number,
):
  | ((record: { index: number; value: Record<string, unknown> }) => boolean)
  | undefined {
  if (version >= SESSION_VERSION) return undefined;
  const idAt = new Map<number, string>();
  let previous: string | null = null;
  let n = 0;
  return ({ index, value: v }) => {
    let changed = false;
    if (version < 2) {
      changed = true;
      const id = (++n).toString(16).padStart(ENTRY_ID_LENGTH, "0");
      v.id = id;
      v.parentId = previous;
      idAt.set(index, id);
      previous = id;
      if (
        v.type === "compaction" && typeof v.firstKeptEntryIndex === "number"
      ) {
        const target = idAt.get(v.firstKeptEntryIndex);
        if (target !== undefined) v.firstKeptEntryId = target;
        delete v.firstKeptEntryIndex;
      }
    }
    const m = v.message;
    if (
      v.type === "message" && m !== null && typeof m === "object" &&
      (m as { role?: unknown }).role === "hookMessage"
    ) {
      (m as { role: string }).role = "custom";
      changed = true;
    }
    return changed;
  };
}
