/**
 * Numbers for people, as `Intl.NumberFormat("en-US")` writes them, without
 * it where that is plain: the first number format a process makes loads
 * ICU's number data, ~20 ms, which every `cli usage` and `cli stats` paid.
 * Intl rounds the shortest decimal that reads back as the number (half
 * away from zero), so these do too, on the digits of `String(x)`; what
 * they do not cover (exponents, negative zero, huge or odd numbers) goes
 * to Intl itself.
 *
 * @module
 */

let _counts: Intl.NumberFormat | undefined;
let _short: Intl.NumberFormat | undefined;

/**
 * A count, digits grouped: `1,234,567` (Intl's default: up to 3
 * decimals).
 *
 * @param n A number.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { formatCount } from "./_numbers.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(formatCount(1234567), "1,234,567");
 * ```
 */
export function formatCount(n: number): string {
  if (Number.isFinite(n) && !Object.is(n, -0)) {
    const text = _rounded(Math.abs(n), 3, false);
    if (text !== undefined) return (n < 0 ? "-" : "") + text;
  }
  return (_counts ??= new Intl.NumberFormat("en-US")).format(n);
}

/**
 * A positive amount with exactly `digits` decimals, grouped: `1,234.50`.
 *
 * @param x The amount (≥ 0).
 * @param digits Decimals shown.
 * @returns The text.
 */
export function formatFixed(x: number, digits: number): string {
  const text = x >= 0 && Number.isFinite(x) && !Object.is(x, -0)
    ? _rounded(x, digits, true)
    : undefined;
  return text ?? x.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

const _UNITS = ["", "K", "M", "B", "T"];

/**
 * A count in compact form, one decimal at most: `999`, `12.3K`, `1M`
 * (Intl's `notation: "compact"`).
 *
 * @param n A number.
 * @returns The text.
 */
export function formatCompact(n: number): string {
  if (Number.isSafeInteger(n) && n >= 0 && n < 1e15 && !Object.is(n, -0)) {
    const digits = String(n);
    const unit = Math.floor((digits.length - 1) / 3);
    if (unit === 0) return digits;
    // The digits with the point moved 3 places a unit, then rounded.
    const scaled = _roundDigits(digits, 1, digits.length - 3 * unit);
    // Rounded up to 1000 of a unit, it is 1 of the next: 999,950 is 1M.
    if (scaled === "1000.0" && unit < 4) return `1${_UNITS[unit + 1]}`;
    return _trimZero(scaled) + _UNITS[unit];
  }
  return (_short ??= new Intl.NumberFormat("en-US", {
    notation: "compact",
    maximumFractionDigits: 1,
  })).format(n);
}

/**
 * `x` (≥ 0) rounded to `digits` decimals, grouped; trailing zeros kept
 * (`fixed`) or dropped. Undefined where `String(x)` has an exponent.
 */
function _rounded(
  x: number,
  digits: number,
  fixed: boolean,
): string | undefined {
  const s = String(x);
  if (s.includes("e")) return undefined;
  const point = s.indexOf(".");
  const int = point < 0 ? s : s.slice(0, point);
  const frac = point < 0 ? "" : s.slice(point + 1);
  const out = _roundDigits(int + frac, digits, int.length);
  const dot = out.indexOf(".");
  const whole = dot < 0 ? out : out.slice(0, dot);
  let decimals = dot < 0 ? "" : out.slice(dot + 1);
  if (!fixed) decimals = decimals.replace(/0+$/, "");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return decimals === "" ? grouped : `${grouped}.${decimals}`;
}

/**
 * The decimal digits `all`, whose first `intLength` are the whole part,
 * rounded half up to `digits` decimals: `"12.35"` from ("123456", 2, 2).
 * Always `digits` decimals (a point only when there are some).
 */
function _roundDigits(all: string, digits: number, intLength: number): string {
  const keep = intLength + digits;
  let kept = all.slice(0, keep).padEnd(keep, "0");
  if (all.length > keep && all.charCodeAt(keep) >= 0x35) kept = _plusOne(kept);
  const whole = kept.slice(0, kept.length - digits).replace(/^0+(?=\d)/, "");
  return digits === 0
    ? whole || "0"
    : `${whole || "0"}.${kept.slice(kept.length - digits)}`;
}

/** A string of decimal digits plus one. */
function _plusOne(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === "9") i--;
  if (i < 0) return "1" + "0".repeat(digits.length);
  return digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) +
    "0".repeat(digits.length - i - 1);
}

/** `12.0` → `12`. */
function _trimZero(text: string): string {
  return text.endsWith(".0") ? text.slice(0, -2) : text;
}
