/**
 * The entry tree as a scan sees it, one line at a time: each id's parent,
 * in 9 bytes a slot (at most 4 slots an entry) for the ids omp and this
 * library mint (8 hex digits), so a scan of a 1 GB file remembers its
 * 100,000 entries in a few megabytes. At the end it gives the active path, as the reader
 * settles it: the last entry (or the target of a last branch marker), then
 * parents up to the root, a missing parent or a repeated id.
 *
 * @module
 */

import { hexKey, hexKeyOfBytes } from "../format/_entry_id.ts";

const _utf8 = new TextDecoder();

/** A slot's kind: empty, or its entry's parent (a key, none, or not hex). */
const _EMPTY = 0;
const _KEY = 1;
const _ROOT = 2;
const _OTHER = 3;

/** Slots a tree starts with, at least (it doubles when half full). */
const _MIN_SLOTS = 1 << 10;
/** Slots a tree starts with, at most, whatever it expects. */
const _MAX_START_SLOTS = 1 << 17;

/** Each entry's parent. */
export class EntryTree {
  #keys: Uint32Array;
  /** The parent's key, when the slot's kind is {@linkcode _KEY}. */
  #parents: Uint32Array;
  #kinds: Uint8Array;
  #count = 0;
  /** Parents that are not 8 hex digits, by the child's key. */
  readonly #otherParents = new Map<number, string>();
  /** Entries whose id is not 8 hex digits. */
  readonly #others = new Map<string, string | null>();

  /**
   * An empty tree.
   *
   * @param expected About how many entries it will hold (so it does not
   * grow step by step from a small table); a guess is fine.
   */
  constructor(expected = 0) {
    let slots = _MIN_SLOTS;
    while (slots < expected * 2 && slots < _MAX_START_SLOTS) slots *= 2;
    this.#keys = new Uint32Array(slots);
    this.#parents = new Uint32Array(slots);
    this.#kinds = new Uint8Array(slots);
  }

  /**
   * Add an entry (a later one with the same id wins, as in the reader).
   *
   * @param id Its id.
   * @param parentId Its parent (null or empty: a root).
   */
  add(id: string, parentId: string | null): void {
    const key = hexKey(id);
    if (key < 0) {
      this.#others.set(id, parentId === "" ? null : parentId);
      return;
    }
    if (parentId === null || parentId === "") {
      this.#otherParents.delete(key);
      this.#put(key, _ROOT, 0);
      return;
    }
    const parent = hexKey(parentId);
    if (parent < 0) {
      this.#otherParents.set(key, parentId);
      this.#put(key, _OTHER, 0);
    } else {
      this.#otherParents.delete(key);
      this.#put(key, _KEY, parent);
    }
  }

  /**
   * {@linkcode add} from an envelope's bytes, without making strings for
   * hex ids.
   */
  addBytes(
    bytes: Uint8Array,
    idStart: number,
    idEnd: number,
    parentStart: number,
    parentEnd: number,
  ): void {
    const key = hexKeyOfBytes(bytes, idStart, idEnd);
    const parent = parentStart < 0
      ? 0
      : hexKeyOfBytes(bytes, parentStart, parentEnd);
    if (key < 0 || parent < 0) {
      this.add(
        _utf8.decode(bytes.subarray(idStart, idEnd)),
        parentStart < 0
          ? null
          : _utf8.decode(bytes.subarray(parentStart, parentEnd)),
      );
      return;
    }
    if (this.#otherParents.size > 0) this.#otherParents.delete(key);
    this.#put(key, parentStart < 0 ? _ROOT : _KEY, parent);
  }

  /** Whether an entry has this id. */
  has(id: string): boolean {
    const key = hexKey(id);
    return key < 0 ? this.#others.has(id) : this.#slot(key) >= 0;
  }

  /**
   * The ids on the path from `leafId` to the root.
   *
   * @param leafId The leaf, or null.
   * @returns The ids, as a set to ask.
   */
  path(leafId: string | null): { has(id: string): boolean } {
    // A mark per slot of the table while the ids are hex: no strings made.
    const marks = new Uint8Array(this.#keys.length);
    const others = new Set<string>();
    const onPath = {
      has: (x: string): boolean => {
        const k = hexKey(x);
        if (k < 0) return others.has(x);
        const slot = this.#slot(k);
        return slot >= 0 && marks[slot] === 1;
      },
    };
    if (leafId === null || !this.has(leafId)) return onPath;
    let key = hexKey(leafId);
    let id = leafId;
    for (;;) {
      if (key >= 0) {
        const slot = this.#slot(key);
        if (slot < 0) break; // a missing parent
        if (marks[slot] === 1) break; // a cycle
        marks[slot] = 1;
        const kind = this.#kinds[slot]!;
        if (kind === _ROOT) break;
        if (kind === _OTHER) [key, id] = [-1, this.#otherParents.get(key)!];
        else key = this.#parents[slot]!;
      } else {
        if (!this.#others.has(id) || others.has(id)) break; // missing; a cycle
        others.add(id);
        const parent = this.#others.get(id) ?? null;
        if (parent === null) break;
        [key, id] = [hexKey(parent), parent];
      }
    }
    return onPath;
  }

  /** The slot holding `key`, or -1. */
  #slot(key: number): number {
    const mask = this.#keys.length - 1;
    for (let i = _hash(key) & mask;; i = (i + 1) & mask) {
      if (this.#kinds[i] === _EMPTY) return -1;
      if (this.#keys[i] === key) return i;
    }
  }

  #put(key: number, kind: number, parent: number): void {
    if ((this.#count + 1) * 2 > this.#keys.length) this.#grow();
    const keys = this.#keys;
    const kinds = this.#kinds;
    const mask = keys.length - 1;
    for (let i = _hash(key) & mask;; i = (i + 1) & mask) {
      if (kinds[i] === _EMPTY) {
        keys[i] = key;
        kinds[i] = kind;
        this.#parents[i] = parent;
        this.#count++;
        return;
      }
      if (keys[i] === key) {
        kinds[i] = kind;
        this.#parents[i] = parent;
        return;
      }
    }
  }

  #grow(): void {
    const [keys, parents, kinds] = [this.#keys, this.#parents, this.#kinds];
    this.#keys = new Uint32Array(keys.length * 2);
    this.#parents = new Uint32Array(keys.length * 2);
    this.#kinds = new Uint8Array(keys.length * 2);
    this.#count = 0;
    for (let i = 0; i < keys.length; i++) {
      if (kinds[i] !== _EMPTY) this.#put(keys[i]!, kinds[i]!, parents[i]!);
    }
  }
}

/** A 32-bit mix, so sequential ids spread over the table. */
function _hash(key: number): number {
  let h = Math.imul(key ^ (key >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}
