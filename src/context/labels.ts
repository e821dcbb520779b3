/**
 * Labels: a `label` entry sets its target's label, one without `label`
 * clears it; the latest one per target wins.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { LatestByKey } from "./settings.ts";

/**
 * Labels in effect, in file order: a `label` entry sets its target's label,
 * one without `label` clears it.
 *
 * @example Setting and clearing labels
 * ```ts
 * import type { SessionEntry } from "@xdev/session";
 * import { collectLabels } from "./labels.ts";
 * import { deepEqual } from "node:assert/strict";
 * const t = "2026-01-01T00:00:00.000Z";
 * const entries: SessionEntry[] = [
 *   { type: "label", id: "0000000b", parentId: "0000000a", timestamp: t,
 *     targetId: "0000000a", label: "start" },
 *   { type: "label", id: "0000000c", parentId: "0000000b", timestamp: t,
 *     targetId: "0000000b", label: "gone" },
 *   { type: "label", id: "0000000d", parentId: "0000000c", timestamp: t,
 *     targetId: "0000000b" },
 * ];
 * deepEqual(collectLabels(entries), { "0000000a": "start" });
 * ```
 *
 * @param entries Entries in file order.
 * @param base Labels in effect before `entries`.
 * @returns Entry id → label.
 */
export function collectLabels(
  entries: Iterable<SessionEntry>,
  base: Record<string, string> = {},
): Record<string, string> {
  const labels = new Map<string, string>(Object.entries(base));
  for (const e of entries) {
    if (e.type !== "label" || typeof e.targetId !== "string") continue;
    if (typeof e.label === "string" && e.label.length > 0) {
      labels.set(e.targetId, e.label);
    } else labels.delete(e.targetId);
  }
  return Object.fromEntries(labels);
}

/**
 * The `label` entries of a file read from its end: only the latest per
 * target is kept, then {@linkcode collectLabels} runs over those.
 */
export class LatestLabels {
  readonly #latest = new LatestByKey((e) =>
    e.type === "label" && typeof e.targetId === "string"
      ? e.targetId
      : undefined
  );

  /** Offer an entry, latest first. */
  offer(entry: SessionEntry): void {
    this.#latest.offer(entry);
  }

  /** The labels in effect, over `base` (labels of the lines before). */
  collect(base?: Record<string, string>): Record<string, string> {
    return collectLabels(this.#latest.inOrder(), base);
  }
}
