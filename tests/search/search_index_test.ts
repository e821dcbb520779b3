import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import {
  type SearchOptions,
  type SearchResult,
  SessionIndex,
} from "../../mod.ts";
import { IndexStore } from "../../src/index/_index_store.ts";
import { refreshAll } from "../../src/index/_refresh.ts";
import { uncoveredFiles } from "../../src/index/_search_query.ts";
import { HEADER, sessionBytes, tempDir, user } from "../_session_files.ts";
import { searched } from "../_indexed.ts";

const SECRET = "needlesecret the text itself";
const HOSTILE =
  `say "hi" NEAR(x y) a:b -c ^d (e) 'f' x*y AND OR NOT {g} [h] ""`;

/** One session of a few user lines; returns its path. */
async function writeSession(root: string, texts: string[]): Promise<string> {
  const path = join(root, "sessions", "--home-dev-app--", "a.jsonl");
  await Deno.mkdir(join(path, ".."), { recursive: true });
  const entries = texts.map((text, i) =>
    user(
      (i + 1).toString(16).padStart(8, "0"),
      i === 0 ? null : i.toString(16).padStart(8, "0"),
      text,
    )
  );
  await Deno.writeFile(path, sessionBytes(entries, { header: HEADER }));
  return path;
}

/** Search both ways; the indexed way must answer, with no warning. */
async function both(
  root: string,
  query: string,
  options: SearchOptions = {},
): Promise<[SearchResult, SearchResult]> {
  const warnings: string[] = [];
  const scan = await searched(root, query, { ...options, index: false });
  const indexed = await searched(root, query, {
    ...options,
    onWarning: (m) => warnings.push(m),
  });
  deepEqual(warnings, []);
  equal(indexed.indexed, true);
  return [scan, indexed];
}

const ids = (r: SearchResult) => r.hits.map((h) => h.entryId);

Deno.test("searched() keeps no entry text in the index: only where each entry is", async () => {
  await using dir = await tempDir();
  // The first user message is the one text the index keeps (its first 200
  // characters, as list shows an untitled session): the others are not.
  await writeSession(dir.path, [
    "opening words",
    SECRET,
    "another line",
    HOSTILE,
  ]);
  (await SessionIndex.open(dir.path)).close();
  deepEqual(ids(await searched(dir.path, "needlesecret")), [
    "00000002",
  ]);
  const file = join(dir.path, "index.sqlite");
  const db = new DatabaseSync(file);
  try {
    const columns = db.prepare("PRAGMA table_info(search_entries)").all()
      .map((c) => c.name);
    deepEqual(columns, [
      "rowid",
      "path",
      "offset",
      "size",
      "entryId",
      "role",
      "timestamp",
      "skip",
    ]);
    const { sql } = db.prepare(
      "SELECT sql FROM sqlite_master WHERE name = 'search_fts'",
    ).get() as { sql: string };
    ok(/content=''/.test(sql) && /detail=none/.test(sql), sql);
    const tables = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'search_fts_%'",
    ).all().map((t) => t.name);
    ok(!tables.includes("search_fts_content"), String(tables));
  } finally {
    db.close();
  }
  // Nowhere in the file: not in a column, not in the full-text index.
  const bytes = new TextDecoder().decode(await Deno.readFile(file));
  ok(!bytes.includes("needlesecret"));
  ok(!bytes.includes("another line"));
  ok(bytes.includes("opening words"), "the list's first message");
});

Deno.test("searched() through an index taken as it is gives no hit for a line that changed behind it", async (t) => {
  await using dir = await tempDir();
  const texts = ["first needlealpha", "second needlebeta", "third needlegamma"];
  const path = await writeSession(dir.path, texts);
  (await SessionIndex.open(dir.path)).close();
  const warm = await searched(dir.path, "needlebeta");
  deepEqual(ids(warm), ["00000002"]);
  const stale = { refresh: false };
  const original = await Deno.readFile(path);
  const rewrite = (from: string, to: string) =>
    Deno.writeTextFile(
      path,
      new TextDecoder().decode(original).replace(from, to),
    );
  await t.step("the same bytes' length, another text", async () => {
    await rewrite("needlebeta", "needlezeta");
    deepEqual(ids(await searched(dir.path, "needlebeta", stale)), []);
  });
  await t.step("the lines moved (an earlier line grew)", async () => {
    await rewrite("first needlealpha", "first, and longer, needlealpha");
    for (const word of ["needlealpha", "needlebeta", "needlegamma", "ne"]) {
      deepEqual(ids(await searched(dir.path, word, stale)), [], word);
    }
  });
  await t.step("another entry where the line was", async () => {
    await rewrite('"id":"00000002"', '"id":"0000000f"');
    deepEqual(ids(await searched(dir.path, "needlebeta", stale)), []);
  });
  await t.step("the file cut short, then gone", async () => {
    await Deno.writeFile(path, original.subarray(0, original.length - 30));
    deepEqual(ids(await searched(dir.path, "needlegamma", stale)), []);
    await Deno.remove(path);
    const gone = await searched(dir.path, "needlebeta", stale);
    deepEqual([gone.indexed, ids(gone)], [true, []]);
  });
  await t.step("a refresh finds the lines where they are now", async () => {
    await rewrite("first needlealpha", "first, and longer, needlealpha");
    const [scan, indexed] = await both(dir.path, "needlebeta");
    deepEqual(ids(indexed), ["00000002"]);
    deepEqual(indexed, { ...scan, indexed: true, scanned: 0 });
  });
});

Deno.test("searched() takes FTS5 syntax in a query as text, and words under three characters as the scan does", async (t) => {
  await using dir = await tempDir();
  // "q" then 300 different characters: "q" starts more trigrams than the
  // index narrows a word by.
  const many = Array.from(
    { length: 300 },
    (_, i) => `q${String.fromCodePoint(0x4e00 + i)}`,
  ).join("");
  await writeSession(dir.path, [
    HOSTILE,
    "plain words only",
    `検索 é Ab ${many}`,
    "ends with ab",
    "x",
  ]);
  (await SessionIndex.open(dir.path)).close();
  const cases: [string, string[]][] = [
    ['say"hi', []],
    ['"hi"', ["00000001"]],
    ["NEAR(x", ["00000001"]],
    ["a:b", ["00000001"]],
    ["-c", ["00000001"]],
    ["^d", ["00000001"]],
    ["(e)", ["00000001"]],
    ["'f'", ["00000001"]],
    ["x*y", ["00000001"]],
    ["{g} [h]", ["00000001"]],
    ["AND OR NOT", ["00000001"]],
    ["ab", ["00000004", "00000003"]],
    ["aB", ["00000004", "00000003"]],
    ["検索", ["00000003"]],
    ["索", ["00000003"]],
    ["É", ["00000003"]],
    ["q", ["00000003"]],
    ["x", ["00000005", "00000001"]],
    ["zz", []],
    ["w", ["00000004", "00000002"]],
    ["y", ["00000002", "00000001"]],
    ["ab plain", []],
    ["ab ends", ["00000004"]],
  ];
  for (const [query, want] of cases) {
    await t.step(query, async () => {
      const [scan, indexed] = await both(dir.path, query);
      deepEqual(ids(scan), want);
      deepEqual(indexed, { ...scan, indexed: true, scanned: 0 });
    });
  }
});

Deno.test("searched() walks a word in thousands of rows newest first, ties by path and line, as the scan orders them", async () => {
  await using dir = await tempDir();
  // 3 sessions of 900 entries: 2,700 rows hold "common" (past the rows the
  // index sorts), with timestamps shared within and across files.
  for (const name of ["b", "a", "c"]) {
    const path = join(dir.path, "sessions", `--${name}--`, `${name}.jsonl`);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    const entries = Array.from({ length: 900 }, (_, i) => ({
      ...user(
        (i + 1).toString(16).padStart(8, "0"),
        i === 0 ? null : i.toString(16).padStart(8, "0"),
        `common ${name}${i}`,
      ),
      timestamp: `2026-10-01T09:00:0${Math.floor(i / 200)}.000Z`,
    }));
    await Deno.writeFile(path, sessionBytes(entries, { header: HEADER }));
  }
  (await SessionIndex.open(dir.path)).close();
  for (const limit of [1, 50, 250]) {
    const [scan, indexed] = await both(dir.path, "common", { limit });
    equal(scan.hits.length, limit);
    deepEqual(indexed, { ...scan, indexed: true, scanned: 0 });
  }
  const [scan, indexed] = await both(dir.path, "c8", { limit: 5 });
  deepEqual(indexed.hits, scan.hits);
});

Deno.test("searched() scans a file whose search rows another facet version wrote, as if it had none", async () => {
  await using dir = await tempDir();
  await writeSession(dir.path, ["first line", "needleversion here"]);
  {
    using index = await SessionIndex.open(dir.path);
    await index.refresh();
  }
  // Written as another version of this library with the same schema
  // would: each write takes the last refresh's mark away.
  const edit = async (sql: string) => {
    const other = (await IndexStore.tryOpen(dir.path))!;
    try {
      other.write(() => other.read((db) => db.exec(sql)));
    } finally {
      other.close();
    }
  };
  const asItIs = { refresh: false };
  // Rows gone behind a current version: the index is trusted, no hit.
  await edit("DELETE FROM search_entries");
  deepEqual(ids(await searched(dir.path, "needleversion", asItIs)), []);
  // The same rows of another version: the file is scanned, the hit found.
  await edit(
    "UPDATE facets SET version = version + 100 WHERE facet = 'search'",
  );
  deepEqual(ids(await searched(dir.path, "needleversion", asItIs)), [
    "00000002",
  ]);
});

Deno.test("searched() scans the files a standing refresh mark lists, those the rows would give", async () => {
  await using dir = await tempDir();
  await writeSession(dir.path, ["first line", "needlemarked here"]);
  const pi = join(dir.path, "sessions", "--pi--", "pi.jsonl");
  await Deno.mkdir(join(pi, ".."), { recursive: true });
  await Deno.copyFile(
    new URL("../../fixtures/pi/large-session-v1.jsonl", import.meta.url),
    pi, // version 1: the search facet does not hold it; it is scanned
  );
  const store = (await IndexStore.tryOpen(dir.path))!;
  try {
    await refreshAll(store);
    const mark = store.freshMark();
    deepEqual(mark?.uncovered, [pi]);
    store.read((db) => {
      for (const prefix of [undefined, join(pi, "..") + "/", "/elsewhere/"]) {
        deepEqual(
          uncoveredFiles(db, { prefix }, mark!.uncovered!),
          uncoveredFiles(db, { prefix }),
        );
      }
    });
  } finally {
    store.close();
  }
  const asItIs = { refresh: false };
  const found = await searched(dir.path, "user-message-selector", asItIs);
  ok(found.hits.length > 0);
  equal(found.scanned, 1);
  const elsewhere = await searched(dir.path, "user-message-selector", {
    ...asItIs,
    cwd: "/home/dev/app",
  });
  deepEqual([elsewhere.hits, elsewhere.scanned], [[], 0]);
  // The list is the mark's: a mark that left the file out is believed...
  const file = join(dir.path, "index.sqlite");
  const db = new DatabaseSync(file);
  db.exec(
    `UPDATE meta SET value = json_set(value, '$.uncovered', json('[]')) WHERE key = 'fresh'`,
  );
  deepEqual(
    (await searched(dir.path, "user-message-selector", asItIs)).hits,
    [],
  );
  db.close();
  // ...until a write to the index takes it away.
  const other = (await IndexStore.tryOpen(dir.path))!;
  other.write(() => other.rows.remove("/not/a/row"));
  other.close();
  deepEqual(
    (await searched(dir.path, "user-message-selector", asItIs)).hits,
    found.hits,
  );
});

Deno.test("a refresh after other writers' changes keeps the mark's files to scan true, for a few files written and for many", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "-w");
  await Deno.mkdir(folder, { recursive: true });
  const paths = Array.from(
    { length: 520 },
    (_, i) => join(folder, `${i}.jsonl`),
  );
  for (const path of paths) {
    await Deno.writeFile(path, sessionBytes([user("00000001", null, "hi")]));
  }
  const at = "2025-11-20T23:33:01.550Z";
  const legacy = [
    { type: "session", id: "legacy", timestamp: at, cwd: "/w" },
    { type: "message", timestamp: at, message: { role: "user", content: "x" } },
  ].map((l) => JSON.stringify(l)).join("\n") + "\n";
  const store = (await IndexStore.tryOpen(dir.path))!;
  try {
    await refreshAll(store);
    deepEqual(store.freshMark()?.uncovered, []);
    // Version 1 files in their places (the search facet does not hold
    // them): 2 files, each asked again; then 510, all rows asked at once.
    for (const count of [2, 510]) {
      for (const path of paths.slice(0, count)) {
        await Deno.writeTextFile(path, legacy + "\n".repeat(count));
      }
      const done = await refreshAll(store);
      equal(done.refreshed, count);
      const marked = store.freshMark()?.uncovered;
      equal(marked?.length, count);
      deepEqual(
        [...marked!].sort(),
        store.read((db) => uncoveredFiles(db, {})).sort(),
      );
    }
  } finally {
    store.close();
  }
});
