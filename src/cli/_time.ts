/**
 * What `--since` and `--until` mean, in every command that takes them: a
 * day, `YYYY-MM-DD`, in the local time zone (`TZ`), or a full ISO time
 * (`2026-03-02T09:30`, local; `2026-03-02T09:30Z` or `+01:00`, as given).
 * A day since starts at its first moment; a day until ends with it
 * (included). One parser, so `search --since D` and `usage --since D`
 * cover the same moments: `usage --utc` changes how its rows are grouped,
 * not which calls count.
 *
 * @module
 */

import type { FlagSpec } from "./_help.ts";

/** `--since`, as each command that takes it declares it. */
export const SINCE_FLAG: FlagSpec = {
  value: "WHEN",
  help:
    "from this local day (YYYY-MM-DD) or ISO time (2026-03-02T09:30, or with Z or an offset) on",
};

/** `--until`, as each command that takes it declares it. */
export const UNTIL_FLAG: FlagSpec = {
  value: "WHEN",
  help:
    "up to this local day (included) or ISO time, in the same forms as --since",
};

const _DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const _TIME =
  /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?$/;

/**
 * The moment `--since` or `--until` names, or undefined when `text` is
 * neither a real day nor an ISO time.
 *
 * @example A day is local; a time with Z is UTC
 * ```ts
 * import { timeBound } from "./_time.ts";
 * const start = timeBound("2026-03-02", "since")!;
 * console.assert(start.getHours() === 0 && start.getDate() === 2);
 * const end = timeBound("2026-03-02", "until")!; // the next local midnight
 * console.assert(end.getDate() === 3 && end.getHours() === 0);
 * console.assert(timeBound("2026-03-02T09:30Z", "since")!.getUTCHours() === 9);
 * console.assert(timeBound("2026-02-30", "since") === undefined);
 * ```
 *
 * @param text What the user typed.
 * @param bound `since`: the first moment counted; `until`: the first moment
 *   past the range (a day's next midnight; a time's next millisecond).
 * @returns The moment.
 */
export function timeBound(
  text: string,
  bound: "since" | "until",
): Date | undefined {
  const day = _DAY.exec(text);
  if (day !== null) {
    if (!_realDay(text)) return undefined;
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    // Local midnight (or, where the clocks skip it, the first moment after).
    return new Date(y, m - 1, bound === "since" ? d : d + 1);
  }
  const time = _TIME.exec(text);
  if (time === null || !_realDay(time[1]!)) return undefined;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) return undefined;
  return new Date(bound === "since" ? ms : ms + 1);
}

/** Whether `YYYY-MM-DD` is a day of the calendar (not February 30th). */
function _realDay(ymd: string): boolean {
  const t = Date.parse(`${ymd}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === ymd;
}

/**
 * How a bad `--since` or `--until` is worded in a usage error.
 *
 * @param flag `since` or `until`.
 * @param text What was given.
 * @returns The message, after the command's name.
 */
export function timeBoundError(flag: "since" | "until", text: string): string {
  return `--${flag} takes a day (YYYY-MM-DD) or an ISO time (YYYY-MM-DDTHH:MM), not "${text}"`;
}
