/**
 * Part of an active path kept compactly: ids of 8 hex digits as 32-bit
 * numbers, types as codes, and each entry's byte offset in its file. A path
 * of a million entries costs a few megabytes until someone asks for it as
 * objects; the session index stores it as bytes.
 *
 * @module
 */

import { hexKey } from "../format/_entry_id.ts";

/** Type codes kept in the 16-bit table; more types (a hostile file) are kept by position. */
const _MAX_CODES = 0xffff;

/**
 * Steps of a path, added from the leaf towards the root (index 0 is the
 * step nearest the leaf), read root first.
 */
export class PathSteps {
  #keys = new Uint32Array(256);
  #types = new Uint16Array(256);
  #offsets = new Float64Array(256);
  /** Ids that are not 8 hex digits, by position. */
  #others = new Map<number, string>();
  #typeNames: string[] = [];
  #otherTypes = new Map<number, string>();
  #typeCodes = new Map<string, number>();
  #count = 0;

  /** How many steps. */
  get length(): number {
    return this.#count;
  }

  /** Add the step before the ones added so far (walking from the leaf). */
  add(id: string, type: string, offset = -1): void {
    const key = hexKey(id);
    if (key >= 0) return this.addKey(key, type, offset);
    this.#others.set(this.#count, id); // by position: the key stays unused
    this.addKey(0, type, offset);
  }

  /** {@linkcode add} for an id of 8 hex digits, by its {@linkcode hexKey}. */
  addKey(key: number, type: string, offset = -1): void {
    if (this.#count === this.#keys.length) this.#grow();
    const i = this.#count++;
    this.#keys[i] = key;
    const code = this.#code(type);
    if (code === undefined) this.#otherTypes.set(i, type); // a hostile file's many types
    else this.#types[i] = code;
    this.#offsets[i] = offset;
  }

  /** The id of step `i` (0: nearest the leaf). */
  id(i: number): string {
    return this.#others.get(i) ?? this.#keys[i]!.toString(16).padStart(8, "0");
  }

  /** The type of step `i`. */
  type(i: number): string {
    return this.#otherTypes.get(i) ?? this.#typeNames[this.#types[i]!]!;
  }

  /** The byte offset of step `i`'s line, or -1. */
  offset(i: number): number {
    return this.#offsets[i]!;
  }

  /** Where `id` is, nearest the leaf first; -1 when it is not on the path. */
  indexOf(id: string): number {
    const key = hexKey(id);
    if (key < 0) {
      for (const [i, other] of this.#others) if (other === id) return i;
      return -1;
    }
    for (let i = 0; i < this.#count; i++) {
      if (this.#keys[i] === key && !this.#others.has(i)) return i;
    }
    return -1;
  }

  /** The steps from `i` to the root (a new object). */
  from(i: number): PathSteps {
    const out = new PathSteps();
    out.#append(this, i);
    return out;
  }

  /** These steps, then (towards the root) `more`'s from its step `from` on: one copy of each. */
  concat(more: PathSteps, from = 0): PathSteps {
    const out = new PathSteps();
    out.#reserve(this.#count + Math.max(0, more.#count - from));
    out.#append(this, 0);
    out.#append(more, from);
    return out;
  }

  /** Room for `n` steps in all. */
  #reserve(n: number): void {
    if (n <= this.#keys.length) return;
    const keys = new Uint32Array(n);
    keys.set(this.#keys.subarray(0, this.#count));
    this.#keys = keys;
    const types = new Uint16Array(n);
    types.set(this.#types.subarray(0, this.#count));
    this.#types = types;
    const offsets = new Float64Array(n);
    offsets.set(this.#offsets.subarray(0, this.#count));
    this.#offsets = offsets;
  }

  /** Append `other`'s steps from `i` on, copying the arrays. */
  #append(other: PathSteps, i: number): void {
    const n = other.#count - i;
    if (n <= 0) return;
    if (this.#count + n > this.#keys.length) {
      this.#reserve(Math.max(this.#count + n, this.#keys.length * 2));
    }
    const at = this.#count;
    this.#keys.set(other.#keys.subarray(i, i + n), at);
    this.#offsets.set(other.#offsets.subarray(i, i + n), at);
    // Type codes differ between the two: map each of other's codes once.
    const codes = other.#typeNames.map((name) => this.#code(name));
    for (let j = 0; j < n; j++) {
      const code = codes[other.#types[i + j]!];
      if (code === undefined) this.#otherTypes.set(at + j, other.type(i + j));
      else this.#types[at + j] = code;
    }
    for (const [k, id] of other.#others) {
      if (k >= i) this.#others.set(at + k - i, id);
    }
    for (const [k, type] of other.#otherTypes) {
      if (k >= i) this.#otherTypes.set(at + k - i, type);
    }
    this.#count += n;
  }

  /** The code of a type name, made when new; undefined past the table's size. */
  #code(type: string): number | undefined {
    let code = this.#typeCodes.get(type);
    if (code === undefined && this.#typeNames.length < _MAX_CODES) {
      code = this.#typeNames.push(type) - 1;
      this.#typeCodes.set(type, code);
    }
    return code;
  }

  /** The steps, root first, as objects. */
  toArray(): { id: string; type: string }[] {
    const out: { id: string; type: string }[] = new Array(this.#count);
    for (let i = 0; i < this.#count; i++) {
      out[this.#count - 1 - i] = { id: this.id(i), type: this.type(i) };
    }
    return out;
  }

  /** The steps as bytes, for the session index. */
  encode(): Uint8Array {
    const n = this.#count;
    const meta = new TextEncoder().encode(JSON.stringify({
      types: this.#typeNames,
      others: [...this.#others],
      otherTypes: [...this.#otherTypes],
    }));
    const out = new Uint8Array(8 + n * 14 + meta.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, n, true);
    view.setUint32(4, meta.length, true);
    out.set(new Uint8Array(this.#keys.buffer, 0, n * 4), 8);
    out.set(new Uint8Array(this.#types.buffer, 0, n * 2), 8 + n * 4);
    out.set(new Uint8Array(this.#offsets.buffer, 0, n * 8), 8 + n * 6);
    out.set(meta, 8 + n * 14);
    return out;
  }

  /**
   * Steps from {@linkcode encode}'s bytes.
   *
   * @throws {RangeError} When the bytes are not such an encoding.
   */
  static decode(bytes: Uint8Array): PathSteps {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    if (bytes.length < 8) {
      throw new RangeError("Cannot read path steps: too short");
    }
    const n = view.getUint32(0, true);
    const metaLength = view.getUint32(4, true);
    if (bytes.length !== 8 + n * 14 + metaLength) {
      throw new RangeError(
        "Cannot read path steps: the length does not add up",
      );
    }
    const out = new PathSteps();
    const copy = bytes.slice(8, 8 + n * 14); // aligned
    out.#types = new Uint16Array(copy.buffer.slice(n * 4, n * 6));
    out.#offsets = new Float64Array(copy.buffer.slice(n * 6, n * 14));
    out.#keys = new Uint32Array(copy.buffer.slice(0, n * 4));
    const meta = JSON.parse(
      new TextDecoder().decode(bytes.subarray(8 + n * 14)),
    ) as {
      types: string[];
      others: [number, string][];
      otherTypes: [number, string][];
    };
    out.#typeNames = meta.types;
    out.#typeCodes = new Map(meta.types.map((t, i) => [t, i]));
    out.#others = new Map(meta.others);
    out.#otherTypes = new Map(meta.otherTypes);
    out.#count = n;
    return out;
  }

  #grow(): void {
    const size = Math.max(256, this.#keys.length * 2);
    const keys = new Uint32Array(size);
    keys.set(this.#keys);
    this.#keys = keys;
    const types = new Uint16Array(size);
    types.set(this.#types);
    this.#types = types;
    const offsets = new Float64Array(size);
    offsets.set(this.#offsets);
    this.#offsets = offsets;
  }
}
