/**
 * The `usage` facet: a row per model call each session file records, so a
 * usage report is an aggregate query. A call a fork copied from its parent
 * (same entry id, same time) is stored in both files, and exactly one copy
 * is marked `first`: the one in the earliest file ({@linkcode compareRank}),
 * as a report counts it. The rows of a deleted file stay, marked deleted,
 * so a month's total does not shrink when old sessions are pruned.
 *
 * A version 1 file's calls are read from its entries, which the lines
 * give migrated (ids minted as the loader mints them, from every line in
 * order): the key a fork of it repeats. Its last line without "\n" waits
 * for its end (its id depends on the lines before it).
 *
 * @module
 */

import type { IndexDb, IndexStatement } from "./_sqlite.ts";
import { type RequestUsage, requestUsage } from "../format/usage.ts";
import { compareRank, createdOf, type FileRank } from "../usage/_copies.ts";
import { lineCall, mintsIds } from "../usage/_line_call.ts";
import type { FacetFile, FacetLine, IndexFacet } from "./_facets.ts";
import { prepared } from "./_prepared.ts";

/** A stored file's place among copies: its rank, then its row (an older incarnation first). */
interface _Ranked extends FileRank {
  file: number;
}

const _RANK = "f.file AS file, f.path AS path, f.created AS created";

/**
 * The facet's statements (prepared once per database). Each one a call is
 * stored with finds its rows by the call's key (`usage_key`) or its
 * file's (the primary key): never by `first` or a time alone, which many
 * calls may share (see `tests/index/usage_facet_test.ts`).
 */
export const USAGE_SQL = {
  liveFile: "SELECT file FROM usage_files WHERE path = ? AND deleted = 0",
  addFile: `INSERT INTO usage_files (path, sessionId, cwd, created, deleted)
    VALUES (?, ?, ?, ?, 0)`,
  insert: `INSERT OR IGNORE INTO usage (file, entryId, timestamp, provider,
      model, stopReason, input, output, cacheRead, cacheWrite, cost,
      malformed, unpriced, first)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
  // `+first`: by the call's key (usage_key). On `first`, SQLite took the
  // index of (first, timestamp), covering, and read every counted call of
  // that time: when calls share one (0, or an import's constant), each
  // insert read all those counted before it, and a build was quadratic.
  firstOf: `SELECT ${_RANK} FROM usage u JOIN usage_files f ON f.file = u.file
    WHERE u.entryId = ? AND u.timestamp = ? AND +u.first = 1`,
  copiesOf: `SELECT ${_RANK} FROM usage u JOIN usage_files f ON f.file = u.file
    WHERE u.entryId = ? AND u.timestamp = ?`,
  setFirst: "UPDATE usage SET first = ? WHERE file = ? AND entryId = ?",
  // `+first`: by the file's key range. On `first`, SQLite took the index of
  // (first, timestamp) and read every counted call of every file (10,000
  // files, 32,000 calls: ~1.4 ms each time a file is read again).
  firstsIn:
    "SELECT entryId, timestamp FROM usage WHERE file = ? AND +first = 1",
  dropRows: "DELETE FROM usage WHERE file = ?",
  dropFile: "DELETE FROM usage_files WHERE file = ?",
  markDeleted:
    "UPDATE usage_files SET deleted = 1 WHERE path = ? AND deleted = 0",
  lastOf: "SELECT entryId FROM usage_last WHERE file = ?",
  setLast: "INSERT OR REPLACE INTO usage_last (file, entryId) VALUES (?, ?)",
  dropLast: "DELETE FROM usage_last WHERE file = ?",
  dropCall: "DELETE FROM usage WHERE file = ? AND entryId = ?",
  timeOf: "SELECT timestamp FROM usage WHERE file = ? AND entryId = ?",
} as const;

type _Statements = Record<keyof typeof USAGE_SQL, IndexStatement>;

function _prepared(db: IndexDb): _Statements {
  const out = {} as _Statements;
  for (const [name, sql] of Object.entries(USAGE_SQL)) {
    out[name as keyof typeof USAGE_SQL] = prepared(db, sql);
  }
  return out;
}

/** The facet's tables. */
const _SCHEMA: readonly string[] = [
  // A session file as the facet met it; a file deleted and made again at
  // the same path is a new row (the old one keeps its calls, deleted).
  `CREATE TABLE IF NOT EXISTS usage_files (
    file INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    sessionId TEXT NOT NULL,
    cwd TEXT NOT NULL,
    created REAL,
    deleted INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS usage_files_path ON usage_files (path, deleted)`,
  // One row per model call per file (the first line with its id); cost
  // NULL when none is recorded.
  `CREATE TABLE IF NOT EXISTS usage (
    file INTEGER NOT NULL,
    entryId TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    stopReason TEXT NOT NULL,
    input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    cacheRead INTEGER NOT NULL,
    cacheWrite INTEGER NOT NULL,
    cost REAL,
    malformed INTEGER NOT NULL,
    unpriced INTEGER NOT NULL,
    first INTEGER NOT NULL,
    PRIMARY KEY (file, entryId)
  ) WITHOUT ROWID`,
  `CREATE INDEX IF NOT EXISTS usage_key ON usage (entryId, timestamp)`,
  `CREATE INDEX IF NOT EXISTS usage_first ON usage (first, timestamp)`,
  // The call a file's last line without "\n" gave, while the line has not
  // ended: dropped when the line is cut off or changes, kept once it comes
  // again as a whole line.
  `CREATE TABLE IF NOT EXISTS usage_last (
    file INTEGER PRIMARY KEY,
    entryId TEXT NOT NULL
  )`,
];

/** The usage facet. */
export const USAGE_FACET: IndexFacet = {
  name: "usage",
  // 2: a last line without "\n" counts (as omp counts it); version 1
  // left it out until it ended. 3: a glued line counts its first
  // object's call, as the loader reads it, and a version 1 file's calls
  // count (version 2 counted neither).
  version: 3,
  schema: _SCHEMA,
  update(
    db: IndexDb,
    file: FacetFile,
    lines: readonly FacetLine[],
  ): void {
    const s = _prepared(db);
    const self = _liveFile(s, file);
    // The call of a last line taken before it ended: a whole line giving
    // its id again keeps it.
    const held = s.lastOf.get(self.file) as { entryId: string } | undefined;
    const migrated = mintsIds(file.header);
    for (const line of lines) {
      const u = migrated ? _entryCall(line) : lineCall(line.bytes);
      if (u === undefined) continue;
      if (held !== undefined && u.entryId === held.entryId) {
        s.dropLast.run(self.file);
      }
      _insert(s, self, u);
    }
  },
  lastLine(
    db: IndexDb,
    file: FacetFile,
    line: FacetLine | undefined,
  ): void {
    const s = _prepared(db);
    const known = s.liveFile.get(file.path) as { file: number } | undefined;
    const held = known === undefined
      ? undefined
      : s.lastOf.get(known.file) as { entryId: string } | undefined;
    // A version 1 file's last line: its id is minted from the lines before it.
    const u = line === undefined || mintsIds(file.header)
      ? undefined
      : lineCall(line.bytes);
    if (held === undefined && u === undefined) return;
    const self = _liveFile(s, file);
    if (held !== undefined) {
      if (u !== undefined && u.entryId === held.entryId) return; // the same line
      _dropCall(s, self.file, held.entryId);
      s.dropLast.run(self.file);
    }
    if (u === undefined) return;
    const before = s.timeOf.get(self.file, u.entryId);
    _insert(s, self, u);
    if (before === undefined) s.setLast.run(self.file, u.entryId);
  },
  forgetAll(db: IndexDb): void {
    // Every live file goes; the calls of deleted files stay, and one copy
    // of each among them is counted again.
    db.exec(`DELETE FROM usage WHERE file IN
      (SELECT file FROM usage_files WHERE deleted = 0)`);
    db.exec("DELETE FROM usage_files WHERE deleted = 0");
    db.exec(
      "DELETE FROM usage_last WHERE file NOT IN (SELECT file FROM usage_files)",
    );
    db.exec("UPDATE usage SET first = 0");
    const copies = db.prepare(
      `SELECT u.entryId AS entryId, u.timestamp AS timestamp, ${_RANK}
       FROM usage u JOIN usage_files f ON f.file = u.file`,
    ).all() as unknown as (_Row & { entryId: string; timestamp: number })[];
    const best = new Map<string, _Ranked & { entryId: string }>();
    for (const row of copies) {
      const key = `${row.entryId}\u0000${row.timestamp}`;
      const ranked = { ..._ranked(row), entryId: row.entryId };
      const held = best.get(key);
      if (held === undefined || _compare(ranked, held) < 0) {
        best.set(key, ranked);
      }
    }
    const s = _prepared(db);
    for (const { file, entryId } of best.values()) {
      s.setFirst.run(1, file, entryId);
    }
  },
  forget(db: IndexDb, path: string, deleted: boolean): void {
    const s = _prepared(db);
    if (deleted) {
      s.markDeleted.run(path);
      return;
    }
    const live = s.liveFile.get(path) as { file: number } | undefined;
    if (live === undefined) return;
    const held = s.firstsIn.all(live.file) as unknown as {
      entryId: string;
      timestamp: number;
    }[];
    s.dropRows.run(live.file);
    s.dropFile.run(live.file);
    s.dropLast.run(live.file);
    for (const { entryId, timestamp } of held) {
      _electFirst(s, entryId, timestamp);
    }
  },
};

/** The call a line's entry records (a version 1 file's, migrated). */
function _entryCall(line: FacetLine): RequestUsage | undefined {
  const entry = line.entry();
  return entry === undefined ? undefined : requestUsage(entry);
}

/** Make the first-ranked copy of a call `first` (once the copy that was is dropped). */
function _electFirst(s: _Statements, entryId: string, timestamp: number): void {
  const copies = s.copiesOf.all(entryId, timestamp) as unknown as _Row[];
  const best = copies.map(_ranked).sort(_compare)[0];
  if (best !== undefined) s.setFirst.run(1, best.file, entryId);
}

/** Drop one call of a file; another file's copy of it counts instead. */
function _dropCall(s: _Statements, file: number, entryId: string): void {
  const row = s.timeOf.get(file, entryId) as { timestamp: number } | undefined;
  if (row === undefined) return;
  s.dropCall.run(file, entryId);
  _electFirst(s, entryId, row.timestamp);
}

interface _Row {
  file: number;
  path: string;
  created: number | null;
}

function _ranked(row: _Row): _Ranked {
  return {
    file: row.file,
    path: row.path,
    created: row.created ?? Infinity,
  };
}

function _compare(a: _Ranked, b: _Ranked): number {
  return compareRank(a, b) || a.file - b.file;
}

/** The file's live row, made when the facet first meets it. */
function _liveFile(s: _Statements, file: FacetFile): _Ranked {
  const created = createdOf(file.path);
  const known = s.liveFile.get(file.path) as { file: number } | undefined;
  if (known !== undefined) {
    return { file: known.file, path: file.path, created };
  }
  const cwd = file.header.cwd;
  const made = s.addFile.run(
    file.path,
    file.header.id,
    typeof cwd === "string" ? cwd : "",
    Number.isFinite(created) ? created : null,
  );
  return { file: Number(made.lastInsertRowid), path: file.path, created };
}

/** Store a call (unless the file already holds its id) and keep one copy of it `first`. */
function _insert(s: _Statements, self: _Ranked, u: RequestUsage): void {
  const added = s.insert.run(
    self.file,
    u.entryId,
    u.timestamp,
    u.provider,
    u.model,
    u.stopReason,
    u.input,
    u.output,
    u.cacheRead,
    u.cacheWrite,
    u.cost ?? null,
    u.malformed ? 1 : 0,
    u.unpriced ? 1 : 0,
  );
  if (added.changes === 0) return; // an id the file already holds
  const held = s.firstOf.get(u.entryId, u.timestamp) as unknown as
    | _Row
    | undefined;
  if (held !== undefined) {
    const other = _ranked(held);
    if (_compare(self, other) > 0) return;
    s.setFirst.run(0, other.file, u.entryId);
  }
  s.setFirst.run(1, self.file, u.entryId);
}
