/**
 * Finding a byte (a line's "\n") in a buffer: the scan every line reader
 * spends most of its time in. Two built-ins do it, and which is fast
 * depends on the engine: `Uint8Array.prototype.indexOf` is a byte loop on
 * V8 (Node, Deno) and a vectorised search on JavaScriptCore (Bun);
 * `node:buffer`'s `indexOf` is a vectorised search on Node and Bun but is
 * written over the former on Deno. So Deno uses the typed array's, Node
 * and Bun the buffer's: the same answers (a test holds them to it), picked
 * once at import.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** A search: the index of `byte` in `bytes` from `from` (forwards or backwards), or -1. */
export type FindByte = (
  bytes: Uint8Array,
  byte: number,
  from: number,
) => number;

/** The two ways, by name, for the test that holds them to the same answers. */
export const FIND_BYTE_WAYS: Record<
  "typedArray" | "buffer",
  { first: FindByte; last: FindByte }
> = {
  typedArray: {
    first: (bytes, byte, from) => bytes.indexOf(byte, from),
    last: (bytes, byte, from) => bytes.lastIndexOf(byte, from),
  },
  buffer: {
    first: (bytes, byte, from) =>
      Buffer.prototype.indexOf.call(bytes, byte, from),
    last: (bytes, byte, from) =>
      Buffer.prototype.lastIndexOf.call(bytes, byte, from),
  },
};

const _way = "Deno" in globalThis
  ? FIND_BYTE_WAYS.typedArray
  : FIND_BYTE_WAYS.buffer;

/**
 * The first index of `byte` in `bytes` at or after `from`, or -1.
 *
 * @example
 * ```ts
 * import { findByte } from "./_find_byte.ts";
 * import { equal } from "node:assert/strict";
 * equal(findByte(new TextEncoder().encode("a\nb\n"), 10, 2), 3);
 * ```
 *
 * @param bytes The buffer.
 * @param byte The byte (0–255).
 * @param from Where to start (0 to `bytes.length`).
 */
export const findByte: FindByte = _way.first;

/**
 * The last index of `byte` in `bytes` at or before `from`, or -1.
 *
 * @example
 * ```ts
 * import { findLastByte } from "./_find_byte.ts";
 * import { equal } from "node:assert/strict";
 * equal(findLastByte(new TextEncoder().encode("a\nb\n"), 10, 2), 1);
 * ```
 *
 * @param bytes The buffer.
 * @param byte The byte (0–255).
 * @param from Where to start going back (0 to `bytes.length - 1`; as with
 * `lastIndexOf`, a negative one counts from the end: callers stay >= 0).
 */
export const findLastByte: FindByte = _way.last;
