/**
 * Bytes as text, hex and base64: `Uint8Array.prototype.toHex`, `toBase64`
 * and `Uint8Array.fromBase64` where the runtime has them (Deno, Bun), else
 * plain fallbacks with the same results and the same errors (Node 22 has
 * none of the three). Every hex digest, random name and base64 payload in
 * the store goes through here.
 *
 * @example Hex and base64
 * ```ts
 * import { fromBase64, toBase64, toHex } from "./_encoding.ts";
 * toHex(new Uint8Array([0, 255])); // "00ff"
 * toBase64(fromBase64("aGk=")); // "aGk="
 * ```
 *
 * @module
 */

/** The native methods, where the runtime has them (ES2026). */
const _native = {
  toHex: (Uint8Array.prototype as { toHex?: () => string }).toHex,
  toBase64: (Uint8Array.prototype as { toBase64?: () => string }).toBase64,
  fromBase64: (Uint8Array as { fromBase64?: (s: string) => Uint8Array })
    .fromBase64,
};

const _HEX = Array.from(
  { length: 256 },
  (_, b) => b.toString(16).padStart(2, "0"),
);

/** Bytes decoded per `String.fromCharCode` call: well under any engine's argument limit. */
const _CHUNK = 0x8000;

/**
 * The bytes as lowercase hex, two digits a byte.
 *
 * @param bytes The bytes.
 * @returns `00ff…`.
 */
export function toHex(bytes: Uint8Array): string {
  if (_native.toHex !== undefined) return _native.toHex.call(bytes);
  let out = "";
  for (const b of bytes) out += _HEX[b]!;
  return out;
}

/**
 * The SHA-256 digest of the bytes, in lowercase hex: a blob's name.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./_encoding.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   await sha256Hex(new Uint8Array()),
 *   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
 * );
 * ```
 *
 * @param bytes The bytes.
 * @returns Sixty-four hex digits.
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return toHex(new Uint8Array(digest));
}

/**
 * The bytes as padded standard base64 (`+`, `/`, `=`).
 *
 * @param bytes The bytes.
 * @returns Their base64.
 */
export function toBase64(bytes: Uint8Array): string {
  if (_native.toBase64 !== undefined) return _native.toBase64.call(bytes);
  let binary = "";
  for (let i = 0; i < bytes.length; i += _CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + _CHUNK));
  }
  return btoa(binary);
}

/**
 * Decodes standard base64 as `Uint8Array.fromBase64` does by default:
 * ASCII whitespace skipped, the padding optional, anything else refused.
 *
 * @param text The base64.
 * @returns The bytes.
 * @throws {SyntaxError} When `text` is not base64.
 */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  if (_native.fromBase64 !== undefined) {
    return _native.fromBase64(text) as Uint8Array<ArrayBuffer>;
  }
  const clean = text.replace(/[\t\n\f\r ]+/g, "");
  // `atob` is the web's forgiving base64: the same alphabet and padding
  // rules, but it throws a DOMException, and accepts an odd bit or two in
  // the last digit, which `fromBase64` does too by default ("loose").
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) {
    throw new SyntaxError("The input is not valid base64");
  }
  if (clean.includes("=") && clean.length % 4 !== 0) {
    throw new SyntaxError("The input is not valid base64: bad padding");
  }
  let binary: string;
  try {
    binary = atob(clean);
  } catch {
    throw new SyntaxError("The input is not valid base64");
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
