/**
 * The id the backward walk wants next (the parent of the last path entry),
 * kept as bytes too, so a line's envelope is matched against it without
 * decoding the line's id.
 *
 * @module
 */

import type { EnvelopeAt } from "./_envelope.ts";

const _encoder = new TextEncoder();

/** The wanted id, as a string and as bytes. */
export class WantedId {
  /** The id, or null when the path has reached its root. */
  id: string | null = null;
  /** Its bytes, in the first `#length` bytes (-1: none). */
  readonly #bytes = new Uint8Array(256);
  #length = -1;

  /** Want `id` (null: nothing). */
  set(id: string | null): void {
    this.id = id;
    this.#length = id === null ? -1 : _bytesInto(id, this.#bytes);
  }

  /** Whether the envelope at hand carries the wanted id. */
  matches(at: EnvelopeAt): boolean {
    const n = this.#length;
    if (n < 0 || at.idEnd - at.idStart !== n) return false;
    const want = this.#bytes;
    const bytes = at.bytes;
    const start = at.idStart;
    for (let i = 0; i < n; i++) {
      if (bytes[start + i] !== want[i]) return false;
    }
    return true;
  }
}

/**
 * Write an id's UTF-8 bytes into `into` (up to its length; a longer id
 * cannot be an envelope's); returns how many. A plain copy for ASCII.
 */
function _bytesInto(id: string, into: Uint8Array): number {
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c >= 0x80) {
      const { written } = _encoder.encodeInto(id, into);
      return written;
    }
    if (i >= into.length) return into.length + 1; // longer: matches nothing
    into[i] = c;
  }
  return id.length;
}
