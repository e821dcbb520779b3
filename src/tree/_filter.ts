/**
 * The tree's filters, as pi's and omp's `/tree` names them.
 *
 * @module
 */

/**
 * Which entries a tree shows: `default` hides settings and metadata
 * entries, `no-tools` hides tool results and tool-only assistant turns
 * too, `user` shows user messages only, `labeled` labelled entries only,
 * `all` everything. The leaf is always shown.
 */
export type TreeFilter = "default" | "no-tools" | "user" | "labeled" | "all";

/**
 * Entries `default` hides: the settings and metadata omp's tree hides
 * (`label`, `custom`, model and thinking changes, `mode_change`,
 * `ttsr_injection`, `session_init`, `credential_pin`), and the others of
 * the kind (`service_tier_change`, `model_usage`, `title_change`).
 */
const _SETTINGS = new Set([
  "label",
  "custom",
  "model_change",
  "thinking_level_change",
  "service_tier_change",
  "mode_change",
  "ttsr_injection",
  "session_init",
  "credential_pin",
  "model_usage",
  "title_change",
]);

/** What a filter looks at of one node. */
export interface FilterFacts {
  type: string;
  role: string | undefined;
  toolOnly: boolean;
  labeled: boolean;
}

/**
 * Whether a filter shows a node (the leaf aside: it is always shown).
 *
 * @param facts The node.
 * @param filter The filter.
 * @returns True when shown.
 */
export function passes(facts: FilterFacts, filter: TreeFilter): boolean {
  switch (filter) {
    case "all":
      return true;
    case "user":
      return facts.type === "message" && facts.role === "user";
    case "labeled":
      return facts.labeled;
    case "no-tools":
      return !_SETTINGS.has(facts.type) &&
        !(facts.type === "message" &&
          (facts.role === "toolResult" || facts.toolOnly));
    default:
      return !_SETTINGS.has(facts.type);
  }
}
