/**
 * Session ids: RFC 9562 UUIDv7, strictly increasing within a process.
 *
 * @module
 */

import { toHex } from "./_encoding.ts";

/** The largest millisecond timestamp a UUIDv7 holds (48 bits). */
const _MAX_UUID_MS = 2 ** 48 - 1;
let _lastMs = -1;
let _counter = 0;

/**
 * A new RFC 9562 UUIDv7: 48 bits of Unix milliseconds, version 7, a 12-bit
 * counter, variant `10`, and 62 random bits; lowercase.
 *
 * Ids made in one process without `now` are strictly increasing, also as
 * strings: when the clock reads the last id's millisecond or earlier, the
 * counter (which starts at a random value below 2048 each millisecond) is
 * incremented, and when it would overflow, the timestamp moves one
 * millisecond ahead. An id made with an explicit `now` holds exactly that
 * timestamp and a random counter, and takes no part in that ordering.
 *
 * @example A fresh session id
 * ```ts
 * import { uuidv7 } from "./uuid.ts";
 * import { match } from "node:assert/strict";
 *
 * const id = uuidv7();
 * match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
 * ```
 *
 * @param now Milliseconds since the Unix epoch. Default: `Date.now()`.
 * @returns The id, `xxxxxxxx-xxxx-7xxx-Vxxx-xxxxxxxxxxxx`.
 * @throws {RangeError} When `now` is not an integer in 0…2⁴⁸−1.
 */
export function uuidv7(now?: number): string {
  const random = crypto.getRandomValues(new Uint8Array(10));
  let counter = ((random[8] as number) << 8 | (random[9] as number)) & 0x7ff;
  let ms: number;
  if (now === undefined) {
    ms = Date.now();
    if (ms <= _lastMs) {
      ms = _lastMs;
      if (_counter < 0xfff) counter = _counter + 1;
      else ms++;
    }
    _lastMs = ms;
    _counter = counter;
  } else if (Number.isSafeInteger(now) && now >= 0 && now <= _MAX_UUID_MS) {
    ms = now;
  } else {
    throw new RangeError(
      `Cannot make a UUIDv7: ${now} is not a millisecond timestamp in 0…2^48-1`,
    );
  }
  const bytes = new Uint8Array(16);
  for (let i = 5, t = ms; i >= 0; i--, t = Math.floor(t / 256)) {
    bytes[i] = t % 256;
  }
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes.set(random.subarray(0, 8), 8);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = toHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${
    hex.slice(16, 20)
  }-${hex.slice(20)}`;
}
