/**
 * Numbers and money as people read them, one format for each, shared by
 * the CLI's tables and the export's header: counts grouped (`1,234,567`),
 * compact counts (`12.3K`), dollars (`$1,234.56`, `$0.0048`).
 *
 * @module
 */

let _counts: Intl.NumberFormat | undefined;
let _compact: Intl.NumberFormat | undefined;
const _moneyFormats = new Map<number, Intl.NumberFormat>();

/**
 * A count, digits grouped: `1,234,567`.
 *
 * @param n A number.
 * @returns The text.
 */
export function formatCount(n: number): string {
  return (_counts ??= new Intl.NumberFormat("en-US")).format(n);
}

/**
 * A count in compact form, one decimal at most: `999`, `12.3K`, `1M`.
 *
 * @param n A number.
 * @returns The text.
 */
export function formatCompact(n: number): string {
  _compact ??= new Intl.NumberFormat("en-US", {
    notation: "compact",
    maximumFractionDigits: 1,
  });
  return _compact.format(n);
}

/** Options of {@linkcode formatMoney}. */
export interface FormatMoneyOptions {
  /**
   * Decimals for every amount, so a column of them reads one way and its
   * points line up ({@linkcode moneyDigits} picks them). Default: 2 from
   * $1 up, 4 below.
   */
  digits?: 2 | 4;
}

/**
 * Dollars for people: cents from $1 up (`$1,234.56`), four decimals below
 * (`$0.0048`), `<$0.0001` for less, `$0.00` for nothing; with
 * `options.digits`, that many decimals whatever the amount.
 *
 * @example A column of amounts, one format
 * ```ts
 * import { formatMoney, moneyDigits } from "./numbers.ts";
 * const amounts = [30.33, 0.0045, 0];
 * const digits = moneyDigits(amounts);
 * console.assert(amounts.map((a) => formatMoney(a, { digits })).join(" ") ===
 *   "$30.3300 $0.0045 $0.0000");
 * ```
 *
 * @param dollars An amount.
 * @param options The decimals, when a column sets them.
 * @returns The text.
 */
export function formatMoney(
  dollars: number,
  options: FormatMoneyOptions = {},
): string {
  const fixed = options.digits;
  if (dollars === 0) return fixed === undefined ? "$0.00" : _money(0, fixed);
  if (dollars < 0.0001) return "<$0.0001";
  return _money(dollars, fixed ?? (dollars >= 1 ? 2 : 4));
}

/**
 * The decimals one format needs for all of `amounts`: 2 when every amount
 * that is not nothing is a cent or more, else 4 (so $0.0045 keeps its
 * figures rather than read as $0.00).
 *
 * @example
 * ```ts
 * import { moneyDigits } from "./numbers.ts";
 * console.assert(moneyDigits([1.5, 0]) === 2);
 * console.assert(moneyDigits([1.5, 0.25]) === 2);
 * console.assert(moneyDigits([1.5, 0.0045]) === 4);
 * ```
 *
 * @param amounts Dollars.
 * @returns 2 or 4.
 */
export function moneyDigits(amounts: Iterable<number>): 2 | 4 {
  for (const a of amounts) if (a > 0 && a < 0.01) return 4;
  return 2;
}

function _money(dollars: number, digits: number): string {
  let format = _moneyFormats.get(digits);
  if (format === undefined) {
    format = new Intl.NumberFormat("en-US", {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    _moneyFormats.set(digits, format);
  }
  return `$${format.format(dollars)}`;
}
