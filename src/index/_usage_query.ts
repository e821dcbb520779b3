/**
 * A usage report from the `usage` facet's rows: the copies marked `first`
 * (every call once), each counted by the tally the pass over the files
 * counts with (so the figures are equal to the last bit), with its file's
 * session.
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import { compareRank } from "../usage/_copies.ts";
import { returnArrays } from "./_prepared.ts";
import type { CountedUsage, TimeRange, UsageTally } from "../usage/_tally.ts";

interface _File {
  file: number;
  sessionId: string;
  cwd: string;
  deleted: number;
}

/** A call's columns, as an array: file, then what `CountedUsage` holds. */
type _Call = [
  number,
  number,
  string,
  string,
  string,
  number,
  number,
  number,
  number,
  number | null,
  number,
  number,
];

/** The same, as an object (where SQLite cannot give arrays). */
interface _Row {
  file: number;
  timestamp: number;
  provider: string;
  model: string;
  stopReason: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number | null;
  malformed: number;
  unpriced: number;
}

function _toArray(r: _Row): _Call {
  return [
    r.file,
    r.timestamp,
    r.provider,
    r.model,
    r.stopReason,
    r.input,
    r.output,
    r.cacheRead,
    r.cacheWrite,
    r.cost,
    r.malformed,
    r.unpriced,
  ];
}

/**
 * Count the index's calls into `tally`.
 *
 * @param db The index.
 * @param range The moments that count.
 * @param excludeDeleted Leave out the calls of deleted files.
 * @param tally Where they are counted.
 */
export function tallyIndex(
  db: IndexDb,
  range: TimeRange,
  excludeDeleted: boolean,
  tally: UsageTally,
): void {
  const files = new Map<number, _File>();
  for (
    const f of db.prepare(
      "SELECT file, sessionId, cwd, deleted FROM usage_files",
    ).all() as unknown as _File[]
  ) {
    if (!excludeDeleted || f.deleted === 0) files.set(f.file, f);
  }
  // Every call counted as the pass over the files counts it (the same
  // tally, so the same figures to the last bit), read in the table's own
  // order: "first + 0" keeps SQLite off the usage_first index, through
  // which each row cost a search of the table's key; an SQL sum of the
  // cost in JavaScript, a call into it per row, cost more than this
  // (10,000 sessions, 32,000 calls: ~130 -> ~60 ms).
  const where = _where(range, "u");
  const calls = db.prepare(
    `SELECT file, timestamp, provider, model, stopReason, input, output,
       cacheRead, cacheWrite, cost, malformed, unpriced
     FROM usage u WHERE u.first + 0 = 1 ${where.sql}`,
  );
  returnArrays(calls);
  for (const c of calls.all(...where.args) as unknown as (_Call | _Row)[]) {
    const a = Array.isArray(c) ? c : _toArray(c);
    const f = files.get(a[0]);
    if (f === undefined) continue; // deleted, and left out
    tally.add({
      timestamp: a[1],
      provider: a[2],
      model: a[3],
      stopReason: a[4],
      input: a[5],
      output: a[6],
      cacheRead: a[7],
      cacheWrite: a[8],
      cost: a[9] ?? undefined,
      malformed: a[10] !== 0,
      unpriced: a[11] !== 0,
    }, f);
  }
  if (excludeDeleted) _tallyOrphans(db, range, tally);
}

/** The range as SQL on a table alias, and its arguments. */
function _where(
  range: TimeRange,
  alias: string,
): { sql: string; args: number[] } {
  const parts: string[] = [];
  const args: number[] = [];
  if (range.start !== undefined || range.end !== undefined) {
    parts.push(`${alias}.timestamp > 0`);
  }
  if (range.start !== undefined) {
    parts.push(`${alias}.timestamp >= ?`);
    args.push(range.start);
  }
  if (range.end !== undefined) {
    parts.push(`${alias}.timestamp < ?`);
    args.push(range.end);
  }
  return { sql: parts.map((p) => `AND ${p}`).join(" "), args };
}

interface _Copy extends CountedUsage {
  entryId: string;
  file: number;
  path: string;
  created: number | null;
  sessionId: string;
  cwd: string;
}

/**
 * Without the deleted files, a call whose counted copy was in one is
 * counted in the earliest live file that holds it: few rows, one by one.
 */
function _tallyOrphans(
  db: IndexDb,
  range: TimeRange,
  tally: UsageTally,
): void {
  const where = _where(range, "d");
  const rows = db.prepare(
    `SELECT u.entryId AS entryId, u.timestamp AS timestamp,
       u.provider AS provider, u.model AS model, u.stopReason AS stopReason,
       u.input AS input, u.output AS output, u.cacheRead AS cacheRead,
       u.cacheWrite AS cacheWrite, u.cost AS cost, u.malformed AS malformed,
       u.unpriced AS unpriced, f.file AS file, f.path AS path,
       f.created AS created, f.sessionId AS sessionId, f.cwd AS cwd
     FROM usage d
       JOIN usage_files df ON df.file = d.file
       JOIN usage u ON u.entryId = d.entryId AND u.timestamp = d.timestamp
       JOIN usage_files f ON f.file = u.file
     WHERE d.first = 1 AND df.deleted = 1 AND f.deleted = 0 ${where.sql}`,
  ).all(...where.args) as unknown as _Copy[];
  const best = new Map<string, _Copy>();
  const rank = (c: _Copy) => ({ path: c.path, created: c.created ?? Infinity });
  for (const row of rows) {
    const key = `${row.entryId}\u0000${row.timestamp}`;
    const held = best.get(key);
    if (
      held === undefined || compareRank(rank(row), rank(held)) < 0 ||
      (compareRank(rank(row), rank(held)) === 0 && row.file < held.file)
    ) best.set(key, row);
  }
  for (const c of best.values()) {
    tally.add({
      ...c,
      cost: c.cost ?? undefined,
      malformed: Boolean(c.malformed),
      unpriced: Boolean(c.unpriced),
    }, c);
  }
}
