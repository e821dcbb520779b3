/**
 * The index's SQLite driver (`src/index/_sqlite.ts`) on whichever runtime
 * runs this: every call the index makes, FTS5 with the trigram tokenizer,
 * and damage told apart by its result code. Plain `node:` built-ins and
 * `node:assert`, so the one script runs under each runtime:
 *
 *   deno run -A tests/runtime/sqlite_driver.ts
 *   npx --yes node@22 tests/runtime/sqlite_driver.ts     (Node ≥ 22.18: type stripping)
 *   npx --yes bun@1.4.5 tests/runtime/sqlite_driver.ts
 *
 * It imports only the driver, its error classification and the checked
 * walk, which import no `Deno.*`. Prints `ok <runtime>` and exits 0.
 */
import assert from "node:assert/strict";
import {
  closeSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqlite } from "../../src/index/_sqlite.ts";
import {
  isDamaged,
  isLocked,
  isReadOnly,
  sqliteCode,
} from "../../src/index/_sqlite_errors.ts";
import { checkedRows, returnArrays } from "../../src/index/_prepared.ts";
import { RUNTIME } from "./_runtime.ts";

const runtime = RUNTIME;
const dir = mkdtempSync(join(tmpdir(), "xdev-sqlite-"));
const open = await sqlite();

/** Rows as plain objects (`node:sqlite`'s have no prototype, `bun:sqlite`'s do). */
function plain(rows: Iterable<unknown>): unknown[] {
  return [...rows].map((r) => ({ ...r as object }));
}

function caught(work: () => unknown): unknown {
  try {
    work();
  } catch (err) {
    return err;
  }
  assert.fail("no error");
}

try {
  const path = join(dir, "index.sqlite");
  const db = open(path);
  db.exec("PRAGMA busy_timeout = 3000");
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  assert.deepEqual({ ...db.prepare("PRAGMA journal_mode").get() as object }, {
    journal_mode: "wal",
  });

  // Several statements in one exec; a transaction seen as one.
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n REAL, b BLOB);
    CREATE INDEX t_name ON t (name)`);
  assert.equal(db.isTransaction, false);
  db.exec("BEGIN IMMEDIATE");
  assert.equal(db.isTransaction, true);
  const put = db.prepare("INSERT INTO t (name, n, b) VALUES (?, ?, ?)");
  for (let i = 0; i < 2000; i++) {
    const made = put.run(`row ${i}`, i + 0.5, new Uint8Array([i & 0xff, 1]));
    assert.equal(Number(made.changes), 1);
    assert.equal(Number(made.lastInsertRowid), i + 1);
  }
  db.exec("COMMIT");
  assert.equal(db.isTransaction, false);

  // Rows: objects by column name, undefined where none, arrays where asked.
  const one = db.prepare("SELECT id, name, n, b FROM t WHERE name = ?");
  const row = one.get("row 7") as {
    id: number;
    name: string;
    n: number;
    b: Uint8Array;
  };
  assert.deepEqual({ ...row, b: [...row.b] }, {
    id: 8,
    name: "row 7",
    n: 7.5,
    b: [7, 1],
  });
  assert.equal(one.get("no such row"), undefined);
  assert.equal(db.prepare("SELECT ? AS v").get(null) !== undefined, true);
  assert.equal(
    (db.prepare("SELECT count(*) AS c FROM t").get() as { c: number }).c,
    2000,
  );
  assert.equal(db.prepare("SELECT id FROM t WHERE id > ?").all(1995).length, 5);
  const arrays = db.prepare("SELECT id, name FROM t WHERE id <= ? ORDER BY id");
  assert.equal(returnArrays(arrays), true);
  assert.deepEqual(arrays.all(2), [[1, "row 0"], [2, "row 1"]]);
  const walked = [...db.prepare("SELECT id FROM t WHERE id <= ?").iterate(3)];
  assert.deepEqual(plain(walked), [{ id: 1 }, { id: 2 }, { id: 3 }]);
  assert.equal([...checkedRows(db, "SELECT id FROM t", [])].length, 2000);
  // A number bound to a column with affinity is one value on each runtime.
  assert.equal(
    (db.prepare("SELECT count(*) AS c FROM t WHERE n = ?").get(3.5) as {
      c: number;
    }).c,
    1,
  );
  assert.equal(
    (db.prepare("SELECT id FROM t WHERE id = ?").get(5) as { id: number }).id,
    5,
  );
  assert.equal(
    (db.prepare("SELECT id FROM t WHERE id = ?").get(5n) as { id: number }).id,
    5,
  );

  // FTS5 as the index makes it: contentless, trigrams, a vocabulary.
  db.exec(
    `CREATE VIRTUAL TABLE fts USING fts5(text, content='', contentless_delete=1,
    detail=none, tokenize='trigram case_sensitive 1')`,
  );
  db.exec("CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'row')");
  const text = db.prepare("INSERT INTO fts (rowid, text) VALUES (?, ?)");
  text.run(1, "the quick brown fox jumps");
  text.run(2, "a lazy dog sleeps in the sun");
  const match = db.prepare(
    "SELECT rowid AS id FROM fts WHERE fts MATCH ? ORDER BY rowid",
  );
  // Words and phrases as the index asks for them (detail=none has no
  // phrase queries, and a word of more than three characters is one):
  // each of its trigrams, the rows then read to confirm.
  const trigrams = (text: string) =>
    [...text.slice(2)].map((_, k) => `"${text.slice(k, k + 3)}"`).join(" AND ");
  assert.deepEqual(plain(match.all(trigrams("brown"))), [{ id: 1 }]);
  assert.deepEqual(plain(match.all(trigrams("lazy dog"))), [{ id: 2 }]);
  assert.deepEqual(plain(match.all(trigrams("the"))), [{ id: 1 }, { id: 2 }]);
  assert.deepEqual(plain(match.all(trigrams("The"))), []); // case_sensitive
  assert.deepEqual(plain(match.all(trigrams("cat"))), []);
  assert.ok(
    db.prepare("SELECT term FROM fts_vocab WHERE term >= ? LIMIT 1").get(
      "qu",
    ) !== undefined,
  );

  // Errors: a constraint is SQLite's, of no kind the index handles.
  db.exec("CREATE TABLE u (k TEXT UNIQUE)");
  db.prepare("INSERT INTO u VALUES (?)").run("a");
  const unique = caught(() => db.prepare("INSERT INTO u VALUES (?)").run("a"));
  assert.equal(sqliteCode(unique), 19); // SQLITE_CONSTRAINT
  assert.equal(
    isDamaged(unique) || isLocked(unique) || isReadOnly(unique),
    false,
  );
  assert.equal(
    sqliteCode(Object.assign(new Error("x"), { code: "ENOENT", errno: -2 })),
    undefined,
  );

  // Locked: another connection holds the write lock past a short wait.
  const other = open(path);
  other.exec("PRAGMA busy_timeout = 10");
  db.exec("BEGIN IMMEDIATE");
  assert.ok(isLocked(caught(() => other.exec("BEGIN IMMEDIATE"))));
  db.exec("ROLLBACK");
  other.close();

  // Damage: the table's root page zeroed after a checkpoint.
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const root =
    (db.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?").get(
      "t",
    ) as { rootpage: number }).rootpage;
  const size =
    (db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;
  db.close();
  const fd = openSync(path, "r+");
  writeSync(fd, new Uint8Array(size), 0, size, (root - 1) * size);
  closeSync(fd);
  const damaged = open(path);
  const walk = caught(
    () => [...checkedRows(damaged, "SELECT id, n FROM t", [])],
  );
  assert.ok(isDamaged(walk), `the walk's failure is damage: ${walk}`);
  assert.ok(isDamaged(caught(() => damaged.prepare("SELECT * FROM t").all())));
  const check = damaged.prepare("PRAGMA quick_check(1)").get() as {
    quick_check: string;
  };
  assert.notEqual(check.quick_check, "ok");
  damaged.close();

  // Not a database at all.
  const junk = join(dir, "junk.sqlite");
  writeFileSync(junk, "not a database, ".repeat(512));
  const notDb = caught(() => {
    const j = open(junk);
    try {
      j.exec("PRAGMA journal_mode = WAL");
    } finally {
      j.close();
    }
  });
  assert.equal(sqliteCode(notDb), 26, `SQLITE_NOTADB: ${notDb}`);
  assert.ok(isDamaged(notDb));
  console.log(`ok ${runtime}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
