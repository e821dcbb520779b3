/**
 * The usage reports of several data dirs as one (what `usage --json` and
 * `--csv` print): the figures summed, each row naming the data dir it
 * comes from, and each data dir's totals. A call a data dir shares with
 * another (a session copied from omp's folder into xdev's) counts in both:
 * each report counts each call once within its own data dir only.
 *
 * @module
 */

import type { UsageReport, UsageRow } from "../usage/usage_report.ts";
import type { CoveredDataDir } from "./_data_dirs.ts";

/** A row of the merged report: whose data dir it counts. */
export type MergedUsageRow = UsageRow & CoveredDataDir;

/** The merged report. */
export interface MergedUsageReport extends Omit<UsageReport, "rows"> {
  /** Each data dir's rows, tagged, ordered as each report orders its own. */
  rows: MergedUsageRow[];
  /** Each data dir, its totals, and whether its index answered. */
  dataDirs: (CoveredDataDir & {
    totals: UsageReport["totals"];
    source: UsageReport["source"];
  })[];
}

/** The figures a row and the totals hold, in the order the CSV gives them. */
export const USAGE_FIGURES = [
  "requests",
  "failedRequests",
  "abortedRequests",
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "cost",
] as const satisfies readonly (keyof UsageRow)[];

/**
 * Merge the reports of several data dirs (at least one).
 *
 * @example One data dir: its report, each row tagged
 * ```ts
 * import { mergeUsageReports } from "./_usage_merge.ts";
 * import { equal } from "node:assert/strict";
 *
 * const totals = { requests: 1, failedRequests: 0, abortedRequests: 0,
 *   inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, cost: 0.5 };
 * const report = { by: "day" as const, timeZone: "UTC", totals,
 *   rows: [{ key: "2026-10-01", ...totals }], malformedRequests: 0,
 *   unpricedRequests: 0, oversizedLines: [], source: "files" as const };
 * const d = { agent: "omp" as const, dataDir: "/home/ann/.omp/agent" };
 * const merged = mergeUsageReports([[d, report], [d, report]]);
 * equal(merged.totals.cost, 1);
 * equal(merged.rows[0]?.agent, "omp");
 * ```
 *
 * @param reports Each data dir and its report.
 * @returns One report.
 */
export function mergeUsageReports(
  reports: readonly (readonly [CoveredDataDir, UsageReport])[],
): MergedUsageReport {
  const [, first] = reports[0]!;
  const totals = { ...first.totals };
  for (const f of USAGE_FIGURES) totals[f] = 0;
  let malformed = 0;
  let unpriced = 0;
  const rows: MergedUsageRow[] = [];
  const oversized: UsageReport["oversizedLines"] = [];
  for (const [d, r] of reports) {
    for (const f of USAGE_FIGURES) totals[f] += r.totals[f];
    malformed += r.malformedRequests;
    unpriced += r.unpricedRequests;
    oversized.push(...r.oversizedLines);
    for (const row of r.rows) rows.push({ ...row, ...d });
  }
  const byTime = ["day", "week", "month"].includes(first.by);
  rows.sort((a, b) =>
    byTime ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : b.cost - a.cost
  );
  return {
    ...first,
    totals,
    rows,
    malformedRequests: malformed,
    unpricedRequests: unpriced,
    oversizedLines: oversized,
    source: reports.every(([, r]) => r.source === "index") ? "index" : "files",
    dataDirs: reports.map(([d, r]) => ({
      ...d,
      totals: r.totals,
      source: r.source,
    })),
  };
}
