/**
 * The settings fold: the models per role and the thinking level a path
 * leaves in effect. One fold, run forwards; a backward walk keeps the few
 * entries that can still win ({@linkcode LatestSettings}) and folds those.
 *
 * @module
 */

import type { Settings } from "../format/checkpoint.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { AssistantMessage } from "../format/messages.ts";

export type { Settings } from "../format/checkpoint.ts";

/** The settings of a path without settings entries. */
export function emptySettings(): Settings {
  return {
    models: {},
    explicitDefaultModel: false,
    thinkingLevel: "off",
    configuredThinkingLevel: null,
  };
}

/**
 * Fold the settings entries of a path, root first: the latest
 * `thinking_level_change` gives the thinking level (`off` without one), the
 * latest `model_change` of each role its model (no role: `default`), and
 * while no `model_change` set the default, the latest assistant message's
 * `provider/model` stands for it.
 *
 * @param path Entries, root first.
 * @param base Settings in effect before `path`.
 * @returns The settings after `path` (a new object).
 */
export function foldSettings(
  path: Iterable<SessionEntry>,
  base: Settings = emptySettings(),
): Settings {
  const s: Settings = {
    models: { ...base.models },
    explicitDefaultModel: base.explicitDefaultModel,
    thinkingLevel: base.thinkingLevel,
    configuredThinkingLevel: base.configuredThinkingLevel,
  };
  for (const e of path) {
    if (e.type === "thinking_level_change") {
      const level = typeof e.thinkingLevel === "string"
        ? e.thinkingLevel
        : null;
      const configured = typeof e.configured === "string" ? e.configured : null;
      s.thinkingLevel = level ?? "off";
      s.configuredThinkingLevel = configured ?? level;
    } else if (e.type === "model_change") {
      const role = _modelRole(e);
      if (role === undefined) continue;
      s.models[role] = e.model as string;
      if (role === "default") s.explicitDefaultModel = true;
    } else if (e.type === "message" && !s.explicitDefaultModel) {
      const m = e.message as AssistantMessage | undefined;
      if (m?.role === "assistant") {
        s.models.default = `${m.provider}/${m.model}`;
      }
    }
  }
  return s;
}

/**
 * The settings entries of a path walked from the leaf back: only the latest
 * entry of each kind is kept (the one a forward fold lets win), then
 * {@linkcode foldSettings} runs over those.
 */
export class LatestSettings {
  readonly #latest = new LatestByKey(_settingsKey);

  /**
   * Whether a line of this type may change the result, so that a walk
   * parses only those: any thinking or model change (small lines; a model
   * change's role is inside), an assistant message until one is kept or a
   * default model change makes them irrelevant.
   */
  wants(type: string): boolean {
    switch (type) {
      case "thinking_level_change":
      case "model_change":
        return true;
      case "message":
        return !this.#latest.has("assistant") &&
          !this.#latest.has("model:default");
      default:
        return false;
    }
  }

  /** Offer an entry of the path, latest first. */
  offer(entry: SessionEntry): void {
    this.#latest.offer(entry);
  }

  /** The settings after the walked part of the path, over `base`. */
  fold(base?: Settings): Settings {
    return foldSettings(this.#latest.inOrder(), base);
  }
}

/** The role a well-formed `model_change` sets, or undefined. */
function _modelRole(e: SessionEntry): string | undefined {
  const { model, role } = e as { model?: unknown; role?: unknown };
  if (typeof model !== "string" || model.length === 0) return undefined;
  return typeof role === "string" ? role : "default";
}

/** What a settings entry can win over in a forward fold. */
function _settingsKey(e: SessionEntry): string | undefined {
  switch (e.type) {
    case "thinking_level_change":
      return "thinking";
    case "model_change": {
      const role = _modelRole(e);
      return role === undefined ? undefined : `model:${role}`;
    }
    case "message":
      return (e.message as { role?: unknown } | undefined)?.role === "assistant"
        ? "assistant"
        : undefined;
    default:
      return undefined;
  }
}

/**
 * The latest entry per key, for entries offered latest first: the first one
 * offered under a key is kept, later offers under it are not.
 */
export class LatestByKey {
  readonly #kept = new Map<string, SessionEntry>();
  readonly #keyOf: (entry: SessionEntry) => string | undefined;

  /** @param keyOf The key an entry counts under; undefined: it never counts. */
  constructor(keyOf: (entry: SessionEntry) => string | undefined) {
    this.#keyOf = keyOf;
  }

  /** Whether an entry is already kept under `key`. */
  has(key: string): boolean {
    return this.#kept.has(key);
  }

  /** Offer an entry (latest first); returns whether it was kept. */
  offer(entry: SessionEntry): boolean {
    const key = this.#keyOf(entry);
    if (key === undefined || this.#kept.has(key)) return false;
    this.#kept.set(key, entry);
    return true;
  }

  /** The kept entries in path order (earliest first), for a forward fold. */
  inOrder(): SessionEntry[] {
    return [...this.#kept.values()].reverse();
  }
}
