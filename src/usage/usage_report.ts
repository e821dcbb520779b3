/**
 * `usageReport`: tokens, requests and cost across every session of a data
 * dir, counted as omp counts them (`omp stats`), each model call once.
 *
 * @module
 */

import { CalendarKeys, isDate } from "./_days.ts";
import { tallyFiles } from "./_files.ts";
import { type TimeRange, type UsageRow, UsageTally } from "./_tally.ts";

export type { UsageRow } from "./_tally.ts";

const _GROUPINGS: readonly NonNullable<UsageReportOptions["by"]>[] = [
  "day",
  "week",
  "month",
  "session",
  "model",
  "project",
];

/** Options for {@linkcode usageReport}. */
export interface UsageReportOptions {
  /**
   * How rows are grouped: by day (default), week (weeks start on Monday;
   * the key is that Monday), month, session (its id), model
   * (`provider/model`) or project (the session's cwd).
   */
  by?: "day" | "week" | "month" | "session" | "model" | "project";
  /** The first day counted, `YYYY-MM-DD` in `timeZone` (included), or the first moment. */
  since?: string | Date;
  /** The last day counted, `YYYY-MM-DD` in `timeZone` (included), or the first moment past the range. */
  until?: string | Date;
  /** The IANA time zone days are in (`UTC`, `Europe/Berlin`). Default the local zone. */
  timeZone?: string;
  /**
   * Leave out the calls of session files deleted since the session index
   * counted them (`SessionIndex.usageReport`, which keeps them). Default false.
   */
  excludeDeleted?: boolean;
  /** Work done of work to do: bytes of files read, or files the index refreshed. */
  onProgress?: (done: number, total: number, unit: "bytes" | "files") => void;
  /** Called for each file that is not read (not a session, unreadable), with the reason. */
  onSkip?: (path: string, reason: string) => void;
}

/** What {@linkcode usageReport} counted. */
export interface UsageReport {
  /** How the rows are grouped. */
  by: NonNullable<UsageReportOptions["by"]>;
  /** The time zone of the days. */
  timeZone: string;
  /** Every call counted: a row's figures, without its key. */
  totals: Omit<UsageRow, "key">;
  /** One row per group: by time, oldest first; else by cost, highest first. */
  rows: UsageRow[];
  /**
   * Calls with a token count or cost that is not a non-negative number (a
   * string, a negative, `1e999`), counted with that figure 0.
   */
  malformedRequests: number;
  /**
   * Calls that record no cost, or a zero cost for tokens used: counted at
   * their recorded cost (0), where omp prices them from its model catalog.
   */
  unpricedRequests: number;
  /**
   * Lines longer than the loader's limit (64 MiB), by file then offset: no
   * reader parses such a line (`Session.open` reports it as
   * `oversized-line` and skips it), so a call it may hold is not counted.
   * Through the index too: a refresh records them.
   */
  oversizedLines: { path: string; offset: number; length: number }[];
  /** Where the figures came from: the session index, or the files. */
  source: "index" | "files";
}

/**
 * Tokens, requests and cost of every model call the sessions of a data dir
 * record (subagents included), as omp's own statistics count them: each
 * assistant message with a usage and each `model_usage` entry, once. An
 * entry a fork (or a branched copy) copied from its parent carries the same
 * id and time, and is counted once, in the earliest-created session that
 * holds it. A version 1 session's calls (pi's first format: entries
 * without ids, which omp's statistics pass over) count too, under the ids
 * `Session.open` gives them, which a fork of it repeats. Each file is read
 * once, a chunk at a time, a bounded number
 * of files at once; `SessionIndex.usageReport` counts from the index
 * instead, reading only what changed since.
 *
 * @example Cost by model
 * ```ts
 * import { Session, usageReport } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using s = await Session.create({ cwd: "/home/dev/app", dataDir });
 *   await s.appendMessage({
 *     role: "assistant",
 *     content: [{ type: "text", text: "Done." }],
 *     api: "anthropic-messages",
 *     provider: "anthropic",
 *     model: "claude-sonnet-4-5",
 *     usage: { input: 1200, output: 80, cost: { input: 0.0036, output: 0.0012, total: 0.0048 } },
 *     stopReason: "stop",
 *   });
 *   await s.ensureOnDisk();
 *   const report = await usageReport(dataDir, { by: "model" });
 *   equal(report.rows[0]?.key, "anthropic/claude-sonnet-4-5");
 *   equal(report.totals.inputTokens, 1200);
 *   equal(report.totals.cost, 0.0048);
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 *
 * @param dataDir The data dir (the folder holding `sessions/`).
 * @param options Grouping, days, time zone, progress.
 * @returns The totals and the rows.
 * @throws {TypeError} For an unknown grouping or a day that is not `YYYY-MM-DD`.
 * @throws {RangeError} For an unknown time zone.
 */
export function usageReport(
  dataDir: string,
  options: UsageReportOptions = {},
): Promise<UsageReport> {
  return runUsageReport(dataDir, options, undefined);
}

/**
 * An index's way to count (the session index supplies it): fills `tally`
 * with the calls of the days in `range` and says true, or says false (having
 * warned why) to have the files read instead.
 */
export type IndexedUsage = (
  tally: UsageTally,
  range: TimeRange,
) => Promise<boolean>;

/**
 * {@linkcode usageReport}, counted by `indexed` when it is given and can.
 *
 * @param dataDir The data dir.
 * @param options Grouping, days, time zone, progress.
 * @param indexed The index's way to count, if any.
 * @returns The totals and the rows.
 */
export async function runUsageReport(
  dataDir: string,
  options: UsageReportOptions,
  indexed: IndexedUsage | undefined,
): Promise<UsageReport> {
  const by = options.by ?? "day";
  if (!_GROUPINGS.includes(by)) {
    throw new TypeError(
      `Cannot report usage by "${by}": it is not one of ${
        _GROUPINGS.join(", ")
      }`,
    );
  }
  for (const day of [options.since, options.until]) {
    const bad = day instanceof Date
      ? Number.isNaN(day.getTime())
      : day !== undefined && !isDate(day);
    if (bad) {
      throw new TypeError(
        `Cannot report usage from "${day}": it is not a date (YYYY-MM-DD)`,
      );
    }
  }
  const keys = _calendar(options.timeZone);
  const range = _range(keys, options.since, options.until);
  const report = (tally: UsageTally, source: "index" | "files") => ({
    by,
    timeZone: keys.timeZone,
    ...tally.result(),
    source,
  });
  if (indexed !== undefined) {
    const tally = new UsageTally(by, keys, range);
    if (await indexed(tally, range)) return report(tally, "index");
  }
  const tally = new UsageTally(by, keys, range);
  const progress = options.onProgress;
  await tallyFiles(dataDir, tally, {
    since: range.start,
    onProgress: progress && ((done, total) => progress(done, total, "bytes")),
    onSkip: options.onSkip,
  });
  return report(tally, "files");
}

/** The moments from `since` (included) to `until` (excluded): days in `keys`' zone, or moments as given. */
function _range(
  keys: CalendarKeys,
  since: string | Date | undefined,
  until: string | Date | undefined,
): { start?: number; end?: number } {
  const range = keys.range(
    typeof since === "string" ? since : undefined,
    typeof until === "string" ? until : undefined,
  );
  if (since instanceof Date) range.start = since.getTime();
  if (until instanceof Date) range.end = until.getTime();
  return range;
}

function _calendar(timeZone: string | undefined): CalendarKeys {
  try {
    return new CalendarKeys(timeZone);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new RangeError(
      `Cannot report usage in the time zone "${timeZone}": it is unknown`,
    );
  }
}
