/**
 * A fast 64-bit hash (FNV-1a) of bytes, to tell whether the bytes a row
 * was built from are still the same. Not for security: a row is only a
 * cache, and a file someone rewrote to collide with its own hash gains
 * nothing but a stale list entry.
 *
 * @module
 */

/**
 * The FNV-1a 64-bit hash of `bytes`, as 16 hex digits.
 *
 * @param bytes The bytes.
 * @returns The hash.
 */
export function hashBytes(bytes: Uint8Array): string {
  // Two 32-bit halves of the 64-bit state, multiplied by the FNV prime
  // 0x100000001b3 = 2^40 + 0x1b3.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < bytes.length; i++) {
    lo ^= bytes[i]!;
    const loMul = lo * 0x1b3;
    const carry = Math.floor(loMul / 0x100000000);
    const newLo = loMul >>> 0;
    hi = (Math.imul(hi, 0x1b3) + Math.imul(lo, 0x100) + carry) >>> 0;
    lo = newLo;
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}
