/**
 * A set of entry ids that costs 4 bytes an id for the ids omp and this
 * library mint (8 lowercase hex digits), so a walk over a 1 GB file can
 * remember every id it passed in a few hundred kilobytes.
 *
 * @module
 */

/**
 * Ids as 32-bit numbers in an open-addressing table where they are 8
 * lowercase hex digits, as strings otherwise. Exact: no false positives.
 */
export class IdSet {
  #table = new Uint32Array(1 << 12);
  #used = new Uint8Array(1 << 12);
  #count = 0;
  readonly #other = new Set<string>();

  /** How many ids the set holds. */
  get size(): number {
    return this.#count + this.#other.size;
  }

  /** Add an id. */
  add(id: string): void {
    const hex = _hexOfString(id);
    if (hex < 0) this.#other.add(id);
    else this.#insert(hex);
  }

  /** Add the id in `bytes[start, end)`. */
  addBytes(bytes: Uint8Array, start: number, end: number): void {
    const hex = _hexOfBytes(bytes, start, end);
    if (hex < 0) this.#other.add(_utf8.decode(bytes.subarray(start, end)));
    else this.#insert(hex);
  }

  /** Whether the set holds an id. */
  has(id: string): boolean {
    const hex = _hexOfString(id);
    return hex < 0 ? this.#other.has(id) : this.#find(hex);
  }

  /** Whether the set holds the id in `bytes[start, end)`. */
  hasBytes(bytes: Uint8Array, start: number, end: number): boolean {
    const hex = _hexOfBytes(bytes, start, end);
    return hex < 0
      ? this.#other.has(_utf8.decode(bytes.subarray(start, end)))
      : this.#find(hex);
  }

  #insert(key: number): void {
    if ((this.#count + 1) * 2 > this.#table.length) this.#grow();
    const mask = this.#table.length - 1;
    for (let i = _hash(key) & mask;; i = (i + 1) & mask) {
      if (this.#used[i] === 0) {
        this.#used[i] = 1;
        this.#table[i] = key;
        this.#count++;
        return;
      }
      if (this.#table[i] === key) return;
    }
  }

  #find(key: number): boolean {
    const mask = this.#table.length - 1;
    for (let i = _hash(key) & mask;; i = (i + 1) & mask) {
      if (this.#used[i] === 0) return false;
      if (this.#table[i] === key) return true;
    }
  }

  #grow(): void {
    const table = this.#table;
    const used = this.#used;
    this.#table = new Uint32Array(table.length * 2);
    this.#used = new Uint8Array(table.length * 2);
    this.#count = 0;
    for (let i = 0; i < table.length; i++) {
      if (used[i] === 1) this.#insert(table[i]!);
    }
  }
}

const _utf8 = new TextDecoder();

/** A 32-bit mix, so sequential ids spread over the table. */
function _hash(key: number): number {
  let h = Math.imul(key ^ (key >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}

function _digit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** The 8 lowercase hex digits of `bytes[start, end)` as a number, or -1. */
function _hexOfBytes(bytes: Uint8Array, start: number, end: number): number {
  if (end - start !== 8) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const d = _digit(bytes[i]!);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

function _hexOfString(id: string): number {
  if (id.length !== 8) return -1;
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const d = _digit(id.charCodeAt(i));
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}
