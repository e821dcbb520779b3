/**
 * The calls a usage pass counted, by entry id: a copy of a call (a fork's,
 * with the same id and time) is counted once, in the first file that
 * gives it; an id a file gives again is passed over.
 *
 * @module
 */

import { hexKey } from "../../format/_entry_id.ts";
import { hashKey } from "../../read/_id_set.ts";

/** What {@linkcode SeenCalls} keeps of an id that is not 8 hex digits. */
interface _Id {
  /** The last file (its number) that gave the id. */
  file: number;
  /** The time of its first counted call. */
  time: number;
  /** The times of its other counted calls (a rare id reused at another time). */
  others: Set<number> | undefined;
}

/**
 * The calls counted, by entry id: which file last gave an id (an id a file
 * already gave is passed over) and at what times it was counted (a copy
 * of an earlier file's call has its id and time). The ids omp and this
 * library mint (8 hex digits) are kept as numbers in an open-addressing
 * table of typed arrays: no id string outlives its line (a `Map` of the
 * strings kept every one past the young generation: ~2.5 µs a call in a
 * 512 MB session, a quarter of the pass); other ids in a `Map`.
 */
export class SeenCalls {
  /** The hex ids, and per slot the file that last gave it (plus 1; 0: empty) and its first time. */
  #keys = new Uint32Array(1 << 12);
  #files = new Int32Array(1 << 12);
  #times = new Float64Array(1 << 12);
  #count = 0;
  /** Other counted times of a hex id, by its key (rare). */
  readonly #moreTimes = new Map<number, Set<number>>();
  readonly #ids = new Map<string, _Id>();

  /**
   * Mark a call of file number `file` counted.
   *
   * @returns False when it is not to be counted: the file already gave
   * its id, or an earlier file gave its id and time.
   */
  add(id: string, time: number, file: number): boolean {
    const key = hexKey(id);
    if (key < 0) return this.#addOther(id, time, file);
    if ((this.#count + 1) * 2 > this.#keys.length) this.#grow();
    const mask = this.#keys.length - 1;
    let i = hashKey(key) & mask;
    for (; this.#files[i] !== 0; i = (i + 1) & mask) {
      if (this.#keys[i] !== key) continue;
      if (this.#files[i] === file + 1) return false;
      this.#files[i] = file + 1;
      if (this.#times[i] === time) return false;
      let more = this.#moreTimes.get(key);
      if (more === undefined) this.#moreTimes.set(key, more = new Set());
      if (more.has(time)) return false;
      more.add(time);
      return true;
    }
    this.#keys[i] = key;
    this.#files[i] = file + 1;
    this.#times[i] = time;
    this.#count++;
    return true;
  }

  #addOther(id: string, time: number, file: number): boolean {
    const seen = this.#ids.get(id);
    if (seen === undefined) {
      this.#ids.set(id, { file, time, others: undefined });
      return true;
    }
    if (seen.file === file) return false;
    seen.file = file;
    if (seen.time === time) return false;
    seen.others ??= new Set();
    if (seen.others.has(time)) return false;
    seen.others.add(time);
    return true;
  }

  #grow(): void {
    const [keys, files, times] = [this.#keys, this.#files, this.#times];
    const size = keys.length * 2;
    this.#keys = new Uint32Array(size);
    this.#files = new Int32Array(size);
    this.#times = new Float64Array(size);
    const mask = size - 1;
    for (let j = 0; j < keys.length; j++) {
      if (files[j] === 0) continue;
      let i = hashKey(keys[j]!) & mask;
      while (this.#files[i] !== 0) i = (i + 1) & mask;
      this.#keys[i] = keys[j]!;
      this.#files[i] = files[j]!;
      this.#times[i] = times[j]!;
    }
  }
}
