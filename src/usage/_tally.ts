/**
 * Counting model calls into rows: what both sources of a usage report (the
 * files, the index) feed, one call at a time, so the two give the same
 * report by construction. Costs are summed exactly (Shewchuk's partials,
 * as Python's `math.fsum`): the correctly rounded sum whatever the order
 * of the terms, so a report summed from the files and one summed from the
 * index agree to the last bit.
 *
 * @module
 */

import { byPlace, type OversizedLine } from "../format/issues.ts";
import type { RequestUsage } from "../format/usage.ts";
import { type CalendarKeys, NO_DATE } from "./_days.ts";

/** What a tally needs of a call. */
export type CountedUsage = Pick<
  RequestUsage,
  | "timestamp"
  | "provider"
  | "model"
  | "stopReason"
  | "input"
  | "output"
  | "cacheRead"
  | "cacheWrite"
  | "cost"
  | "malformed"
  | "unpriced"
>;

/** How a usage report groups its rows. */
export type UsageGrouping =
  | "day"
  | "week"
  | "month"
  | "session"
  | "model"
  | "project";

/** One row of a usage report: a group's key and the figures of its calls. */
export interface UsageRow {
  /**
   * The group: a day `YYYY-MM-DD`, a week (its Monday's date), a month
   * `YYYY-MM`, a session id, `provider/model`, or a working directory;
   * `unknown` for calls without a usable time.
   */
  key: string;
  /** Model calls counted. */
  requests: number;
  /** Calls that ended in an error (stop reason `error`, as omp counts them). */
  failedRequests: number;
  /** Calls that were aborted (stop reason `aborted`). */
  abortedRequests: number;
  /** Input tokens. */
  inputTokens: number;
  /** Output tokens. */
  outputTokens: number;
  /** Input tokens read from the provider's cache. */
  cacheReadTokens: number;
  /** Input tokens written to the provider's cache. */
  cacheWriteTokens: number;
  /** The recorded cost in dollars (`usage.cost.total`). */
  cost: number;
}

/** The figures of a set of model calls: a row without its key. */
export type UsageFigures = Omit<UsageRow, "key">;

/** The session a call was counted in. */
export interface CountedIn {
  /** The session's id. */
  sessionId: string;
  /** Its working directory. */
  cwd: string;
}

/** What a tally gives. */
export interface TallyResult {
  /** Every counted call. */
  totals: UsageFigures;
  /** The rows, in the grouping's order. */
  rows: UsageRow[];
  /** Counted calls with a malformed figure (counted 0). */
  malformedRequests: number;
  /** Counted calls without a recorded cost (or a zero one for tokens used). */
  unpricedRequests: number;
  /** Lines longer than the loader's limit, whose calls are not counted: by file, then offset. */
  oversizedLines: OversizedLine[];
}

/** Which moments count: from `start` (included) to `end` (excluded), in ms. */
export interface TimeRange {
  /** The first moment. */
  start?: number | undefined;
  /** The moment after the last. */
  end?: number | undefined;
}

/**
 * Whether a call's moment is in `range` (a call without one is in no
 * bounded range).
 *
 * @param ms The moment.
 * @param range The range.
 * @returns True when it counts.
 */
export function inRange(ms: number, range: TimeRange): boolean {
  if (range.start === undefined && range.end === undefined) return true;
  if (!(ms > 0)) return false;
  return (range.start === undefined || ms >= range.start) &&
    (range.end === undefined || ms < range.end);
}

class _Group {
  requests = 0;
  failedRequests = 0;
  abortedRequests = 0;
  inputTokens = 0;
  outputTokens = 0;
  cacheReadTokens = 0;
  cacheWriteTokens = 0;
  readonly cost = new ExactSum();

  add(u: CountedUsage): void {
    this.requests++;
    if (u.stopReason === "error") this.failedRequests++;
    else if (u.stopReason === "aborted") this.abortedRequests++;
    this.inputTokens += u.input;
    this.outputTokens += u.output;
    this.cacheReadTokens += u.cacheRead;
    this.cacheWriteTokens += u.cacheWrite;
    this.cost.add(u.cost ?? 0);
  }

  figures(): UsageFigures {
    return {
      requests: this.requests,
      failedRequests: this.failedRequests,
      abortedRequests: this.abortedRequests,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      cacheReadTokens: this.cacheReadTokens,
      cacheWriteTokens: this.cacheWriteTokens,
      cost: this.cost.value(),
    };
  }
}

/** Counts calls into the rows of one grouping, within a range of days. */
export class UsageTally {
  readonly #by: UsageGrouping;
  readonly #keys: CalendarKeys;
  readonly #range: TimeRange;
  readonly #groups = new Map<string, _Group>();
  readonly #total = new _Group();
  #malformed = 0;
  #unpriced = 0;
  readonly #oversized: OversizedLine[] = [];

  /**
   * A tally.
   *
   * @param by The grouping.
   * @param keys The calendar of the days.
   * @param range The moments that count.
   */
  constructor(by: UsageGrouping, keys: CalendarKeys, range: TimeRange = {}) {
    this.#by = by;
    this.#keys = keys;
    this.#range = range;
  }

  /**
   * Count a call (unless its moment is outside the range).
   *
   * @param u The call.
   * @param where The session it is counted in.
   */
  add(u: CountedUsage, where: CountedIn): void {
    if (!inRange(u.timestamp, this.#range)) return;
    this.#group(this.#keyOf(u, where)).add(u);
    this.#total.add(u);
    if (u.malformed) this.#malformed++;
    if (u.unpriced) this.#unpriced++;
  }

  /**
   * Note a line too long to be read: its call, if it holds one, is not
   * counted, and the report says so.
   *
   * @param line Where it is, and its length.
   */
  oversized(line: OversizedLine): void {
    this.#oversized.push(line);
  }

  #group(key: string): _Group {
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = new _Group();
      this.#groups.set(key, group);
    }
    return group;
  }

  /** The totals and the rows, sorted: by time for a time grouping, else by cost (highest first). */
  result(): TallyResult {
    const rows = [...this.#groups].map(([key, g]) => ({
      key,
      ...g.figures(),
    }));
    const timed = this.#by === "day" || this.#by === "week" ||
      this.#by === "month";
    rows.sort(timed ? _byTime : _byCost);
    return {
      totals: this.#total.figures(),
      rows,
      malformedRequests: this.#malformed,
      unpricedRequests: this.#unpriced,
      oversizedLines: this.#oversized.toSorted(byPlace),
    };
  }

  #keyOf(
    u: Pick<CountedUsage, "timestamp" | "provider" | "model">,
    where: CountedIn,
  ): string {
    switch (this.#by) {
      case "day":
        return this.#keys.day(u.timestamp);
      case "week":
        return this.#keys.week(u.timestamp);
      case "month":
        return this.#keys.month(u.timestamp);
      case "session":
        return where.sessionId;
      case "model":
        return `${u.provider}/${u.model}`;
      case "project":
        return where.cwd;
    }
  }
}

function _byTime(a: UsageRow, b: UsageRow): number {
  if (a.key === NO_DATE || b.key === NO_DATE) {
    return Number(a.key === NO_DATE) - Number(b.key === NO_DATE);
  }
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function _byCost(a: UsageRow, b: UsageRow): number {
  return b.cost - a.cost || b.requests - a.requests ||
    (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** Adds numbers without losing any bit; {@linkcode ExactSum.value} rounds once. */
export class ExactSum {
  /**
   * The partials: the first `#count` hold the sum. The array is never
   * shortened (setting an array's length is a call into the runtime, and
   * a sum of a day's calls is added to for every call).
   */
  #partials: number[] = [];
  #count = 0;

  /**
   * Add a finite number.
   *
   * @param value The number.
   */
  add(value: number): void {
    const p = this.#partials;
    const count = this.#count;
    let x = value;
    let n = 0;
    for (let i = 0; i < count; i++) {
      let y = p[i]!;
      if (Math.abs(x) < Math.abs(y)) {
        const t = x;
        x = y;
        y = t;
      }
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[n++] = lo;
      x = hi;
    }
    if (n < p.length) p[n] = x;
    else p.push(x);
    this.#count = n + 1;
  }

  /** The partials (their exact sum is the sum so far): what another sum can add. */
  partials(): readonly number[] {
    return this.#partials.slice(0, this.#count);
  }

  /** The sum, correctly rounded. */
  value(): number {
    const p = this.#partials;
    let n = this.#count;
    if (n === 0) return 0;
    let hi = p[--n]!;
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = p[--n]!;
      hi = x + y;
      lo = y - (hi - x);
      if (lo !== 0) break;
    }
    // Round half to even across the partials left (Python's fsum).
    if (n > 0 && ((lo < 0 && p[n - 1]! < 0) || (lo > 0 && p[n - 1]! > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    return hi;
  }
}
