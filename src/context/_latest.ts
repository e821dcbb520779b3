/**
 * Keeping, while a path is walked backwards, only the latest entry of each
 * kind that a forward fold would let win, so the fold runs once, forwards,
 * over a handful of entries.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";

/**
 * The latest entry per key, for entries offered latest first: the first one
 * offered under a key is kept, later offers under it are not.
 */
export class LatestByKey {
  readonly #kept = new Map<string, SessionEntry>();
  readonly #keyOf: (entry: SessionEntry) => string | undefined;

  /** @param keyOf The key an entry counts under; undefined: it never counts. */
  constructor(keyOf: (entry: SessionEntry) => string | undefined) {
    this.#keyOf = keyOf;
  }

  /** Whether an entry is already kept under `key`. */
  has(key: string): boolean {
    return this.#kept.has(key);
  }

  /** Offer an entry (latest first); returns whether it was kept. */
  offer(entry: SessionEntry): boolean {
    const key = this.#keyOf(entry);
    if (key === undefined || this.#kept.has(key)) return false;
    this.#kept.set(key, entry);
    return true;
  }

  /** The kept entries in path order (earliest first), for a forward fold. */
  inOrder(): SessionEntry[] {
    return [...this.#kept.values()].reverse();
  }
}
