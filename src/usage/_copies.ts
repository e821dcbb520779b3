/**
 * Which copy of a call counts. A fork (or a branched copy made with `cp`)
 * copies its parent's entries, ids and times included; omp's statistics
 * count such a call once. So files are ranked (the earliest created first,
 * {@linkcode compareRank}) and a call is counted in the first file that
 * gives its id and time ({@linkcode SeenCalls}). The index ranks its
 * stored copies with the same order, so both sources pick the same one.
 *
 * @module
 */

/** A file's place in the order copies are kept in: its creation time (from its name), then its path. */
export interface FileRank {
  /** The creation time its name gives (`<ts>_<id>.jsonl`), else Infinity. */
  created: number;
  /** The file. */
  path: string;
}

/**
 * The time in a session file's name: omp and this library name a file
 * `<header timestamp>_<id>.jsonl`, the time's `:` and `.` written `-`
 * (`2026-01-02T03-04-05-678Z_<id>.jsonl`), so a fork's name sorts after
 * its parent's. Up to 9 digits of a second are allowed (the first three
 * are milliseconds).
 */
const _NAME_TIME =
  /(?:^|[\\/])(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})(?:-(\d{1,9}))?Z_[^\\/]*\.jsonl$/;

/**
 * The creation time a session file's name records, read as `Date.parse`
 * reads the ISO time it stands for (a day past the month's end runs over
 * into the next; 24:00:00.000 is the next day's start).
 *
 * @param path The file.
 * @returns Milliseconds since the epoch, or Infinity for another name.
 */
export function createdOf(path: string): number {
  const m = _NAME_TIME.exec(path);
  if (m === null) return Infinity;
  const [, date, h, min, s, fraction] = m;
  const ms = (fraction ?? "").padEnd(3, "0").slice(0, 3);
  const t = Date.parse(`${date}T${h}:${min}:${s}.${ms}Z`);
  return Number.isFinite(t) ? t : Infinity;
}

/**
 * The order copies of an entry are kept in: the earliest created file
 * holds it (a fork is created after its parent), then the first path in
 * code point order (the byte order SQLite sorts UTF-8 text in, which the
 * index's copies are ranked by too).
 *
 * @param a A file.
 * @param b Another.
 * @returns Negative when `a` comes first.
 */
export function compareRank(a: FileRank, b: FileRank): number {
  if (a.created !== b.created) return a.created < b.created ? -1 : 1;
  const n = Math.min(a.path.length, b.path.length);
  for (let i = 0; i < n; i++) {
    const x = a.path.charCodeAt(i);
    const y = b.path.charCodeAt(i);
    if (x !== y) return _codePointOrder(x) - _codePointOrder(y);
  }
  return a.path.length - b.path.length;
}

/** A UTF-16 unit remapped so that surrogates sort above U+E000–U+FFFF. */
function _codePointOrder(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** What {@linkcode SeenCalls} keeps of an id. */
interface _Seen {
  /** The last file (its number) that gave the id. */
  file: number;
  /** The time of its first counted call. */
  time: number;
  /** The times of its other counted calls (a rare id reused at another time). */
  others: Set<number> | undefined;
}

/**
 * The calls counted, by entry id: which file last gave an id (an id a file
 * already gave is passed over, as the index keeps one row per id and file)
 * and at what times it was counted (a copy of an earlier file's call has
 * its id and time). Files are given in rank order.
 */
export class SeenCalls {
  readonly #ids = new Map<string, _Seen>();

  /**
   * Mark a call of file number `file` counted.
   *
   * @param id The call's entry id.
   * @param time Its time (ms).
   * @param file The file's number in rank order.
   * @returns False when it is not to be counted: the file already gave
   * its id, or an earlier file gave its id and time.
   */
  add(id: string, time: number, file: number): boolean {
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
}
