/**
 * The one gate every blob reference passes before a path is built from it.
 *
 * @module
 */

/**
 * What a reference to the blob store starts with.
 *
 * @example Building a reference from a digest
 * ```ts
 * import { parseBlobRef } from "@xdev/session";
 * import { BLOB_REF_PREFIX } from "./blob_ref.ts";
 * import { equal } from "node:assert/strict";
 *
 * const hex = "b".repeat(64);
 * equal(parseBlobRef(`${BLOB_REF_PREFIX}${hex}`), hex);
 * ```
 */
export const BLOB_REF_PREFIX = "blob:sha256:";

const _HEX64 = /^[0-9a-f]{64}$/;

/**
 * The SHA-256 hex digest a blob reference names, or undefined when the string
 * is not exactly `blob:sha256:` followed by 64 lowercase hex characters.
 *
 * Anything else (upper case, a path, `..`, a NUL, extra characters) is never
 * followed: this is the only function that turns a reference into a name.
 *
 * @example Accepting a digest, refusing a path
 * ```ts
 * import { parseBlobRef } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const hex = "a".repeat(64);
 * equal(parseBlobRef(`blob:sha256:${hex}`), hex);
 * equal(parseBlobRef("blob:sha256:../../etc/passwd"), undefined);
 * ```
 *
 * @param ref A string found in an entry.
 * @returns The digest, safe to use as a file name.
 */
export function parseBlobRef(ref: string): string | undefined {
  if (!ref.startsWith(BLOB_REF_PREFIX)) return undefined;
  const hex = ref.slice(BLOB_REF_PREFIX.length);
  return _HEX64.test(hex) ? hex : undefined;
}

/**
 * Whether a string claims to be a blob reference (starts with the prefix),
 * valid or not: such strings are reported when the gate refuses them.
 *
 * @example Telling a claimed reference from a valid one
 * ```ts
 * import { looksLikeBlobRef, parseBlobRef } from "./blob_ref.ts";
 * import { equal } from "node:assert/strict";
 *
 * const claimed = "blob:sha256:not-a-digest";
 * equal(looksLikeBlobRef(claimed), true);
 * equal(parseBlobRef(claimed), undefined);
 * equal(looksLikeBlobRef("data:image/png;base64,iVBO"), false);
 * ```
 *
 * @param value A string found in an entry.
 * @returns Whether it starts with {@linkcode BLOB_REF_PREFIX}.
 */
export function looksLikeBlobRef(value: string): boolean {
  return value.startsWith(BLOB_REF_PREFIX);
}
