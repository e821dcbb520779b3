/**
 * The mark a complete refresh leaves, so that the next one, when nothing
 * changed, reads no row. A refresh must stat every file (an append changes
 * a file, not its folder), but comparing each stat with its row took as
 * long again (10,000 rows: their stat columns, which of them hold a head
 * only, which some facet has not read to their end; ~30 ms). The mark
 * holds a fingerprint of what the files looked like when every row
 * matched them: each file's path, device, inode, size and modification
 * time, hashed and summed (so the order a folder lists them in does not
 * matter), with the schema and the facets' versions. A refresh whose
 * files give the mark's fingerprint is done.
 *
 * The mark is only as good as the rows, so every write transaction takes
 * it away first (in every process; a version of this library that would
 * not leaves a schema 6 index alone), and only a refresh that saved each
 * of its writes while no other connection committed leaves it (`PRAGMA
 * data_version`). Triggers on the rows would have taken it away for any
 * writer at all, but a statement that fires a trigger opens a savepoint,
 * and a savepoint makes the full-text index write out what it holds in
 * memory: a cold build of 10,000 sessions took 9.6 s instead of 7.8.
 *
 * @module
 */

import type { FileInfo } from "../_fs.ts";
import { FACETS } from "./_facet_list.ts";
import { INDEX_SCHEMA_VERSION } from "./_schema.ts";

/** What a complete refresh found, kept as the mark. */
export interface FreshMark {
  /** The files' fingerprint ({@linkcode FilesPrint}). */
  print: string;
  /** Sessions in the index after it. */
  sessions: number;
  /** Files that were not sessions. */
  skipped: number;
  /**
   * The files the search facet does not hold whole (a search scans them),
   * or null when there were too many to keep here. While the mark stands
   * no row or facet has changed, so neither has this list: a search takes
   * it instead of asking every row (~8 ms for 10,000).
   */
  uncovered: string[] | null;
}

/** Uncovered files kept in a mark, at most. */
export const MARK_UNCOVERED = 1000;

/** The mark as `meta` keeps it. */
export function markText(mark: FreshMark): string {
  return JSON.stringify(mark);
}

/**
 * The mark `meta` keeps, or undefined when its text is not one, or is one
 * of another schema or facet versions (its fingerprint's salt): such a
 * mark vouches for rows and facets as that version left them, so a refresh
 * must compare every row and ask which facets are behind.
 */
export function markOf(text: string | undefined): FreshMark | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const m = value as Partial<FreshMark> | null;
  if (
    typeof m?.print !== "string" || !Number.isSafeInteger(m.sessions) ||
    !Number.isSafeInteger(m.skipped) ||
    !(m.uncovered === null ||
      (Array.isArray(m.uncovered) &&
        m.uncovered.every((p) => typeof p === "string")))
  ) {
    return undefined;
  }
  if (FilesPrint.parse(m.print) === undefined) return undefined;
  return m as FreshMark;
}

/** What else the fingerprint depends on: a newer schema or facet reads every file anew. */
const _SALT = `${INDEX_SCHEMA_VERSION}:${
  FACETS.map((f) => `${f.name}@${f.version}`).join(",")
}`;

/**
 * The fingerprint of a set of files' names and metadata: two independent
 * 32-bit hashes of each file, summed, and the count (a changed file goes
 * unnoticed only when both of its hashes collide: ~1 in 2^64).
 */
export class FilesPrint {
  #count = 0;
  #a = 0;
  #b = 0;
  #complete = true;

  /**
   * Count a file in.
   *
   * @param path The file.
   * @param info Its stat, or undefined when it could not be stat'ed (no
   * mark is made of such a set: it may be there or gone next time).
   */
  add(path: string, info: FileInfo | undefined): void {
    if (info === undefined) {
      this.#complete = false;
      return;
    }
    const { size, mtimeMs, ino, dev } = info;
    this.addStat(path, { size, mtimeMs, ino, dev });
  }

  /** Count in a file of these stat values (as an index row keeps them). */
  addStat(path: string, stat: FileStat): void {
    const [a, b] = _hashes(path, stat);
    this.#a = (this.#a + a) >>> 0;
    this.#b = (this.#b + b) >>> 0;
    this.#count++;
  }

  /** Take out a file counted in with these stat values. */
  removeStat(path: string, stat: FileStat): void {
    const [a, b] = _hashes(path, stat);
    this.#a = (this.#a - a) >>> 0;
    this.#b = (this.#b - b) >>> 0;
    this.#count--;
  }

  /**
   * The fingerprint a mark keeps, to change it file by file; undefined when
   * it is not one this version makes (another salt).
   */
  static parse(value: string): FilesPrint | undefined {
    const m = /^(\d+):([0-9a-f]{8})([0-9a-f]{8}):(.*)$/.exec(value);
    if (m === null || m[4] !== _SALT) return undefined;
    const print = new FilesPrint();
    print.#count = Number(m[1]);
    print.#a = parseInt(m[2]!, 16);
    print.#b = parseInt(m[3]!, 16);
    return print;
  }

  /** Whether every file was stat'ed. */
  get complete(): boolean {
    return this.#complete;
  }

  /** The fingerprint, as the mark keeps it. */
  get value(): string {
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    return `${this.#count}:${hex(this.#a)}${hex(this.#b)}:${_SALT}`;
  }
}

/** A file's stat values, as the fingerprint takes them. */
export interface FileStat {
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
}

/** Two independent 32-bit hashes of a file's path and stat values. */
function _hashes(path: string, stat: FileStat): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x3c6ef372;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  for (const n of [stat.size, stat.mtimeMs, stat.ino, stat.dev]) {
    // Both 32-bit halves of a number up to 2^53.
    const lo = n >>> 0;
    const hi = Math.floor(n / 0x100000000) >>> 0;
    a = Math.imul(Math.imul(a ^ lo, 0x01000193) ^ hi, 0x01000193);
    b = Math.imul(Math.imul(b ^ lo, 0x5bd1e995) ^ hi, 0x5bd1e995) ^ (b >>> 13);
  }
  return [a >>> 0, b >>> 0];
}
