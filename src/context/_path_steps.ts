/**
 * The part of an active path a windowed read walked past: ids and types in
 * a few bytes each (ids of 8 hex digits as 32-bit numbers, types as codes),
 * so a path of a million entries costs a few megabytes until someone asks
 * for it as objects.
 *
 * @module
 */

import { hexKey } from "../format/_entry_id.ts";
import type { PathStep } from "./context.ts";

/** Type codes kept in the 16-bit table; more types (a hostile file) are kept by position. */
const _MAX_CODES = 0xffff;

/** Steps of a path, added leaf first, read root first. */
export class PathSteps {
  #keys = new Uint32Array(256);
  #types = new Uint16Array(256);
  /** Ids that are not 8 hex digits, by position. */
  readonly #others = new Map<number, string>();
  readonly #typeNames: string[] = [];
  readonly #otherTypes = new Map<number, string>();
  readonly #typeCodes = new Map<string, number>();
  #count = 0;

  /** How many steps. */
  get length(): number {
    return this.#count;
  }

  /** Add the step before the ones added so far (walking from the leaf). */
  add(id: string, type: string): void {
    if (this.#count === this.#keys.length) this.#grow();
    const i = this.#count++;
    const key = hexKey(id);
    if (key < 0) this.#others.set(i, id);
    else this.#keys[i] = key;
    let code = this.#typeCodes.get(type);
    if (code === undefined && this.#typeNames.length < _MAX_CODES) {
      code = this.#typeNames.push(type) - 1;
      this.#typeCodes.set(type, code);
    }
    if (code === undefined) this.#otherTypes.set(i, type); // a hostile file's many types
    else this.#types[i] = code;
  }

  /** The steps, root first, as objects. */
  toArray(): PathStep[] {
    const out: PathStep[] = new Array(this.#count);
    for (let i = 0; i < this.#count; i++) {
      const id = this.#others.get(i) ??
        this.#keys[i]!.toString(16).padStart(8, "0");
      const type = this.#otherTypes.get(i) ?? this.#typeNames[this.#types[i]!]!;
      out[this.#count - 1 - i] = { id, type };
    }
    return out;
  }

  #grow(): void {
    const keys = new Uint32Array(this.#keys.length * 2);
    keys.set(this.#keys);
    this.#keys = keys;
    const types = new Uint16Array(this.#types.length * 2);
    types.set(this.#types);
    this.#types = types;
  }
}
