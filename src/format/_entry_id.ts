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
