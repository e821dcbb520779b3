/**
 * Numbers and money as people read them, one format for each, shared by
 * the CLI's tables and the export's header: counts grouped (`1,234,567`),
 * compact counts (`12.3K`), dollars (`$1,234.56`, `$0.0048`).
 *
 * @module
 */

let _counts: Intl.NumberFormat | undefined;
let _compact: Intl.NumberFormat | undefined;
const _money = new Map<number, Intl.NumberFormat>();

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

/**
 * Dollars for people: cents from $1 up (`$1,234.56`), four decimals below
 * (`$0.0048`), `<$0.0001` for less, `$0.00` for nothing.
 *
 * @param dollars An amount.
 * @returns The text.
 */
export function formatMoney(dollars: number): string {
  if (dollars === 0) return "$0.00";
  if (dollars < 0.0001) return "<$0.0001";
  const digits = dollars >= 1 ? 2 : 4;
  let format = _money.get(digits);
  if (format === undefined) {
    format = new Intl.NumberFormat("en-US", {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    _money.set(digits, format);
  }
  return `$${format.format(dollars)}`;
}
