/**
 * Calendar keys of a moment in one time zone: its day (`2026-01-31`), its
 * week (the date of its Monday: weeks start on Monday, as ISO 8601 has
 * them) and its month (`2026-01`). Days follow the zone's own clock, DST
 * included: a day of a spring-forward change has 23 hours.
 *
 * @module
 */

/** Milliseconds in a slot: every UTC offset in use is a multiple of 15 minutes. */
const _SLOT_MS = 15 * 60 * 1000;
const _DAY_MS = 24 * 60 * 60 * 1000;

/** A key for a moment that has none (no usable timestamp). */
export const NO_DATE = "unknown";

/** The day, week and month of moments in one time zone. */
export class CalendarKeys {
  readonly #format: Intl.DateTimeFormat | undefined;
  /** Whether days come from `Date`'s local fields (the local zone). */
  readonly #local: boolean;
  readonly #days = new Map<number, string>();
  /** The zone's IANA name. */
  readonly timeZone: string;

  /**
   * Keys in `timeZone`.
   *
   * @param timeZone An IANA name (`Europe/Berlin`, `UTC`); default the local zone.
   * @throws {RangeError} When the zone is unknown.
   */
  constructor(timeZone?: string) {
    if (timeZone === undefined || timeZone === "UTC") {
      // The local zone's days come from `Date`'s local fields, which follow
      // the zone Intl takes by default: a report in a fresh process then
      // loads no Intl date formats, which cost far more than the zone's name.
      this.timeZone = timeZone ?? _localZone();
      this.#local = this.timeZone !== "UTC";
      this.#format = undefined;
      return;
    }
    const format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    this.timeZone = format.resolvedOptions().timeZone;
    this.#local = false;
    this.#format = this.timeZone === "UTC" ? undefined : format;
  }

  /**
   * The day of `ms`: `YYYY-MM-DD`, or {@linkcode NO_DATE} for no moment.
   *
   * @param ms Milliseconds since the epoch (0 or less: none).
   * @returns The key.
   */
  day(ms: number): string {
    if (!(ms > 0) || !Number.isFinite(ms)) return NO_DATE;
    const slot = Math.floor(ms / _SLOT_MS);
    let key = this.#days.get(slot);
    if (key === undefined) {
      key = this.#dayOf(slot * _SLOT_MS);
      this.#days.set(slot, key);
    }
    return key;
  }

  /**
   * The week of `ms`: the day key of its Monday.
   *
   * @param ms Milliseconds since the epoch.
   * @returns The key.
   */
  week(ms: number): string {
    const day = this.day(ms);
    if (day === NO_DATE) return day;
    const t = Date.parse(`${day}T00:00:00Z`);
    const monday = t - ((new Date(t).getUTCDay() + 6) % 7) * _DAY_MS;
    return _ymd(new Date(monday));
  }

  /**
   * The month of `ms`: `YYYY-MM`.
   *
   * @param ms Milliseconds since the epoch.
   * @returns The key.
   */
  month(ms: number): string {
    const day = this.day(ms);
    return day === NO_DATE ? day : day.slice(0, day.lastIndexOf("-"));
  }

  /**
   * The first moment of a day in this zone (midnight, or the first moment
   * after it when the clocks skip midnight).
   *
   * @param day `YYYY-MM-DD`.
   * @returns Milliseconds since the epoch.
   */
  startOf(day: string): number {
    const utc = Date.parse(`${day}T00:00:00Z`);
    // Offsets lie within ±1 day: search the slots of the 4 days around.
    let lo = Math.floor((utc - 2 * _DAY_MS) / _SLOT_MS);
    let hi = Math.floor((utc + 2 * _DAY_MS) / _SLOT_MS);
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.#dayOf(mid * _SLOT_MS) < day) lo = mid + 1;
      else hi = mid;
    }
    return lo * _SLOT_MS;
  }

  /**
   * The moments of the days from `since` to `until`, both included.
   *
   * @param since The first day, or none.
   * @param until The last day, or none.
   * @returns `start` (included) and `end` (excluded), as given.
   */
  range(
    since: string | undefined,
    until: string | undefined,
  ): { start?: number; end?: number } {
    const out: { start?: number; end?: number } = {};
    if (since !== undefined) out.start = this.startOf(since);
    if (until !== undefined) {
      const next = Date.parse(`${until}T00:00:00Z`) + _DAY_MS;
      out.end = this.startOf(_ymd(new Date(next)));
    }
    return out;
  }

  #dayOf(ms: number): string {
    if (this.#local) return _ymdLocal(new Date(ms));
    if (this.#format === undefined) return _ymd(new Date(ms));
    let y = "", m = "", d = "";
    for (const part of this.#format.formatToParts(ms)) {
      if (part.type === "year") y = part.value;
      else if (part.type === "month") m = part.value;
      else if (part.type === "day") d = part.value;
    }
    return `${y.padStart(4, "0")}-${m}-${d}`;
  }
}

/** The local zone's name: from `Temporal` where it is, else from Intl. */
function _localZone(): string {
  const temporal = (globalThis as {
    Temporal?: { Now?: { timeZoneId?: () => unknown } };
  }).Temporal;
  try {
    const id = temporal?.Now?.timeZoneId?.();
    if (typeof id === "string" && id !== "") return id;
  } catch {
    // no Temporal here: Intl names it
  }
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** `YYYY-MM-DD` of a date's local fields. */
function _ymdLocal(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, "0");
  return `${p(d.getFullYear(), 4)}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** `YYYY-MM-DD` of a date's UTC fields. */
function _ymd(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, "0");
  return `${p(d.getUTCFullYear(), 4)}-${p(d.getUTCMonth() + 1)}-${
    p(d.getUTCDate())
  }`;
}

/**
 * Whether `text` is a calendar date `YYYY-MM-DD` that exists.
 *
 * @param text The text.
 * @returns True for a real date.
 */
export function isDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const t = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(t) && _ymd(new Date(t)) === text;
}
