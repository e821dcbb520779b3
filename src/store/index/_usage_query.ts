/**
 * A usage report from the `usage` facet's rows: one aggregate query over
 * the copies marked `first` (every call once), summed per group in SQL
 * (the cost as the partials of an exact sum, so the figures equal those of
 * a pass over the files to the last bit), then keyed by the tally.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { compareRank } from "../usage/_line.ts";
import { ExactSum } from "../usage/_sum.ts";
import type {
  CountedUsage,
  TimeRange,
  UsageGrouping,
  UsageTally,
} from "../usage/_tally.ts";

/** The exact-sum aggregate a query registers on the connection. */
const _COST_SUM = "xdev_usage_cost";

/** The slot a moment falls in (the tally's days are made of 15-minute slots). */
const _SLOT_MS = 15 * 60 * 1000;

/** What the rows of a report are grouped on, in SQL. */
const _GROUPS: Record<UsageGrouping, string> = {
  day: "slot",
  week: "slot",
  month: "slot",
  session: "f.sessionId, f.cwd",
  project: "f.cwd",
  model: "u.provider, u.model",
};

interface _Group {
  slot: number | null;
  sessionId: string | null;
  cwd: string | null;
  provider: string | null;
  model: string | null;
  requests: number;
  failed: number;
  aborted: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: string;
  malformed: number;
  unpriced: number;
}

/**
 * Count the index's calls into `tally`.
 *
 * @param db The index.
 * @param by The grouping.
 * @param range The moments that count.
 * @param excludeDeleted Leave out the calls of deleted files.
 * @param tally Where they are counted.
 */
export function tallyIndex(
  db: DatabaseSync,
  by: UsageGrouping,
  range: TimeRange,
  excludeDeleted: boolean,
  tally: UsageTally,
): void {
  const exactSum = {
    start: () => new ExactSum(),
    step: (sum: ExactSum, cost: unknown) => {
      if (typeof cost === "number") sum.add(cost);
      return sum;
    },
    result: (sum: ExactSum) => JSON.stringify(sum.partials()),
  };
  // The accumulator is a JavaScript object; the typings want an SQL value.
  type Options = Parameters<DatabaseSync["aggregate"]>[1];
  db.aggregate(_COST_SUM, exactSum as unknown as Options);
  const where = _where(range, "u");
  const groups = db.prepare(
    `SELECT
       CASE WHEN u.timestamp > 0 THEN CAST(u.timestamp / ${_SLOT_MS} AS INTEGER)
         ELSE -1 END AS slot,
       ${
      by === "day" || by === "week" || by === "month" ? "" : `${_GROUPS[by]},`
    }
       count(*) AS requests,
       total(u.stopReason = 'error') AS failed,
       total(u.stopReason = 'aborted') AS aborted,
       total(u.input) AS input,
       total(u.output) AS output,
       total(u.cacheRead) AS cacheRead,
       total(u.cacheWrite) AS cacheWrite,
       ${_COST_SUM}(u.cost) AS cost,
       total(u.malformed) AS malformed,
       total(u.unpriced) AS unpriced
     FROM usage u JOIN usage_files f ON f.file = u.file
     WHERE u.first = 1 ${excludeDeleted ? "AND f.deleted = 0" : ""} ${where.sql}
     GROUP BY ${_GROUPS[by]}`,
  ).all(...where.args) as unknown as _Group[];
  for (const g of groups) {
    tally.addSummed(
      {
        // A moment inside the slot (its start may be the epoch: no moment).
        timestamp: g.slot === null || g.slot < 0
          ? 0
          : g.slot * _SLOT_MS + _SLOT_MS / 2,
        provider: g.provider ?? "",
        model: g.model ?? "",
      },
      { sessionId: g.sessionId ?? "", cwd: g.cwd ?? "" },
      { ...g, cost: JSON.parse(g.cost) as number[] },
    );
  }
  if (excludeDeleted) _tallyOrphans(db, range, tally);
}

/** The range as SQL on a table alias, and its arguments. */
function _where(
  range: TimeRange,
  alias: string,
): { sql: string; args: number[] } {
  const parts: string[] = [];
  const args: number[] = [];
  if (range.start !== undefined || range.end !== undefined) {
    parts.push(`${alias}.timestamp > 0`);
  }
  if (range.start !== undefined) {
    parts.push(`${alias}.timestamp >= ?`);
    args.push(range.start);
  }
  if (range.end !== undefined) {
    parts.push(`${alias}.timestamp < ?`);
    args.push(range.end);
  }
  return { sql: parts.map((p) => `AND ${p}`).join(" "), args };
}

interface _Copy extends CountedUsage {
  entryId: string;
  file: number;
  path: string;
  created: number | null;
  sessionId: string;
  cwd: string;
}

/**
 * Without the deleted files, a call whose counted copy was in one is
 * counted in the earliest live file that holds it: few rows, one by one.
 */
function _tallyOrphans(
  db: DatabaseSync,
  range: TimeRange,
  tally: UsageTally,
): void {
  const where = _where(range, "d");
  const rows = db.prepare(
    `SELECT u.entryId AS entryId, u.timestamp AS timestamp,
       u.provider AS provider, u.model AS model, u.stopReason AS stopReason,
       u.input AS input, u.output AS output, u.cacheRead AS cacheRead,
       u.cacheWrite AS cacheWrite, u.cost AS cost, u.malformed AS malformed,
       u.unpriced AS unpriced, f.file AS file, f.path AS path,
       f.created AS created, f.sessionId AS sessionId, f.cwd AS cwd
     FROM usage d
       JOIN usage_files df ON df.file = d.file
       JOIN usage u ON u.entryId = d.entryId AND u.timestamp = d.timestamp
       JOIN usage_files f ON f.file = u.file
     WHERE d.first = 1 AND df.deleted = 1 AND f.deleted = 0 ${where.sql}`,
  ).all(...where.args) as unknown as _Copy[];
  const best = new Map<string, _Copy>();
  const rank = (c: _Copy) => ({ path: c.path, created: c.created ?? Infinity });
  for (const row of rows) {
    const key = `${row.entryId}\u0000${row.timestamp}`;
    const held = best.get(key);
    if (
      held === undefined || compareRank(rank(row), rank(held)) < 0 ||
      (compareRank(rank(row), rank(held)) === 0 && row.file < held.file)
    ) best.set(key, row);
  }
  for (const c of best.values()) {
    tally.add({
      ...c,
      cost: c.cost ?? undefined,
      malformed: Boolean(c.malformed),
      unpriced: Boolean(c.unpriced),
    }, c);
  }
}
