/**
 * The settings checkpoint: a `custom` entry this library appends after each
 * compaction and reset, holding the settings folded along the path up to its
 * parent and the labels of every line before it. A backward read that meets
 * one can stop there: files this library writes open in O(window).
 *
 * @module
 */

import type { SessionEntry } from "./entries.ts";

/**
 * `customType` of the settings checkpoint (see {@linkcode SettingsCheckpoint}).
 *
 * @example The checkpoint after a reset
 * ```ts
 * import { isEntryOfType, Session } from "@xdev/session";
 * import { SETTINGS_CHECKPOINT_TYPE } from "./checkpoint.ts";
 * import { ok } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
 *   await session.appendResetBoundary();
 *   const last = session.entries.at(-1)!;
 *   ok(isEntryOfType(last, "custom") && last.customType === SETTINGS_CHECKPOINT_TYPE);
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 */
export const SETTINGS_CHECKPOINT_TYPE = "xdev.settings";

/** The `data` of a settings checkpoint. */
export interface SettingsCheckpoint {
  /** Format version: 1. */
  v: 1;
  /** Models per role along the path. */
  models: Record<string, string>;
  /** Whether a `model_change` for the default role is on the path. */
  explicitDefaultModel: boolean;
  /** The thinking level in effect. */
  thinkingLevel: string;
  /** The configured thinking selector in effect, or null. */
  configuredThinkingLevel: string | null;
  /** Labels in effect over every line before the checkpoint. */
  labels: Record<string, string>;
}

/** The settings a path's entries fold to: a checkpoint without its version and labels. */
export type Settings = Omit<SettingsCheckpoint, "v" | "labels">;

/**
 * The data of a checkpoint holding `settings` and `labels`.
 *
 * @param settings The settings folded along the path.
 * @param labels Labels in effect over every line before the checkpoint.
 * @returns The checkpoint's `data`.
 */
export function checkpointData(
  settings: Settings,
  labels: Record<string, string>,
): SettingsCheckpoint {
  return {
    v: 1,
    models: settings.models,
    explicitDefaultModel: settings.explicitDefaultModel,
    thinkingLevel: settings.thinkingLevel,
    configuredThinkingLevel: settings.configuredThinkingLevel,
    labels,
  };
}

/**
 * The checkpoint an entry holds, or undefined when it is not a well-formed
 * one (a malformed checkpoint is an ordinary `custom` entry).
 *
 * @param entry Any entry.
 * @returns The checkpoint's data.
 */
export function asCheckpoint(
  entry: SessionEntry,
): SettingsCheckpoint | undefined {
  if (
    entry.type !== "custom" || entry.customType !== SETTINGS_CHECKPOINT_TYPE
  ) return;
  const d = entry.data as Partial<SettingsCheckpoint> | null | undefined;
  if (
    d === null || typeof d !== "object" || d.v !== 1 ||
    d.models === null || typeof d.models !== "object" ||
    typeof d.explicitDefaultModel !== "boolean" ||
    typeof d.thinkingLevel !== "string" ||
    !(d.configuredThinkingLevel === null ||
      typeof d.configuredThinkingLevel === "string") ||
    d.labels === null || typeof d.labels !== "object"
  ) return;
  return d as SettingsCheckpoint;
}
