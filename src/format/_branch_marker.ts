/**
 * The branch marker (DESIGN §3.6): a `custom` entry with `customType:
 * "branch"` whose `data.to` names the leaf the session moves to. What it
 * is called, and how the leaf it names is read.
 *
 * @module
 */

import type { SessionEntry } from "./entries.ts";

/**
 * `customType` of the branch marker (DESIGN §3.6).
 *
 * @example The marker's `customType`
 * ```ts
 * import { BRANCH_MARKER_TYPE } from "./_branch_marker.ts";
 * import { equal } from "node:assert/strict";
 * equal(BRANCH_MARKER_TYPE, "branch");
 * ```
 */
export const BRANCH_MARKER_TYPE = "branch";

/**
 * The leaf a branch marker (DESIGN §3.6) moves to: a `custom` entry with
 * `customType: "branch"` names it in `data.to`. Undefined for any other entry.
 *
 * @example Following a branch marker
 * ```ts
 * import { branchMarkerTarget } from "./_branch_marker.ts";
 * import { equal } from "node:assert/strict";
 * const marker = {
 *   type: "custom", customType: "branch", data: { to: "0000000a" },
 *   id: "0000000b", parentId: "0000000a", timestamp: "2026-01-01T00:00:00.000Z",
 * };
 * equal(branchMarkerTarget(marker), "0000000a");
 * ```
 */
export function branchMarkerTarget(entry: SessionEntry): string | undefined {
  if (entry.type !== "custom" || entry.customType !== BRANCH_MARKER_TYPE) {
    return undefined;
  }
  const data = entry.data;
  if (data === null || typeof data !== "object") return undefined;
  const to = (data as { to?: unknown }).to;
  return typeof to === "string" && to.length > 0 ? to : undefined;
}
