/**
 * A file's head: the title slot (line 1) and the header (line 2), encoded
 * once for every writer of a new file (session creation, fork, the
 * generator).
 *
 * @module
 */

import { marshalTitleSlot, type TitleSlot } from "./title_slot.ts";

const _encoder = new TextEncoder();

/**
 * Lines 1 and 2 of a session file: the 256-byte slot,
 * then the header as one line of JSON (keys in the record's order), each
 * ending in `"\n"`.
 *
 * @example The head of a new session
 * ```ts
 * import { encodeHead } from "./_head.ts";
 * import { equal } from "node:assert/strict";
 *
 * const timestamp = "2026-10-01T09:00:00.000Z";
 * const head = encodeHead({ title: "", updatedAt: timestamp }, {
 *   type: "session", version: 3, id: "0190a3c4-0000-7000-8000-000000000000",
 *   timestamp, cwd: "/work",
 * });
 * const text = new TextDecoder().decode(head);
 * equal(text.indexOf("\n"), 255);
 * equal(text.endsWith('"cwd":"/work"}\n'), true);
 * ```
 *
 * @param slot The title record of line 1.
 * @param header The header record; written as given.
 * @returns The two lines' bytes.
 * @throws {TypeError} When the slot is malformed (see {@linkcode marshalTitleSlot}).
 */
export function encodeHead(
  slot: TitleSlot,
  header: Readonly<Record<string, unknown>>,
): Uint8Array {
  const line1 = marshalTitleSlot(slot);
  const line2 = _encoder.encode(`${JSON.stringify(header)}\n`);
  const out = new Uint8Array(line1.length + line2.length);
  out.set(line1);
  out.set(line2, line1.length);
  return out;
}
