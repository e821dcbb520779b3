/**
 * Case folding for the search: one code point at a time, so a folded text
 * keeps its length and every match found in it is a match in the text at
 * the same place, and the full-text index, the scan and its byte filter
 * all agree on what "case-insensitive" means.
 *
 * @module
 */

/**
 * Code points whose fold is not reached by upper-casing the fold (title
 * case digraphs, final sigma, the Kelvin and Ångström signs …): `[from, to]`.
 * `tests/search/search_query_test.ts` checks this list against every code
 * point.
 */
const _EXTRAS: readonly [number, number][] = [
  [0x1c5, 0x1c6],
  [0x1c8, 0x1c9],
  [0x1cb, 0x1cc],
  [0x1f2, 0x1f3],
  [0x3c2, 0x3c3],
  [0x3f4, 0x3b8],
  [0x1e9e, 0xdf],
  ...Array.from(
    { length: 8 },
    (_, i) => [0x1f88 + i, 0x1f80 + i] as [number, number],
  ),
  ...Array.from(
    { length: 8 },
    (_, i) => [0x1f98 + i, 0x1f90 + i] as [number, number],
  ),
  ...Array.from(
    { length: 8 },
    (_, i) => [0x1fa8 + i, 0x1fa0 + i] as [number, number],
  ),
  [0x1fbc, 0x1fb3],
  [0x1fcc, 0x1fc3],
  [0x1ffc, 0x1ff3],
  [0x2126, 0x3c9],
  [0x212a, 0x6b],
  [0x212b, 0xe5],
];

let _extrasByFold: Map<number, number[]> | undefined;

/**
 * The fold of one code point: its lower case when that is one code point
 * (`İ`, whose lower case is two, stays itself), with final sigma as sigma.
 *
 * @param c A code point.
 * @returns Its fold.
 */
export function foldCodePoint(c: number): number {
  if (c < 0x80) return c >= 0x41 && c <= 0x5a ? c + 32 : c;
  const s = String.fromCodePoint(c);
  const lower = s.toLowerCase();
  const f = [...lower].length === 1 ? lower.codePointAt(0)! : c;
  return f === 0x3c2 ? 0x3c3 : f;
}

/**
 * A text folded code point by code point: the same length in UTF-16 code
 * units, so offsets into it are offsets into the text.
 *
 * @param text The text.
 * @returns Its fold.
 */
export function fold(text: string): string {
  // deno-lint-ignore no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  // Only U+0130 lowers to two code points; final sigma depends on context.
  if (!text.includes("\u0130")) return text.toLowerCase().replaceAll("ς", "σ");
  let out = "";
  for (const ch of text) {
    out += String.fromCodePoint(foldCodePoint(ch.codePointAt(0)!));
  }
  return out;
}

/**
 * Every code point whose fold is the fold of `c` (`k`: `k`, `K` and the
 * Kelvin sign), `c` first.
 *
 * @param c A code point.
 * @returns The code points.
 */
export function caseVariants(c: number): number[] {
  const f = foldCodePoint(c);
  const out = new Set<number>([c, f]);
  const upper = String.fromCodePoint(f).toUpperCase();
  const u = upper.codePointAt(0)!;
  if (
    upper.length === String.fromCodePoint(u).length && foldCodePoint(u) === f
  ) {
    out.add(u);
  }
  for (const x of _extras().get(f) ?? []) out.add(x);
  return [...out];
}

function _extras(): Map<number, number[]> {
  if (_extrasByFold === undefined) {
    _extrasByFold = new Map();
    for (const [from, to] of _EXTRAS) {
      const list = _extrasByFold.get(to) ?? [];
      list.push(from);
      _extrasByFold.set(to, list);
    }
  }
  return _extrasByFold;
}
