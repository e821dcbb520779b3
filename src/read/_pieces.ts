/**
 * The pieces of one line that spans reads, joined once when the line ends.
 *
 * @module
 */

import { EMPTY } from "./_line.ts";

/**
 * Pieces below this size are packed into shared blocks (growing up to it),
 * so a line arriving in tiny chunks costs a few arrays, not one per chunk
 * (1-byte chunks of a 3 MB line held 700 MB as separate arrays).
 */
const PACK_BYTES = 64 * 1024;

/**
 * The pieces of one line, joined once when the line ends. Pieces arrive
 * left to right, or right to left when `backward`; a packing block fills
 * from its start, or from its end when `backward`.
 */
export class Pieces {
  readonly #backward: boolean;
  #parts: Uint8Array[] = []; // in arrival order
  #block: Uint8Array = EMPTY;
  #used = 0;

  constructor(backward: boolean) {
    this.#backward = backward;
  }

  /** Keep `piece`; a large one is copied only when `copy`. */
  add(piece: Uint8Array, copy: boolean): void {
    const n = piece.length;
    if (n >= PACK_BYTES) {
      this.#seal();
      this.#parts.push(copy ? piece.slice() : piece);
      return;
    }
    if (this.#used + n > PACK_BYTES) this.#seal();
    if (this.#used + n > this.#block.length) {
      const block = new Uint8Array(
        Math.min(PACK_BYTES, Math.max(256, 2 * (this.#used + n))),
      );
      block.set(this.#packed(), this.#backward ? block.length - this.#used : 0);
      this.#block = block;
    }
    const at = this.#backward
      ? this.#block.length - this.#used - n
      : this.#used;
    this.#block.set(piece, at);
    this.#used += n;
  }

  /** The byte nearest the line's end, if any piece is kept. */
  lastByte(): number | undefined {
    const first = this.#parts[0];
    if (this.#backward && first !== undefined) return first[first.length - 1];
    if (this.#used > 0) {
      return this
        .#block[this.#backward ? this.#block.length - 1 : this.#used - 1];
    }
    const last = this.#parts[this.#parts.length - 1];
    return last?.[last.length - 1];
  }

  /** The first `length` bytes of the line, `head` being the piece not added. */
  join(head: Uint8Array, length: number): Uint8Array {
    this.#seal();
    const parts = this.#backward ? this.#parts.reverse() : this.#parts;
    if (head.length > 0) {
      if (this.#backward) parts.unshift(head);
      else parts.push(head);
    }
    return concatBytes(parts, length);
  }

  clear(): void {
    this.#parts = [];
    this.#block = EMPTY;
    this.#used = 0;
  }

  #packed(): Uint8Array {
    return this.#backward
      ? this.#block.subarray(this.#block.length - this.#used)
      : this.#block.subarray(0, this.#used);
  }

  #seal(): void {
    if (this.#used > 0) this.#parts.push(this.#packed());
    this.#block = EMPTY;
    this.#used = 0;
  }
}

/**
 * The first `length` bytes of `pieces` laid end to end; a view if one piece.
 *
 * @param pieces The bytes, in order.
 * @param length How many of them.
 * @returns The bytes.
 */
export function concatBytes(
  pieces: readonly Uint8Array[],
  length: number,
): Uint8Array {
  const only = pieces[0];
  if (length === 0) return EMPTY;
  if (pieces.length === 1 && only !== undefined) {
    return only.subarray(0, length);
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    if (at === length) break;
    const n = Math.min(piece.length, length - at);
    out.set(n === piece.length ? piece : piece.subarray(0, n), at);
    at += n;
  }
  return out;
}
