/**
 * Entry ids: minting ids unique in a session.
 *
 * @module
 */

/**
 * Length of the entry ids this library mints.
 *
 * @example A new id
 * ```ts
 * import { ENTRY_ID_LENGTH, newEntryId } from "./_entry_id.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(newEntryId(new Set()).length, ENTRY_ID_LENGTH);
 * ```
 */
export const ENTRY_ID_LENGTH = 8;

/**
 * Mint an entry id: 8 lowercase hex characters not in `taken`.
 *
 * @example Minting an id
 * ```ts
 * import { newEntryId } from "./_entry_id.ts";
 * import { equal } from "node:assert/strict";
 * const id = newEntryId(new Set(["0000000a"]));
 * equal(/^[0-9a-f]{8}$/.test(id) && id !== "0000000a", true);
 * ```
 *
 * @param taken Ids already used in the session.
 * @returns A fresh id.
 * @throws {RangeError} When no free id is found in 1,000 draws (a session
 * holding billions of entries).
 */
export function newEntryId(taken: { has(id: string): boolean }): string {
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 1000; i++) {
    crypto.getRandomValues(bytes);
    let id = "";
    for (const b of bytes) id += b.toString(16).padStart(2, "0");
    if (!taken.has(id)) return id;
  }
  throw new RangeError("Cannot mint an entry id: 1000 draws collided");
}

function _digit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Each byte's value as a lowercase hex digit, or -1. */
const _DIGITS = Int8Array.from({ length: 256 }, (_, c) => _digit(c));

/**
 * The 8 lowercase hex digits of `bytes[start, end)` as a number, or -1.
 *
 * @param bytes The buffer.
 * @param start The id's first byte.
 * @param end Its end.
 * @returns The key, or -1.
 */
export function hexKeyOfBytes(
  bytes: Uint8Array,
  start: number,
  end: number,
): number {
  if (end - start !== 8) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const d = _DIGITS[bytes[i]!]!;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/**
 * An id of 8 lowercase hex digits as a number, or -1.
 *
 * @param id The id.
 * @returns The key, or -1.
 */
export function hexKey(id: string): number {
  if (id.length !== 8) return -1;
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const d = _digit(id.charCodeAt(i));
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}
