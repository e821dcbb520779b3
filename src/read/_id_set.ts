/**
 * Sets of entry ids that cost 4 bytes an id for the ids omp and this
 * library mint (8 lowercase hex digits), so a walk over a 1 GB file can
 * remember every id it passed in a few hundred kilobytes.
 *
 * @module
 */

import { hexKey, hexKeyOfBytes } from "../format/_entry_id.ts";

const _utf8 = new TextDecoder();

/**
 * Ids with a few bits of flags each: as 32-bit numbers in an open-addressing
 * table where they are 8 lowercase hex digits, as strings otherwise. Exact:
 * no false positives. A flag of 0 means absent.
 */
export class IdFlags {
  #keys = new Uint32Array(1 << 12);
  #flags = new Uint8Array(1 << 12);
  #count = 0;
  readonly #other = new Map<string, number>();

  /** How many ids are held. */
  get size(): number {
    return this.#count + this.#other.size;
  }

  /** The flags of an id (0: absent). */
  get(id: string): number {
    const key = hexKey(id);
    return key < 0 ? this.#other.get(id) ?? 0 : this.getKey(key);
  }

  /** The flags of the id in `bytes[start, end)`. */
  getBytes(bytes: Uint8Array, start: number, end: number): number {
    const key = hexKeyOfBytes(bytes, start, end);
    return key < 0
      ? this.#other.get(_utf8.decode(bytes.subarray(start, end))) ?? 0
      : this.getKey(key);
  }

  /** Add `flags` to an id's; returns the flags it had. */
  add(id: string, flags: number): number {
    const key = hexKey(id);
    if (key >= 0) return this.addKey(key, flags);
    const old = this.#other.get(id) ?? 0;
    this.#other.set(id, old | flags);
    return old;
  }

  /** Add `flags` to the id in `bytes[start, end)`; returns the flags it had. */
  addBytes(
    bytes: Uint8Array,
    start: number,
    end: number,
    flags: number,
  ): number {
    const key = hexKeyOfBytes(bytes, start, end);
    if (key >= 0) return this.addKey(key, flags);
    return this.add(_utf8.decode(bytes.subarray(start, end)), flags);
  }

  /** Add every id of `other` with its flags. */
  addAll(other: IdFlags): void {
    for (let i = 0; i < other.#keys.length; i++) {
      const f = other.#flags[i]!;
      if (f !== 0) this.addKey(other.#keys[i]!, f);
    }
    for (const [id, f] of other.#other) this.add(id, f);
  }

  /** The ids as bytes (for the session index): hex keys, then the others as JSON. */
  encode(): Uint8Array {
    const keys: number[] = [];
    for (let i = 0; i < this.#keys.length; i++) {
      if (this.#flags[i] !== 0) keys.push(this.#keys[i]!);
    }
    const others = new TextEncoder().encode(
      JSON.stringify([...this.#other.keys()]),
    );
    const out = new Uint8Array(4 + keys.length * 4 + others.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, keys.length, true);
    keys.forEach((k, i) => view.setUint32(4 + i * 4, k, true));
    out.set(others, 4 + keys.length * 4);
    return out;
  }

  /**
   * Ids from {@linkcode encode}'s bytes, each with `flags`.
   *
   * @throws {RangeError} When the bytes are not such an encoding.
   */
  static decode(bytes: Uint8Array, flags = 1): IdFlags {
    if (bytes.length < 4) throw new RangeError("Cannot read ids: too short");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    const n = view.getUint32(0, true);
    if (4 + n * 4 > bytes.length) {
      throw new RangeError("Cannot read ids: too short");
    }
    const out = new IdFlags();
    out.#reserve(n);
    for (let i = 0; i < n; i++) {
      out.addKey(view.getUint32(4 + i * 4, true), flags);
    }
    const others = JSON.parse(
      new TextDecoder().decode(bytes.subarray(4 + n * 4)),
    ) as unknown;
    if (!Array.isArray(others)) {
      throw new RangeError("Cannot read ids: no list of others");
    }
    for (const id of others) if (typeof id === "string") out.add(id, flags);
    return out;
  }

  /**
   * The flags of the id whose {@linkcode hexKey} is `key` (>= 0), the
   * walk's way to ask without making the id's text.
   */
  getKey(key: number): number {
    const mask = this.#keys.length - 1;
    for (let i = hashKey(key) & mask;; i = (i + 1) & mask) {
      const f = this.#flags[i]!;
      if (f === 0) return 0;
      if (this.#keys[i] === key) return f;
    }
  }

  /** Add `flags` to the id whose key is `key` (>= 0); returns the flags it had. */
  addKey(key: number, flags: number): number {
    if ((this.#count + 1) * 2 > this.#keys.length) this.#grow();
    const mask = this.#keys.length - 1;
    for (let i = hashKey(key) & mask;; i = (i + 1) & mask) {
      const f = this.#flags[i]!;
      if (f === 0) {
        this.#keys[i] = key;
        this.#flags[i] = flags;
        this.#count++;
        return 0;
      }
      if (this.#keys[i] === key) {
        this.#flags[i] = f | flags;
        return f;
      }
    }
  }

  /** Room for `n` keys without growing (the table stays at most half full). */
  #reserve(n: number): void {
    let size = this.#keys.length;
    while ((n + 1) * 2 > size) size *= 2;
    if (size === this.#keys.length) return;
    const keys = this.#keys;
    const flags = this.#flags;
    this.#keys = new Uint32Array(size);
    this.#flags = new Uint8Array(size);
    this.#count = 0;
    for (let i = 0; i < keys.length; i++) {
      if (flags[i] !== 0) this.addKey(keys[i]!, flags[i]!);
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const flags = this.#flags;
    this.#keys = new Uint32Array(keys.length * 2);
    this.#flags = new Uint8Array(keys.length * 2);
    this.#count = 0;
    for (let i = 0; i < keys.length; i++) {
      if (flags[i] !== 0) this.addKey(keys[i]!, flags[i]!);
    }
  }
}

/** A set of ids (see {@linkcode IdFlags}). */
export class IdSet {
  readonly #ids = new IdFlags();

  /** How many ids the set holds. */
  get size(): number {
    return this.#ids.size;
  }

  /** Add an id. */
  add(id: string): void {
    this.#ids.add(id, 1);
  }

  /** Add the id in `bytes[start, end)`. */
  addBytes(bytes: Uint8Array, start: number, end: number): void {
    this.#ids.addBytes(bytes, start, end, 1);
  }

  /** Whether the set holds an id. */
  has(id: string): boolean {
    return this.#ids.get(id) !== 0;
  }
}

/**
 * A 32-bit key's slot hash, a mix so that sequential ids spread over the
 * table (every bit of the key in the low bits), for open-addressing tables
 * of hex ids.
 *
 * @param key The key.
 * @returns Its hash.
 */
export function hashKey(key: number): number {
  let h = Math.imul(key ^ (key >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}
