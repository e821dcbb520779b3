/** Helper modules that fail (usage_helpers_test.ts). */

/** A helper that throws as it loads, and one that claims every piece and dies. */
export const DYING_HELPERS: readonly (readonly [string, URL])[] = [
  ["at its start", new URL("./_helper_dies_at_start.ts", import.meta.url)],
  [
    "holding files it claimed",
    new URL("./_helper_dies_holding.ts", import.meta.url),
  ],
];
