/**
 * The windowed loader: open a session at the cost of its window, reading the
 * file backwards from the end (DESIGN §4).
 *
 * The window is the active path from the leaf back to the governing reset or
 * compaction window; only its lines are kept and fully parsed. Past the
 * window the walk goes on along the path with envelope checks only, folding
 * the settings the context needs (models, thinking level) and the labels,
 * until the root or a {@linkcode SETTINGS_CHECKPOINT_TYPE} entry, which
 * holds those settings as of its position: files this library writes carry
 * one after every compaction and reset, so they open in O(window); other
 * files (omp's) cost a byte scan of the part before the window, still
 * without parsing it or holding it.
 *
 * @module
 */

import type { CarriedSettings } from "../context/context.ts";
import {
  asEntry,
  type AssistantMessage,
  branchMarkerTarget,
  type SessionEntry,
} from "../format/entries.ts";
import { type Line, type ReaderAt, readLinesBackward } from "./lines.ts";
import { decodeLine, type IssueLog } from "./_records.ts";
import type { PathEnd } from "../context/tree.ts";

/**
 * `customType` of the settings checkpoint: a `custom` entry whose `data`
 * holds the settings folded along the path up to its parent and the labels
 * of every line before it (see {@linkcode SettingsCheckpoint}).
 *
 * @example The checkpoint after a reset
 * ```ts
 * import { isEntryOfType, Session, SETTINGS_CHECKPOINT_TYPE } from "@xdev/session";
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

/** What the windowed loader kept. */
export interface WindowLoad {
  /** The window's entries, in file order. */
  entries: SessionEntry[];
  /** The leaf, or null for a session without entries. */
  leafId: string | null;
  /** Settings from the path before the window. */
  carried: CarriedSettings;
  /** Labels in effect over the whole file. */
  labels: Record<string, string>;
  /** The path before the window, root first, as `{id, type}`. */
  pathPrefix: { id: string; type: string }[];
  /** How the walk from the leaf ended. */
  pathEnd: PathEnd;
  /** Lines looked at. */
  seen: number;
  /** Bytes read. */
  bytes: number;
  /** Whether a settings checkpoint ended the walk. */
  checkpoint: boolean;
}

const _ENVELOPE =
  /^\{"type":"([^"\\]{1,64})","id":"([^"\\]{1,128})","parentId":(?:null|"([^"\\]{0,128})")[,}]/;
const _ENVELOPE_BYTES = 320;
/** Path lines before the window up to this size are parsed, not trusted on their envelope. */
const _PARSE_PATH_LINE_BYTES = 4 * 1024;
const _CLOSE_BRACE = 0x7d;
const _ascii = new TextDecoder("utf-8");

interface _Envelope {
  type: string;
  id: string;
  parentId: string | null;
}

/** The envelope of a line written envelope first, without parsing the line. */
function _envelope(bytes: Uint8Array): _Envelope | undefined {
  const m = _ENVELOPE.exec(_ascii.decode(bytes.subarray(0, _ENVELOPE_BYTES)));
  if (m === null) return undefined;
  return { type: m[1]!, id: m[2]!, parentId: m[3] ?? null };
}

/**
 * The id of every entry line of a session file, for minting ids that are
 * unique in the whole file when only its window is in memory. Envelope-first
 * lines are not parsed; the others (omp's `custom` lines) are.
 *
 * @param lines The file's lines after the header.
 * @returns The ids.
 */
export async function scanEntryIds(
  lines: AsyncIterable<Line>,
): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const line of lines) {
    if (line.bytes.length === 0) continue;
    const env = _envelope(line.bytes);
    if (env !== undefined) {
      ids.add(env.id);
      continue;
    }
    try {
      const value = JSON.parse(_ascii.decode(line.bytes)) as { id?: unknown };
      if (typeof value?.id === "string") ids.add(value.id);
    } catch {
      // Not JSON (damage the loader reports): it holds no id to avoid.
    }
  }
  return ids;
}

type _Phase = "leaf" | "window" | "kept" | "settings";

/** Folds settings found walking backwards: the first one found is the latest. */
class _BackwardSettings {
  thinking: { level: string; configured: string | null } | undefined;
  readonly models = new Map<string, string>();
  explicitDefault = false;
  inferredDefault: string | undefined;
  checkpoint: SettingsCheckpoint | undefined;

  /** Whether the latest assistant's model is still wanted. */
  get wantsAssistant(): boolean {
    return this.inferredDefault === undefined && !this.explicitDefault;
  }

  take(e: SessionEntry): void {
    if (e.type === "thinking_level_change") {
      if (this.thinking !== undefined) return;
      const level = typeof e.thinkingLevel === "string"
        ? e.thinkingLevel
        : null;
      const configured = typeof e.configured === "string" ? e.configured : null;
      this.thinking = {
        level: level ?? "off",
        configured: configured ?? level,
      };
    } else if (e.type === "model_change") {
      if (typeof e.model !== "string" || e.model.length === 0) return;
      const role = typeof e.role === "string" ? e.role : "default";
      if (!this.models.has(role)) this.models.set(role, e.model);
      if (role === "default") this.explicitDefault = true;
    } else if (e.type === "message" && this.wantsAssistant) {
      const m = e.message as AssistantMessage | undefined;
      if (m?.role === "assistant") {
        this.inferredDefault = `${m.provider}/${m.model}`;
      }
    }
  }

  /** The settings in forward terms, merged over the checkpoint if one was found. */
  carried(): CarriedSettings {
    const cp = this.checkpoint;
    const models: Record<string, string> = { ...(cp?.models ?? {}) };
    for (const [role, model] of this.models) {
      if (role !== "default") models[role] = model;
    }
    let explicitDefault = false;
    if (this.explicitDefault) {
      models.default = this.models.get("default")!;
      explicitDefault = true;
    } else if (cp?.explicitDefaultModel === true) {
      explicitDefault = true; // the checkpoint's default stands
    } else if (this.inferredDefault !== undefined) {
      models.default = this.inferredDefault;
    }
    return {
      models,
      explicitDefaultModel: explicitDefault,
      thinkingLevel: this.thinking?.level ?? cp?.thinkingLevel ?? "off",
      configuredThinkingLevel: this.thinking !== undefined
        ? this.thinking.configured
        : cp?.configuredThinkingLevel ?? null,
    };
  }
}

function _asCheckpoint(e: SessionEntry): SettingsCheckpoint | undefined {
  if (e.type !== "custom" || e.customType !== SETTINGS_CHECKPOINT_TYPE) return;
  const d = e.data as Partial<SettingsCheckpoint> | null | undefined;
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

/**
 * Load the window of a version 3 session by reading backwards.
 *
 * @param source The file, by position.
 * @param bodyStart The offset of the first entry line (after the header).
 * @param log Where damage goes.
 * @param useCheckpoints Whether a settings checkpoint may end the walk
 * (false: walk to the root, for a complete active path).
 * @returns The window, or undefined when the path cannot be completed
 * backwards (a missing parent, a branch marker whose target is absent, a
 * parent written after its child): the caller then reads the whole file,
 * which is slower but settles those cases exactly as a full read does.
 */
export async function loadWindow(
  source: ReaderAt,
  bodyStart: number,
  log: IssueLog,
  useCheckpoints = true,
): Promise<WindowLoad | undefined> {
  const retained: SessionEntry[] = [];
  const prefix: { id: string; type: string }[] = [];
  const labels = new Map<string, string | null>();
  const settings = new _BackwardSettings();
  const onPath = new Set<string>();
  /** Ids of the lines walked past: a wanted id among them has a later duplicate. */
  const passed = new Set<string>();
  let phase: _Phase = "leaf";
  let want: string | null = null;
  let leafId: string | null = null;
  let firstKept: string | null = null;
  let pathEnd: PathEnd = "root";
  let seen = 0;
  let lowest = source.size;
  let checkpoint = false;

  const useCheckpoint = (cp: SettingsCheckpoint): void => {
    settings.checkpoint = cp;
    for (const [target, label] of Object.entries(cp.labels)) {
      if (!labels.has(target) && typeof label === "string") {
        labels.set(target, label);
      }
    }
  };

  const parse = (line: Line): SessionEntry | undefined => {
    const value = decodeLine(line, log);
    if (value === undefined) return undefined;
    const checked = asEntry(value);
    if ("reason" in checked) {
      log.add(
        "not-an-entry",
        0,
        line.offset,
        `the line at byte ${line.offset} was skipped: ${checked.reason}`,
      );
      return undefined;
    }
    return checked.entry;
  };

  for await (const line of readLinesBackward(source)) {
    if (line.offset < bodyStart) break;
    seen++;
    lowest = line.offset;
    const env = line.bytes.length > 0 ? _envelope(line.bytes) : undefined;
    const onWant = env !== undefined && env.id === want;
    // Parse a line only when it can matter: the leaf, the window, settings
    // on the path, labels anywhere, and lines whose envelope is not first.
    // Other path lines before the window are parsed when small, so that a
    // damaged one ends the path as it does in a full read; a large one
    // (a tool output) is checked for its closing brace only.
    const full = env === undefined || phase === "leaf" ||
      env.type === "label" ||
      (onWant &&
        (phase !== "settings" || env.type === "thinking_level_change" ||
          env.type === "model_change" || env.type === "custom" ||
          line.bytes.length <= _PARSE_PATH_LINE_BYTES ||
          (env.type === "message" && settings.wantsAssistant)));
    if (onWant && !full && line.bytes[line.bytes.length - 1] !== _CLOSE_BRACE) {
      continue; // damaged: not an entry, as in a full read
    }
    let entry: SessionEntry | undefined;
    let id: string;
    let type: string;
    let parentId: string | null;
    if (full) {
      entry = parse(line);
      if (entry === undefined) continue;
      id = entry.id;
      type = entry.type;
      parentId = entry.parentId || null;
    } else {
      ({ id, type, parentId } = env!);
    }
    // A checkpoint already counts the labels of every line before it.
    if (
      !checkpoint && entry?.type === "label" &&
      typeof entry.targetId === "string"
    ) {
      if (!labels.has(entry.targetId)) {
        const label = entry.label;
        labels.set(
          entry.targetId,
          typeof label === "string" && label.length > 0 ? label : null,
        );
      }
    }
    if (phase === "leaf") {
      const to = branchMarkerTarget(entry!);
      leafId = to ?? id;
      want = leafId;
      phase = "window";
      if (to !== undefined) {
        passed.add(id);
        continue; // the marker itself is not on the path
      }
    }
    if (want === null && checkpoint) break; // the root: nothing left to learn
    if (id !== want) {
      passed.add(id);
      if (onPath.has(id)) {
        log.add(
          "duplicate-id",
          0,
          line.offset,
          `the line at byte ${line.offset} repeats a later entry's id; the later entry wins`,
        );
      }
      continue;
    }
    if (onPath.has(id)) {
      pathEnd = "cycle";
      want = null;
      if (phase !== "settings") phase = "settings";
      continue;
    }
    onPath.add(id);
    passed.add(id);
    want = parentId;
    // The wanted entry has a later duplicate, which a full read would take:
    // only a full read settles that.
    if (want !== null && passed.has(want)) return undefined;
    if (phase === "window" || phase === "kept") {
      retained.push(entry!);
      // A checkpoint inside the window: its settings are those of the path up
      // to it, and folding the window over them again changes nothing, so
      // the walk can end where the window does.
      const cp = checkpoint || !useCheckpoints
        ? undefined
        : _asCheckpoint(entry!);
      if (cp !== undefined) {
        useCheckpoint(cp);
        checkpoint = true;
      }
      if (phase === "window" && type === "reset_boundary") phase = "settings";
      else if (phase === "window" && entry!.type === "compaction") {
        const kept = entry!.firstKeptEntryId;
        firstKept = typeof kept === "string" && kept.length > 0 ? kept : null;
        phase = firstKept === null ? "settings" : "kept";
      } else if (phase === "kept" && id === firstKept) phase = "settings";
      if (phase === "settings" && checkpoint) break;
      continue;
    }
    // settings: past the window
    prefix.push({ id, type });
    if (entry === undefined) continue;
    const cp = useCheckpoints ? _asCheckpoint(entry) : undefined;
    if (cp !== undefined) {
      settings.checkpoint = cp;
      for (const [target, label] of Object.entries(cp.labels)) {
        if (!labels.has(target) && typeof label === "string") {
          labels.set(target, label);
        }
      }
      checkpoint = true;
      break;
    }
    settings.take(entry);
  }
  if (want !== null && !checkpoint) return undefined;
  // The window's own settings are folded by the context; the prefix's here.
  retained.reverse();
  prefix.reverse();
  const inEffect: Record<string, string> = {};
  for (const [target, label] of labels) {
    if (label !== null) inEffect[target] = label;
  }
  return {
    entries: retained,
    leafId,
    carried: settings.carried(),
    labels: inEffect,
    pathPrefix: prefix,
    pathEnd,
    seen,
    bytes: source.size - lowest,
    checkpoint,
  };
}
