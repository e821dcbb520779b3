/**
 * Short strings made from ASCII bytes (ids, times, model names) with
 * little garbage: a string built a character at a time makes a new string
 * at every step (~700 bytes for a 24-character time), which a pass over
 * thousands of lines pays for in collections and fresh memory.
 *
 * @module
 */

/**
 * The string of the ASCII bytes `bytes[start, end)`, eight characters a
 * step. The caller has checked that every byte is below 0x80.
 *
 * @param bytes The buffer.
 * @param start The first byte.
 * @param end The end.
 * @returns The string.
 *
 * @example
 * ```ts
 * import { asciiText } from "./_ascii.ts";
 * import assert from "node:assert/strict";
 *
 * const bytes = new TextEncoder().encode("id:9b2489af;");
 * assert.equal(asciiText(bytes, 3, 11), "9b2489af");
 * ```
 */
export function asciiText(
  bytes: Uint8Array,
  start: number,
  end: number,
): string {
  let out = "";
  let k = start;
  for (; k + 8 <= end; k += 8) {
    out += String.fromCharCode(
      bytes[k]!,
      bytes[k + 1]!,
      bytes[k + 2]!,
      bytes[k + 3]!,
      bytes[k + 4]!,
      bytes[k + 5]!,
      bytes[k + 6]!,
      bytes[k + 7]!,
    );
  }
  for (; k < end; k++) out += String.fromCharCode(bytes[k]!);
  return out;
}
