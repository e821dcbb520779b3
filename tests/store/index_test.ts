import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import {
  forkSession,
  listSessions,
  type RefreshResult,
  Session,
  SessionIndex,
} from "../../mod.ts";
import type { ListSessionsOptions } from "../../src/store/list.ts";
import { generateFile } from "../../src/gen/generate.ts";
import { marshalTitleSlot } from "../../src/format/title_slot.ts";
import {
  assistant,
  backdate,
  sessionBytes,
  T0,
  tempDir,
  user,
} from "../_session_files.ts";
import { INDEX_SCHEMA_VERSION } from "../../src/index/_schema.ts";
import { FilesPrint } from "../../src/index/_fresh.ts";
import { IndexStore } from "../../src/index/_index_store.ts";
import { remember } from "../../src/index/_reopen.ts";
import { SETTLE_MS } from "../../src/index/_rows.ts";
import { refreshAll } from "../../src/index/_refresh.ts";
import { readSessionFile } from "../../src/read/_session_file.ts";
import { realFs } from "../../src/_fs.ts";
import { recording, withFs } from "../_fs_seam.ts";
import { reported, searched } from "../_indexed.ts";

const FIXTURES = new URL("../../fixtures/", import.meta.url).pathname;

/** Copies fixture files into `<dataDir>/sessions/<folder>/`. */
async function place(
  dataDir: string,
  folder: string,
  files: string[],
): Promise<string[]> {
  const dir = join(dataDir, "sessions", folder);
  await Deno.mkdir(dir, { recursive: true });
  const out: string[] = [];
  for (const file of files) {
    const to = join(dir, file.split("/").at(-1)!);
    await Deno.copyFile(join(FIXTURES, file), to);
    out.push(to);
  }
  return out;
}

/** The fixture data dirs: omp's two sets (a subagent in an artifacts folder), pi's, xdev's. */
async function fixtureDataDir(dataDir: string): Promise<void> {
  for (const set of ["s1", "s2"]) {
    const names = ["main", "branched", "edge", "empty", "fork", "reset"];
    await place(
      dataDir,
      `-omp-${set}`,
      names.map((n) => `omp/${set}-${n}.jsonl`),
    );
    await place(dataDir, `-omp-${set}/${set}-main`, [
      `omp/${set}-subagent.jsonl`,
    ]);
  }
  await place(dataDir, "-pi", ["pi/large-session-v1.jsonl"]);
  await place(dataDir, "-xdev", ["xdev/compaction-past-reset.jsonl"]);
}

/** How a test lists: through the index, as `listSessions` once did, or not. */
interface ListedOptions extends ListSessionsOptions {
  /** False: the files alone (`listSessions`). Default: the index, when the data dir has one. */
  index?: boolean;
  /** Where index warnings go. */
  onWarning?: (message: string) => void;
}

/**
 * A list as JSON, with or without the index: `SessionIndex.list` when the
 * data dir has an index (opened, never made), else `listSessions`.
 */
async function listed(
  dataDir: string,
  options: ListedOptions = {},
): Promise<string> {
  const { index: useIndex, onWarning, ...list } = options;
  using index = useIndex === false ? undefined : await SessionIndex.tryOpen(
    dataDir,
    { create: false, ...(onWarning === undefined ? {} : { onWarning }) },
  );
  const sessions = index === undefined
    ? await listSessions(dataDir, list)
    : await index.list(list);
  return JSON.stringify(sessions);
}

/** The list through the index is the list from the files alone. */
async function assertListedAsFiles(
  dataDir: string,
  options: ListedOptions = {},
): Promise<void> {
  assert.equal(
    await listed(dataDir, options),
    await listed(dataDir, { index: false }),
  );
}

/** `read` over the index of `dataDir`, opened read-only. */
function fromIndex<T>(dataDir: string, read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(join(dataDir, "index.sqlite"), {
    readOnly: true,
  });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Every row of the index, as stored. */
function rows(dataDir: string): Record<string, unknown>[] {
  return fromIndex(
    dataDir,
    (db) =>
      db.prepare("SELECT * FROM sessions ORDER BY path").all() as Record<
        string,
        unknown
      >[],
  );
}

/** A row's state columns, as a windowed open would resume from them. */
function stateOf(row: Record<string, unknown>): Record<string, unknown> {
  const { offset, tailHash, entries, messages, leafId, model, pathEnd } = row;
  return { offset, tailHash, entries, messages, leafId, model, pathEnd };
}

/** A session of `n` user turns in `<dataDir>/sessions/-w/<name>`. */
async function plain(
  dataDir: string,
  name: string,
  n: number,
  title = "Plain",
): Promise<string> {
  const dir = join(dataDir, "sessions", "-w");
  await Deno.mkdir(dir, { recursive: true });
  const entries = [];
  for (let i = 0; i < n; i++) {
    const id = (i + 1).toString(16).padStart(8, "0");
    const parent = i === 0 ? null : i.toString(16).padStart(8, "0");
    entries.push(user(id, parent, `turn ${i}`));
  }
  const path = join(dir, name);
  await Deno.writeFile(path, sessionBytes(entries, { title }));
  return path;
}

/** `n` sessions of `entries` user turns, `0.jsonl` on, in `<dataDir>/sessions/-w/`. */
async function plainFiles(
  dataDir: string,
  n: number,
  entries: number,
): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < n; i++) {
    paths.push(await plain(dataDir, `${i}.jsonl`, entries));
  }
  return paths;
}

/** A version 1 session (pi's) at `path`: a header and one user turn without id. */
async function writeLegacy(path: string): Promise<void> {
  const at = "2025-11-20T23:33:01.550Z";
  await Deno.writeTextFile(
    path,
    [
      { type: "session", id: "legacy", timestamp: at, cwd: "/w" },
      {
        type: "message",
        timestamp: at,
        message: { role: "user", content: "x" },
      },
    ].map((l) => JSON.stringify(l)).join("\n") + "\n",
  );
}

const quiet = { onWarning: () => {} };

Deno.test("listSessions gives the same list with and without the index on every fixture data dir", async () => {
  await using dir = await tempDir();
  await fixtureDataDir(dir.path);
  const before = await listed(dir.path, { includeSubagents: true });
  using index = await SessionIndex.open(dir.path);
  const done = await index.refresh();
  assert.equal(done.sessions, 16);
  assert.equal(done.skipped, 0);
  for (const includeSubagents of [true, false]) {
    assert.equal(
      await listed(dir.path, { includeSubagents }),
      await listed(dir.path, { includeSubagents, index: false }),
    );
  }
  assert.equal(await listed(dir.path, { includeSubagents: true }), before);
  assert.equal(
    await listed(dir.path, { cwd: "/work/pi" }),
    await listed(dir.path, { cwd: "/work/pi", index: false }),
  );
});

Deno.test("SessionIndex.refresh reads only what changed: a second refresh reads nothing, one append reads one file", async () => {
  await using dir = await tempDir();
  const paths = await plainFiles(dir.path, 5, 3);
  using index = await SessionIndex.open(dir.path);
  assert.deepEqual(
    { ...(await index.refresh()), ms: 0 },
    { sessions: 5, refreshed: 5, removed: 0, skipped: 0, ms: 0, fresh: false },
  );
  assert.deepEqual(
    { ...(await index.refresh()), ms: 0 },
    { sessions: 5, refreshed: 0, removed: 0, skipped: 0, ms: 0, fresh: true },
  );
  const before = rows(dir.path).find((r) => r.path === paths[2]);
  await Deno.writeTextFile(
    paths[2]!,
    JSON.stringify(user("00000009", "00000003", "appended")) + "\n",
    { append: true },
  );
  const again = await index.refresh();
  assert.equal(again.refreshed, 1);
  assert.equal(again.fresh, false);
  assert.equal((await index.refresh()).fresh, true);
  const after = rows(dir.path).find((r) => r.path === paths[2])!;
  assert.equal(after.entries, (before!.entries as number) + 1);
  assert.equal(after.leafId, "00000009");
  assert.equal(after.offset, (await Deno.stat(paths[2]!)).size);
});

Deno.test("SessionIndex rows go stale and are rebuilt: append, truncation, replacement, rename in place, deletion", async (t) => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 6, "Before");
  using index = await SessionIndex.open(dir.path);
  await index.refresh();
  const fresh = async () => {
    // What a rebuild from scratch makes of the same files.
    await using other = await tempDir();
    await Deno.mkdir(join(other.path, "sessions", "-w"), { recursive: true });
    await Deno.copyFile(path, join(other.path, "sessions", "-w", "s.jsonl"));
    using again = await SessionIndex.open(other.path);
    await again.refresh();
    return stateOf(rows(other.path)[0]!);
  };
  const check = async () => {
    await index.refresh();
    assert.deepEqual(stateOf(rows(dir.path)[0]!), await fresh());
    await assertListedAsFiles(dir.path);
    const opened = await Session.open(path, { resolveBlobs: false });
    const whole = await Session.open(path, { window: false });
    assert.deepEqual(opened.buildContext(), whole.buildContext());
  };
  await t.step("an append by another writer", async () => {
    await Deno.writeTextFile(
      path,
      JSON.stringify(user("0000000a", "00000006", "omp wrote this")) + "\n",
      { append: true },
    );
    await check();
  });
  await t.step("a truncation to fewer entries", async () => {
    const bytes = await Deno.readFile(path);
    let cut = bytes.length - 1;
    for (let n = 0; n < 3; cut--) if (bytes[cut - 1] === 0x0a) n++;
    await Deno.writeFile(path, bytes.subarray(0, cut + 1));
    await check();
    assert.equal(rows(dir.path)[0]!.leafId, "00000004");
  });
  await t.step(
    "a replacement by another file of the same size (new inode)",
    async () => {
      const bytes = await Deno.readFile(path);
      const text = new TextDecoder().decode(bytes).replace("turn 1", "turn X");
      const info = await Deno.stat(path);
      await Deno.writeTextFile(`${path}.new`, text);
      await Deno.utime(`${path}.new`, info.atime!, info.mtime!);
      await Deno.rename(`${path}.new`, path);
      await check();
    },
  );
  await t.step("a rename in place (the title slot rewritten)", async () => {
    const session = await Session.open(path);
    await session.setTitle("After");
    await session.close();
    await check();
    const [listedOne] = JSON.parse(await listed(dir.path));
    assert.equal(listedOne!.title, "After");
  });
  await t.step("a deletion", async () => {
    await Deno.remove(path);
    const done = await index.refresh();
    assert.equal(done.removed, 1);
    assert.deepEqual(rows(dir.path), []);
    assert.equal(await listed(dir.path), "[]");
  });
});

Deno.test("SessionIndex.list sees a changed file without a refresh: a rename in place lists the new title", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 2, "Old title");
  using index = await SessionIndex.open(dir.path);
  await index.refresh();
  const bytes = await Deno.readFile(path);
  bytes.set(
    marshalTitleSlot({ title: "New title", source: "manual", updatedAt: T0 }),
  );
  await Deno.writeFile(path, bytes);
  assert.equal((await index.list())[0]!.title, "New title");
  await assertListedAsFiles(dir.path);
});

/** The paths of the index's unsettled rows. */
function unsettled(dataDir: string): string[] {
  return fromIndex(
    dataDir,
    (db) =>
      (db.prepare("SELECT path FROM unsettled ORDER BY path").all() as {
        path: string;
      }[]).map((r) => r.path),
  );
}

Deno.test("SessionIndex sees a rewrite in place made in the clock step of its last read: the same size and times (git's racily clean files)", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 3, "Old title");
  using index = await SessionIndex.open(dir.path, quiet);
  await index.refresh();
  // omp's rename: a title_change line appended, a refresh (or list) reads
  // the file, then the title slot is rewritten in place.
  const change = {
    type: "title_change",
    id: "00000004",
    parentId: "00000003",
    timestamp: T0,
    title: "New title",
  };
  await Deno.writeTextFile(path, JSON.stringify(change) + "\n", {
    append: true,
  });
  await index.refresh();
  const before = await Deno.stat(path);
  // A file system's clock stamps the write as it stamped the read.
  const sameStep = async (edit: (bytes: Uint8Array) => void) => {
    const bytes = await Deno.readFile(path);
    edit(bytes);
    await Deno.writeFile(path, bytes);
    await Deno.utime(path, before.atime!, before.mtime!);
    const after = await Deno.stat(path);
    assert.deepEqual(
      [after.size, after.mtime, after.ino],
      [before.size, before.mtime, before.ino],
    );
  };
  await sameStep((bytes) =>
    bytes.set(
      marshalTitleSlot({ title: "New title", source: "manual", updatedAt: T0 }),
    )
  );
  assert.equal((await index.list())[0]!.title, "New title");
  let done = await index.refresh();
  assert.deepEqual([done.refreshed, done.fresh], [1, false]);
  assert.equal(rows(dir.path)[0]!.title, "New title");
  // An entry's text, among the bytes just before the row's offset.
  await sameStep((bytes) => {
    const text = new TextDecoder().decode(bytes);
    bytes.set(new TextEncoder().encode("fold 2"), text.indexOf("turn 2"));
  });
  done = await index.refresh();
  assert.equal(done.refreshed, 1);
  const hits = async (query: string) =>
    (await searched(dir.path, query, { ...quiet, refresh: false }))
      .hits.length;
  assert.deepEqual([await hits('"fold 2"'), await hits('"turn 2"')], [1, 0]);
  // Nothing changed since: checked, not read.
  done = await index.refresh();
  assert.deepEqual([done.refreshed, done.fresh], [0, true]);
  await assertListedAsFiles(dir.path);
});

Deno.test("SessionIndex.refresh checks again the files written just before it read them, until they are old enough to trust their stat", async () => {
  await using dir = await tempDir();
  const young = await plain(dir.path, "young.jsonl", 2);
  const old = await plain(dir.path, "old.jsonl", 2);
  const t0 = Date.now();
  await Deno.utime(old, new Date(t0 - 60_000), new Date(t0 - 60_000));
  // Inside the settle window for a read within 1 s, outside it after.
  const at = new Date(t0 - SETTLE_MS + 1000);
  await Deno.utime(young, at, at);
  using index = await SessionIndex.open(dir.path, quiet);
  await index.refresh();
  assert.deepEqual(unsettled(dir.path), [young]);
  const opened: string[] = [];
  const again = await withFs(recording(opened), () => index.refresh());
  assert.deepEqual([again.fresh, again.refreshed], [true, 0]);
  assert.deepEqual([...new Set(opened)], [young]); // its bytes checked
  await new Promise((r) => setTimeout(r, Math.max(0, t0 + 1100 - Date.now())));
  await index.refresh();
  assert.deepEqual(unsettled(dir.path), []);
  opened.length = 0;
  const last = await withFs(recording(opened), () => index.refresh());
  assert.deepEqual([last.fresh, last.refreshed, opened], [true, 0, []]);
  // Forgotten with its file.
  await Deno.remove(old);
  await Deno.writeTextFile(
    young,
    JSON.stringify(user("00000003", "00000002", "more")) + "\n",
    { append: true },
  );
  await index.refresh();
  assert.deepEqual(unsettled(dir.path), [young]);
  await Deno.remove(young);
  await index.refresh();
  assert.deepEqual(unsettled(dir.path), []);
});

Deno.test("SessionIndex: a list after another writer's append leaves the append for the next refresh to read", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 2);
  using index = await SessionIndex.open(dir.path, quiet);
  await index.refresh();
  await Deno.writeTextFile(
    path,
    JSON.stringify(user("00000003", "00000002", "needleappended")) + "\n",
    { append: true },
  );
  // The list reads the changed head, but keeps the row's stat as it was:
  // with the new one, the refresh took the row's state for the file's.
  assert.equal((await index.list()).length, 1);
  const done = await index.refresh();
  assert.equal(done.refreshed, 1);
  assert.equal(rows(dir.path)[0]!.entries, 3);
  const found = await searched(dir.path, "needleappended", {
    refresh: false,
  });
  assert.deepEqual(found.hits.map((h) => h.entryId), ["00000003"]);
});

Deno.test("SessionIndex: a list after an append to a version 1 file (a row without state, read by the facets) leaves it for the next refresh", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "sessions", "-w", "v1.jsonl");
  await Deno.mkdir(dirname(path), { recursive: true });
  await writeLegacy(path);
  using index = await SessionIndex.open(dir.path, quiet);
  await index.refresh();
  assert.equal(rows(dir.path)[0]!.offset, null);
  const call = assistant("f0000001", null, "more", {
    usage: {
      input: 10,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 11,
      cost: { total: 0.001 },
    },
  });
  await Deno.writeTextFile(path, JSON.stringify(call) + "\n", {
    append: true,
  });
  // The row holds no state, as a head-only row a list made: but the
  // facets read it, so the list leaves its stat as it was.
  assert.equal((await index.list()).length, 1);
  assert.equal((await index.refresh()).refreshed, 1);
  const fromIndex = await reported(dir.path, quiet);
  assert.equal(fromIndex.source, "index");
  assert.equal(fromIndex.totals.requests, 1);
  assert.equal(
    (await reported(dir.path, { index: false })).totals.requests,
    1,
  );
});

Deno.test("SessionIndex: a file rewritten as one the index keeps no state of loses its row's old state", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 3);
  using index = await SessionIndex.open(dir.path, quiet);
  await index.refresh();
  assert.equal(typeof rows(dir.path)[0]!.offset, "number");
  await writeLegacy(path);
  assert.equal((await index.refresh()).refreshed, 1);
  // A version 1 file: read whole by its readers, no state kept.
  assert.equal(rows(dir.path)[0]!.offset, null);
  assert.equal(rows(dir.path)[0]!.entries, null);
  assert.deepEqual(await unlikeScratch(dir.path), []);
});

Deno.test("remember() leaves a file appended to since it was read for the refresh", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 2);
  const store = (await IndexStore.tryOpen(dir.path, quiet))!;
  try {
    const loaded = await readSessionFile(path, { window: true, record: true });
    await Deno.writeTextFile(
      path,
      JSON.stringify(user("00000003", "00000002", "appended")) + "\n",
      { append: true },
    );
    // Its stat now holds the append, its state does not: not kept.
    await remember(store, path, loaded);
    assert.equal(store.rows.get(path), undefined);
    const fresh = await readSessionFile(path, { window: true, record: true });
    await remember(store, path, fresh);
    assert.equal(store.rows.get(path)?.entries, 3);
  } finally {
    store.close();
  }
});

Deno.test("SessionIndex.refresh forgets a file that is no longer a session, its row full or a head alone", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 2);
  const other = await plain(dir.path, "t.jsonl", 2);
  using index = await SessionIndex.open(dir.path, quiet);
  await index.refresh();
  await Deno.writeTextFile(path, "not a session\n");
  const done = await index.refresh();
  assert.equal(done.skipped, 1);
  assert.deepEqual(rows(dir.path).map((r) => r.path), [other]);
  // A row a list made (a head alone, as for a file the index did not hold).
  await forgetElsewhere(dir.path, other);
  await index.list();
  assert.equal(rows(dir.path)[0]?.offset, null);
  await Deno.writeTextFile(other, "not a session either\n");
  assert.equal((await index.refresh()).skipped, 2);
  assert.deepEqual(rows(dir.path), []);
});

/** Another connection forgets a file's row and what the facets read of it. */
async function forgetElsewhere(dataDir: string, path: string): Promise<void> {
  const other = (await IndexStore.tryOpen(dataDir, quiet))!;
  try {
    other.write(() => other.forget(path));
  } finally {
    other.close();
  }
}

/**
 * The tables of the index that differ from what a refresh from scratch of
 * the same files makes (every row, every facet's progress and tables, the
 * trigrams): none, when the refreshes before kept it true.
 */
async function unlikeScratch(dataDir: string): Promise<string[]> {
  const now = dump(dataDir);
  using again = await SessionIndex.open(dataDir, quiet);
  await again.refresh({ rebuild: true });
  return differing(now, dump(dataDir));
}

Deno.test("SessionIndex.refresh reads no row when nothing changed since a complete refresh, and sees every change", async (t) => {
  await using dir = await tempDir();
  const paths = await plainFiles(dir.path, 4, 3);
  await Deno.writeTextFile(join(dir.path, "sessions", "-w", "x.jsonl"), "no\n");
  using index = await SessionIndex.open(dir.path, quiet);
  const first = await index.refresh();
  assert.deepEqual([first.sessions, first.skipped, first.fresh], [4, 1, false]);
  const second = await index.refresh();
  // The mark keeps the counts: the same answer, no row read.
  assert.deepEqual([second.sessions, second.skipped, second.fresh], [
    4,
    1,
    true,
  ]);
  const changed = async (what: Partial<RefreshResult>) => {
    const done = await index.refresh();
    assert.deepEqual({ ...done, ms: 0 }, {
      ...{ refreshed: 0, removed: 0, skipped: 1, fresh: false },
      sessions: done.sessions,
      ...what,
      ms: 0,
    });
    assert.equal((await index.refresh()).fresh, true, "marked again");
  };
  await t.step(
    "a touch (the same bytes, a new modification time)",
    async () => {
      await Deno.utime(paths[0]!, new Date(), new Date(Date.now() + 5000));
      await changed({ refreshed: 1 });
    },
  );
  await t.step(
    "a copy of the same size and times put in its place",
    async () => {
      const info = await Deno.stat(paths[0]!);
      const text = (await Deno.readTextFile(paths[0]!)).replace(
        "turn 1",
        "turn X",
      );
      await Deno.writeTextFile(`${paths[0]}.new`, text);
      await Deno.utime(`${paths[0]}.new`, info.atime!, info.mtime!);
      await Deno.rename(`${paths[0]}.new`, paths[0]!);
      await changed({ refreshed: 1 }); // a new inode
      const found = await searched(dir.path, '"turn X"', {
        refresh: false,
      });
      assert.equal(found.hits.length, 1);
    },
  );
  await t.step("an append", async () => {
    await Deno.writeTextFile(
      paths[1]!,
      JSON.stringify(user("00000009", "00000003", "appended")) + "\n",
      { append: true },
    );
    await changed({ refreshed: 1 });
  });
  await t.step("a new file, and a rename", async () => {
    await plain(dir.path, "4.jsonl", 2);
    await changed({ refreshed: 1, sessions: 5 });
    await Deno.rename(paths[2]!, `${paths[2]}.jsonl`);
    await changed({ refreshed: 1, removed: 1, sessions: 5 });
  });
  await t.step("a deletion", async () => {
    await Deno.remove(paths[3]!);
    await changed({ removed: 1, sessions: 4 });
  });
  await t.step("a file forgotten by another connection", async () => {
    await forgetElsewhere(dir.path, paths[0]!);
    await changed({ refreshed: 1, sessions: 4 });
  });
  await t.step(
    "a facet's progress set back by another connection",
    async () => {
      const other = (await IndexStore.tryOpen(dir.path, quiet))!;
      other.write(() =>
        other.read((db) =>
          db.prepare(
            "UPDATE facets SET offset = 0 WHERE path = ? AND facet = 'search'",
          ).run(paths[1]!)
        )
      );
      other.close();
      await changed({ sessions: 4 }); // read by the facet only: the row is current
      assert.deepEqual(await unlikeScratch(dir.path), []);
      const hits = await searched(dir.path, "appended", {
        refresh: false,
      });
      assert.equal(hits.hits.length, 1);
    },
  );
});

Deno.test(
  "SessionIndex.refreshFile after a session's appends keeps the refresh mark standing, so the next refresh reads no row",
  async () => {
    await using dir = await tempDir();
    const paths = await plainFiles(dir.path, 4, 2);
    using index = await SessionIndex.open(dir.path, quiet);
    await index.refresh();
    for (const text of ["needleclosed one", "needleclosed two"]) {
      const session = await index.openSession(paths[1]!);
      await session.appendMessage({ role: "user", content: text });
      await session.close(); // writes no row: Session knows no index
      assert.equal(await index.refreshFile(paths[1]!), true); // the harness brings the row up to date
      const done = await index.refresh();
      assert.deepEqual([done.fresh, done.sessions, done.refreshed], [
        true,
        4,
        0,
      ]);
    }
    const found = await searched(dir.path, "needleclosed", quiet);
    assert.equal(found.hits.length, 2);
    // A new session's file: its row is made, but no listing matches the mark.
    const made = await plain(dir.path, "4.jsonl", 1);
    const session = await index.openSession(made);
    await session.appendMessage({ role: "user", content: "new" });
    await session.close();
    await index.refreshFile(made);
    const next = await index.refresh();
    assert.equal(next.sessions, 5);
    assert.equal((await index.refresh()).fresh, true);
    assert.deepEqual(await unlikeScratch(dir.path), []);
  },
);

Deno.test("SessionIndex.refresh leaves no mark when another process writes to the index meanwhile", async () => {
  await using dir = await tempDir();
  const paths = await plainFiles(dir.path, 20, 2);
  await backdate(dir.path); // no row is checked again for being new
  using index = await SessionIndex.open(dir.path, quiet);
  await index.refresh();
  await Deno.writeTextFile(
    paths[0]!,
    JSON.stringify(user("00000009", "00000002", "appended")) + "\n",
    { append: true },
  );
  const other = (await IndexStore.tryOpen(dir.path, quiet))!;
  let forgot = false;
  const done = await index.refresh({
    onProgress: (n) => {
      if (n !== 5) return;
      // A row the refresh has found current is forgotten by another connection.
      forgot = other.write(() => other.forget(paths[10]!));
    },
  });
  other.close();
  assert.equal(forgot, true);
  assert.equal(done.fresh, false);
  // No mark: the next refresh compares the rows, and reads the lost one.
  const next = await index.refresh();
  assert.deepEqual([next.fresh, next.refreshed], [false, 1]);
  assert.deepEqual(await unlikeScratch(dir.path), []);
});

Deno.test("IndexStore.leaveFreshMark leaves its mark only when no other commit and no lost write came after the clock", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 2);
  const store = (await IndexStore.tryOpen(dir.path, { ...quiet, busyMs: 20 }))!;
  try {
    // A fingerprint of this version (one of another is no mark).
    const print = new FilesPrint();
    print.add(path, await realFs.stat(path));
    const mark = { print: print.value, sessions: 1, skipped: 0, uncovered: [] };
    await refreshAll(store);
    let clock = store.writeClock();
    assert.equal(store.leaveFreshMark(mark, clock), true);
    assert.deepEqual(store.freshMark(), mark);
    // Our own writes: each takes the mark away first; the clock stays.
    store.write(() => store.forget(path));
    assert.equal(store.freshMark(), undefined);
    assert.equal(store.leaveFreshMark(mark, clock), true);
    // Another connection's commit.
    clock = store.writeClock();
    const other = new DatabaseSync(join(dir.path, "index.sqlite"));
    other.exec("INSERT INTO meta (key, value) VALUES ('other', 'x')");
    assert.equal(store.leaveFreshMark(mark, clock), false);
    // A write of ours lost to another process's lock.
    clock = store.writeClock();
    other.exec("BEGIN IMMEDIATE");
    assert.equal(store.write(() => store.rows.remove("/nowhere")), false);
    other.exec("ROLLBACK");
    other.close();
    assert.equal(store.leaveFreshMark(mark, clock), false);
    assert.equal(store.leaveFreshMark(mark, store.writeClock()), true);
  } finally {
    store.close();
  }
});

Deno.test("SessionIndex.refresh takes a damaged mark for none: it compares every row, and leaves a good one", async () => {
  await using dir = await tempDir();
  await plainFiles(dir.path, 3, 2);
  using index = await SessionIndex.open(dir.path, quiet);
  await index.refresh();
  const file = join(dir.path, "index.sqlite");
  const mark = () => {
    const db = new DatabaseSync(file);
    const row = db.prepare("SELECT value FROM meta WHERE key = 'fresh'").get();
    db.close();
    return JSON.parse(String(row?.value));
  };
  const good = mark();
  for (
    const text of [
      "not json",
      JSON.stringify({ ...good, print: 7 }),
      JSON.stringify({ ...good, sessions: 3.5 }),
      JSON.stringify({ ...good, uncovered: [1] }),
      JSON.stringify({ ...good, skipped: undefined }),
    ]
  ) {
    const db = new DatabaseSync(file);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'fresh'").run(text);
    db.close();
    // The files are as the mark's fingerprint says; a good mark would do.
    const done = await index.refresh();
    assert.deepEqual([done.fresh, done.refreshed, done.sessions], [
      false,
      0,
      3,
    ]);
    assert.deepEqual(mark(), good);
    assert.equal((await index.refresh()).fresh, true);
  }
});

Deno.test("IndexStore.snapshot reads one state of the index while another connection commits", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 2);
  const store = (await IndexStore.tryOpen(dir.path, quiet))!;
  const other = new DatabaseSync(join(dir.path, "index.sqlite"));
  try {
    await refreshAll(store);
    const [before, during] = store.snapshot(() => {
      const before = store.rows.paths();
      other.exec("DELETE FROM sessions"); // committed at once
      return [before, store.rows.paths()];
    });
    assert.deepEqual(before, [path]);
    assert.deepEqual(during, before);
    assert.deepEqual(store.rows.paths(), []);
  } finally {
    other.close();
    store.close();
  }
});

Deno.test("SessionIndex.refresh after any sequence of changes makes the index a refresh from scratch would (fast-check)", async () => {
  await using dir = await tempDir();
  const kinds = [
    "append", // by another writer (omp, say): the index does not hear of it
    "write", // by a Session, which updates the file's row when it closes
    "open", // a Session.open that records the file's state in its row
    "touch",
    "delete",
    "create",
    "garble",
    "truncate", // its last entry cut off
    "unrow", // another connection forgets the file
    "refreshFile", // SessionIndex.refreshFile
    "fork", // a copy of its entries in a new file (usage counts them once)
    "legacy", // a version 1 file in its place: scanned, not in the search rows
    "tail", // a whole call as the last line, without its "\n" (usage counts it)
    "tear", // half a call as the last line: a write under way, or cut short
    "sameStep", // rewritten in place, the same size and time (see below)
  ] as const;
  type Op =
    | { kind: (typeof kinds)[number]; i: number }
    | { kind: "refresh" }
    | { kind: "list" }
    | { kind: "elsewhere" }; // another connection's refresh
  const op = fc.oneof(
    fc.record({
      kind: fc.constantFrom(...kinds),
      i: fc.integer({ min: 0, max: 4 }),
    }),
    fc.constantFrom(
      { kind: "refresh" as const },
      { kind: "list" as const },
      { kind: "elsewhere" as const },
    ),
  );
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(op, { minLength: 1, maxLength: 10 }),
      async (ops) => {
        const root = join(dir.path, `r${run++}`);
        const file = (i: number) => join(root, "sessions", "-w", `${i}.jsonl`);
        for (let i = 0; i < 3; i++) await plain(root, `${i}.jsonl`, 2);
        using index = await SessionIndex.open(root, quiet);
        await index.refresh();
        let stamp = 0;
        for (const o of ops as Op[]) {
          if (o.kind === "refresh") {
            await index.refresh();
            continue;
          }
          if (o.kind === "list") {
            // Through the index (rows with a head only, for new files), as
            // without it, whatever changed since the last refresh.
            assert.equal(
              await listed(root),
              await listed(root, { index: false }),
            );
            continue;
          }
          if (o.kind === "elsewhere") {
            using other = await SessionIndex.open(root, quiet);
            await other.refresh();
            continue;
          }
          const path = file(o.i);
          const exists = await Deno.stat(path).then(() => true, () => false);
          if (o.kind === "create") await plain(root, `${o.i}.jsonl`, 1 + o.i);
          else if (!exists) continue;
          else if (
            o.kind === "append" || o.kind === "tail" || o.kind === "tear"
          ) {
            // A turn of a model call: text to search, usage to count. As
            // omp appends: after a "\n" when the file lacks its last one.
            const n = ++stamp;
            const line = JSON.stringify(
              assistant(`f${String(n).padStart(7, "0")}`, null, `more ${n}`, {
                usage: {
                  input: 10 * n,
                  output: n,
                  cacheRead: 0,
                  cacheWrite: 0,
                  totalTokens: 11 * n,
                  cost: { total: n / 1000 },
                },
              }),
            );
            const bytes = await Deno.readFile(path);
            const after = bytes.length > 0 && bytes.at(-1) !== 0x0a ? "\n" : "";
            const text = o.kind === "append"
              ? `${line}\n`
              : o.kind === "tail"
              ? line
              : line.slice(0, line.length >> 1);
            await Deno.writeTextFile(path, after + text, { append: true });
          } else if (o.kind === "touch") {
            await Deno.utime(
              path,
              new Date(),
              new Date(Date.now() + 1000 * ++stamp),
            );
          } else if (o.kind === "delete") await Deno.remove(path);
          else if (o.kind === "garble") {
            await Deno.writeTextFile(
              path,
              "garbled\n",
            );
          } else if (o.kind === "truncate") {
            const text = await Deno.readTextFile(path);
            const lines = text.split("\n").filter((l) => l !== "");
            if (lines.length > 3) {
              await Deno.writeTextFile(
                path,
                lines.slice(0, -1).join("\n") + "\n",
              );
            }
          } else if (o.kind === "refreshFile") {
            await index.refreshFile(path);
          } else if (o.kind === "sameStep") {
            // Written in the clock step of the last read of it: the size
            // and times stay. Only while the file is new enough for every
            // read of it to have been in the settle window (a step is at
            // most a few ms; 2 s on some file systems).
            const info = await Deno.stat(path);
            if (Date.now() - info.mtime!.getTime() >= 1000) continue;
            const text = await Deno.readTextFile(path);
            await Deno.writeTextFile(
              path,
              text.replaceAll("Plain", "Plane").replaceAll("turn ", "fold "),
            );
            await Deno.utime(path, info.atime!, info.mtime!);
          } else if (o.kind === "legacy") {
            const at = "2025-11-20T23:33:01.550Z";
            const lines = [
              {
                type: "session",
                id: `legacy-${o.i}`,
                timestamp: at,
                cwd: "/w",
              },
              {
                type: "message",
                timestamp: at,
                message: { role: "user", content: "turn legacy" },
              },
            ];
            await Deno.writeTextFile(
              path,
              lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
            );
          } else if (o.kind === "fork") {
            await forkSession(path).catch(() => undefined); // garbled: no fork
          } else if (o.kind === "write" || o.kind === "open") {
            const session = await Session.open(path).catch(() => undefined); // a garbled file does not open
            if (o.kind === "write") {
              // A version 1 file is migrated in place by its first append;
              // one another writer garbled meanwhile is refused.
              await session?.appendMessage({ role: "user", content: "own" })
                .catch((err: Error) => {
                  if (!/version 1 session/.test(err.message)) throw err;
                });
            } else if (session !== undefined) {
              // Resumed from the row where it can be: the context of a
              // whole read all the same.
              const whole = await Session.open(path, { window: false });
              assert.deepEqual(session.buildContext(), whole.buildContext());
              await whole.close();
            }
            await session?.close();
          } else await forgetElsewhere(root, path);
        }
        await index.refresh();
        // What a standing mark vouches for (a refresh that finds one reads
        // neither): no row with a head only, none a facet is behind on.
        const store = (await IndexStore.tryOpen(root, quiet))!;
        try {
          assert.ok(store.freshMark() !== undefined);
          assert.deepEqual(store.rows.shallow(), new Set());
          assert.deepEqual(store.behind(), new Set());
        } finally {
          store.close();
        }
        // The index answers as the files do.
        assert.equal(
          await listed(root, { includeSubagents: true }),
          await listed(root, { includeSubagents: true, index: false }),
        );
        for (const query of ["more", "turn", "own"]) {
          const indexed = await searched(root, query, quiet);
          const scanned = await searched(root, query, { index: false });
          assert.equal(indexed.indexed, true);
          assert.deepEqual(indexed.hits, scanned.hits);
        }
        // (The index keeps the calls of files gone or no longer sessions:
        // left out here, as the files no longer hold them.)
        const { cost: a, ...fromIndex } =
          (await reported(root, { ...quiet, excludeDeleted: true })).totals;
        const { cost: b, ...fromFiles } =
          (await reported(root, { index: false })).totals;
        assert.deepEqual(fromIndex, fromFiles);
        assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, b), `${a} vs ${b}`);
        assert.deepEqual(await unlikeScratch(root), []);
      },
    ),
    { numRuns: 25 },
  );
});

Deno.test(
  "SessionIndex.openSession reopens a recorded checkpoint-less file reading little, with the context of a full read",
  async () => {
    await using dir = await tempDir();
    const folder = join(dir.path, "sessions", "-w");
    await Deno.mkdir(folder, { recursive: true });
    const path = join(folder, "omp-style.jsonl");
    await generateFile(path, {
      size: 8 * 1024 * 1024,
      checkpoints: false,
      lastCompactionBeforeEnd: 256 * 1024,
      seed: 3,
    });
    const size = (await Deno.stat(path)).size;
    const cold = await Session.open(path, { resolveBlobs: false });
    assert.equal(cold.windowStats().bytesRead >= size * 0.9, true); // no checkpoint: read back to the start
    using index = await SessionIndex.open(dir.path);
    await index.refresh();
    const warm = await index.openSession(path, { resolveBlobs: false });
    const whole = await Session.open(path, { window: false });
    assert.deepEqual(warm.buildContext(), whole.buildContext());
    assert.equal(warm.windowStats().bytesRead < size / 4, true);
    // Session.open knows no index: it reads back to the start again.
    const bypass = await Session.open(path, { resolveBlobs: false });
    assert.equal(bypass.windowStats().bytesRead >= size * 0.9, true);
    // A row that no longer holds (the bytes before its end changed): read
    // whole again, with the context of a full read.
    const bytes = await Deno.readFile(path);
    const at = bytes.lastIndexOf(0x0a, bytes.length - 2) - 8;
    bytes[at] = bytes[at] === 0x61 ? 0x62 : 0x61;
    await Deno.writeFile(path, bytes);
    const changed = await index.openSession(path, { resolveBlobs: false });
    assert.equal(changed.windowStats().bytesRead >= size * 0.9, true);
    assert.deepEqual(
      changed.buildContext(),
      (await Session.open(path, { window: false })).buildContext(),
    );
  },
);

Deno.test(
  "SessionIndex.refreshFile after appends updates the file's row, so the next open resumes from its new end",
  async () => {
    await using dir = await tempDir();
    const path = await plain(dir.path, "s.jsonl", 3);
    using index = await SessionIndex.open(dir.path);
    await index.refresh();
    const session = await index.openSession(path);
    await session.appendMessage({ role: "user", content: "one more" });
    await session.close();
    assert.notEqual(rows(dir.path)[0]!.offset, (await Deno.stat(path)).size); // close wrote no row
    assert.equal(await index.refreshFile(path), true);
    const row = rows(dir.path)[0]!;
    assert.equal(row.offset, (await Deno.stat(path)).size);
    assert.equal(row.entries, 4);
    assert.equal((await index.refresh()).refreshed, 0);
  },
);

Deno.test(
  "SessionIndex.openSession records a file the index did not hold, so a later refresh has nothing to read",
  async () => {
    await using dir = await tempDir();
    await plain(dir.path, "a.jsonl", 2);
    using index = await SessionIndex.open(dir.path);
    await index.refresh();
    const b = await plain(dir.path, "b.jsonl", 4);
    await using plainOpen = await Session.open(b);
    assert.equal(rows(dir.path).length, 1); // Session.open writes no row
    await using session = await index.openSession(b);
    assert.equal(session.buildContext().messages.length, 4);
    assert.equal(plainOpen.buildContext().messages.length, 4);
    assert.equal(rows(dir.path).length, 2);
    assert.equal((await index.refresh()).refreshed, 0);
  },
);

Deno.test("SessionIndex.openSession opens a file outside its data dir as Session.open does, and records no row of it", async () => {
  await using dir = await tempDir();
  await using elsewhere = await tempDir();
  await plain(dir.path, "a.jsonl", 2);
  using index = await SessionIndex.open(dir.path);
  await index.refresh();
  const outside = await plain(elsewhere.path, "b.jsonl", 3);
  await using session = await index.openSession(outside);
  await using plainOpen = await Session.open(outside);
  assert.deepEqual(session.buildContext(), plainOpen.buildContext());
  assert.equal(rows(dir.path).length, 1);
});

Deno.test("SessionIndex rebuilds a corrupt index file with a warning; the list stays right", async () => {
  await using dir = await tempDir();
  await plain(dir.path, "s.jsonl", 2);
  await Deno.writeTextFile(
    join(dir.path, "index.sqlite"),
    "this is not a database, it is a text file".repeat(200),
  );
  const warnings: string[] = [];
  using index = await SessionIndex.open(dir.path, {
    onWarning: (m) => warnings.push(m),
  });
  assert.match(warnings.join("\n"), /is damaged .*rebuilding it/);
  assert.equal((await index.refresh()).sessions, 1);
  await assertListedAsFiles(dir.path);
});

Deno.test("SessionIndex of a newer schema is left alone: a warning, and the list and open work without it", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 2);
  (await SessionIndex.open(dir.path)).close();
  const db = new DatabaseSync(join(dir.path, "index.sqlite"));
  db.exec("UPDATE meta SET value = '999' WHERE key = 'schema'");
  db.close();
  const warnings: string[] = [];
  const onWarning = (m: string) => warnings.push(m);
  assert.equal(await SessionIndex.tryOpen(dir.path, { onWarning }), undefined);
  assert.match(warnings[0]!, /schema is version 999, newer than/);
  await assertListedAsFiles(dir.path, { onWarning });
  const session = await Session.open(path);
  assert.equal(session.buildContext().messages.length, 2);
  const stored = new DatabaseSync(join(dir.path, "index.sqlite"));
  const value = stored.prepare("SELECT value FROM meta WHERE key = 'schema'")
    .get() as { value: string };
  stored.close();
  assert.equal(value.value, "999"); // not dropped
});

Deno.test("SessionIndex of an older schema (version 3: the search facet kept each entry's text) is dropped and made anew", async () => {
  await using dir = await tempDir();
  await plain(dir.path, "s.jsonl", 2);
  const file = join(dir.path, "index.sqlite");
  const old = new DatabaseSync(file);
  old.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  old.exec(`INSERT INTO meta VALUES ('schema', '3')`);
  old.exec(`CREATE TABLE search_entries (rowid INTEGER PRIMARY KEY,
    path TEXT NOT NULL, offset INTEGER NOT NULL, entryId TEXT, role TEXT,
    timestamp TEXT NOT NULL, skip TEXT, text TEXT NOT NULL)`);
  old.exec(`CREATE VIRTUAL TABLE search_fts USING fts5(text, content='',
    contentless_delete=1, tokenize='trigram')`);
  old.exec(`INSERT INTO search_entries VALUES
    (1, 'gone.jsonl', 0, 'x', 'user', '2026', NULL, 'stale words')`);
  old.close();
  using index = await SessionIndex.open(dir.path);
  assert.equal((await index.refresh()).sessions, 1);
  index.close();
  const db = new DatabaseSync(file);
  const columns = db.prepare("PRAGMA table_info(search_entries)").all()
    .map((c) => (c as { name: string }).name);
  const schema = db.prepare("SELECT value FROM meta WHERE key = 'schema'")
    .get() as { value: string };
  const stale = db.prepare(
    "SELECT count(*) AS n FROM search_entries WHERE path = 'gone.jsonl'",
  ).get() as { n: number };
  db.close();
  assert.ok(!columns.includes("text"), columns.join());
  assert.ok(columns.includes("size"), columns.join());
  assert.equal(schema.value, String(INDEX_SCHEMA_VERSION));
  assert.equal(stale.n, 0);
  await assertListedAsFiles(dir.path);
});

for (const old of [4, 5, 6, 7]) {
  Deno.test(`SessionIndex of schema version ${old} gains what the current one adds in place, keeping every row`, async () => {
    await using dir = await tempDir();
    const path = await plain(dir.path, "s.jsonl", 2);
    // A call as the last line, without its newline: versions up to 6 left
    // it out; this one counts it, once its usage facet has read the file
    // again.
    await Deno.writeTextFile(
      path,
      JSON.stringify(
        assistant("c0000001", null, "a call", {
          usage: {
            input: 5,
            output: 1,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 6,
            cost: { total: 0.5 },
          },
        }),
      ),
      { append: true },
    );
    const file = join(dir.path, "index.sqlite");
    const made = await SessionIndex.open(dir.path);
    await made.refresh();
    made.close();
    // What 0.3.1 (4), 0.3.3 (5), 0.3.5 (6) or 0.3.6 (7) left: for 4, no
    // covering indexes; up to 6, no usage_last, the usage facet's version
    // 1 (which had not counted the last line); no unsettled rows; and a
    // row a remake would lose (as it would lose the usage of deleted
    // files).
    const before = new DatabaseSync(file);
    if (old === 4) {
      before.exec("DROP INDEX sessions_heads");
      before.exec("DROP INDEX facets_read");
    }
    const usage = old < 7 ? 1 : 2;
    if (old < 7) {
      before.exec("DROP TABLE usage_last");
      before.exec("DELETE FROM usage");
      before.exec("UPDATE facets SET version = 1 WHERE facet = 'usage'");
    }
    before.exec("DROP TABLE unsettled");
    // Its mark, its fingerprint salted with its own schema and facet
    // versions: no mark to this one (it vouches for version 1's usage).
    const mark = before.prepare("SELECT value FROM meta WHERE key = 'fresh'")
      .get() as { value: string };
    const salted = mark.value.replace(
      /:\d+:([^"]*)usage@\d+/,
      `:${old}:$1usage@${usage}`,
    );
    assert.notEqual(salted, mark.value);
    before.prepare("UPDATE meta SET value = ? WHERE key = 'fresh'").run(salted);
    before.exec(`UPDATE meta SET value = '${old}' WHERE key = 'schema'`);
    before.exec("INSERT INTO meta VALUES ('kept', 'yes')");
    before.close();
    using index = await SessionIndex.open(dir.path);
    const refreshed = await index.refresh();
    index.close();
    assert.equal(refreshed.refreshed, 0, "the rows were kept: nothing to read");
    const db = new DatabaseSync(file);
    const schema = db.prepare("SELECT value FROM meta WHERE key = 'schema'")
      .get() as { value: string };
    const kept = db.prepare("SELECT value FROM meta WHERE key = 'kept'").get();
    const unsettledTable = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'unsettled'",
    ).all();
    const indexes = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('sessions_heads', 'facets_read')",
    ).all();
    // The list and a refresh read the head columns from the index alone.
    const plan = db.prepare(
      `EXPLAIN QUERY PLAN SELECT path, dev, ino, size, mtimeMs, id, cwd, title,
        titleSource, parentSession, timestamp, version, subagent, bodyStart,
        headHash FROM sessions`,
    ).all().map((r) => (r as { detail: string }).detail).join();
    db.close();
    assert.equal(schema.value, String(INDEX_SCHEMA_VERSION));
    assert.ok(kept !== undefined);
    assert.equal(unsettledTable.length, 1);
    assert.equal(indexes.length, 2);
    assert.match(plan, /COVERING INDEX sessions_heads/);
    await assertListedAsFiles(dir.path);
    const indexed = await reported(dir.path, quiet);
    assert.equal(indexed.source, "index");
    assert.equal(indexed.totals.requests, 1);
    assert.deepEqual(
      indexed.totals,
      (await reported(dir.path, { index: false })).totals,
    );
  });
}

Deno.test("SessionIndex waits a bounded time for a lock, then goes on without saving, with a warning", async () => {
  await using dir = await tempDir();
  await plain(dir.path, "s.jsonl", 2);
  (await SessionIndex.open(dir.path)).close();
  const holder = new DatabaseSync(join(dir.path, "index.sqlite"));
  holder.exec("BEGIN IMMEDIATE"); // another writer holds the write lock
  try {
    const warnings: string[] = [];
    using index = await SessionIndex.open(dir.path, {
      onWarning: (m) => warnings.push(m),
    });
    // The lock is never released: a list that returns at all, with the
    // warning, waited a bounded time (SQLite's busy timeout) and gave up.
    const listedNow = await index.list();
    assert.equal(listedNow.length, 1);
    assert.match(warnings.join("\n"), /is locked by another process/);
  } finally {
    holder.exec("ROLLBACK");
    holder.close();
  }
  await assertListedAsFiles(dir.path);
});

Deno.test("SessionIndex.open() waits for another process making a new index (switching it to WAL fails at once there)", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "index.sqlite");
  // Another process has just made the file and holds its write lock, as
  // while it makes the schema.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--quiet",
      `import { DatabaseSync } from "node:sqlite";
      const db = new DatabaseSync(${JSON.stringify(path)});
      db.exec("BEGIN IMMEDIATE");
      console.log("held");
      setTimeout(() => {
        Deno.writeTextFileSync(${JSON.stringify(`${path}.released`)}, "");
        db.exec("COMMIT");
        db.close();
      }, 300);`,
    ],
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read(); // "held"
  reader.releaseLock();
  try {
    const warnings: string[] = [];
    using index = await SessionIndex.open(dir.path, {
      onWarning: (m) => warnings.push(m),
    });
    assert.deepEqual(warnings, []);
    // It waited: the holder had let go (it marks that just before) when
    // the open returned, however long either process took to get there.
    const released = await Deno.stat(`${path}.released`).then(
      () => true,
      () => false,
    );
    assert.equal(released, true, "it waited");
    assert.equal((await index.refresh()).sessions, 0);
  } finally {
    await child.stdout.cancel();
    await child.status;
  }
});

Deno.test("SessionIndex: two refreshes at once leave the index a refresh from scratch would make", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < 40; i++) await plain(dir.path, `${i}.jsonl`, 1 + (i % 7));
  const a = await SessionIndex.open(dir.path, quiet);
  const b = await SessionIndex.open(dir.path, quiet);
  try {
    const [ra, rb] = await Promise.all([a.refresh(), b.refresh()]);
    assert.equal(ra.sessions, 40);
    assert.equal(rb.sessions, 40);
  } finally {
    a.close();
    b.close();
  }
  const both = rows(dir.path).map(stateOf);
  await Deno.remove(join(dir.path, "index.sqlite"));
  using alone = await SessionIndex.open(dir.path);
  await alone.refresh();
  assert.deepEqual(rows(dir.path).map(stateOf), both);
});

Deno.test("SessionIndex: two processes refreshing and one appending at once leave a consistent index", async () => {
  await using dir = await tempDir();
  const paths = await plainFiles(dir.path, 30, 3);
  const script = `
    import { SessionIndex } from ${
    JSON.stringify(new URL("../../mod.ts", import.meta.url).href)
  };
    const index = await SessionIndex.open(Deno.args[0], { onWarning: () => {} });
    for (let i = 0; i < 3; i++) await index.refresh();
    index.close();
  `;
  const child = () =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", "--quiet", script, dir.path],
      stdout: "null",
      stderr: "piped",
    }).output();
  const writer = (async () => {
    for (let i = 0; i < 20; i++) {
      const session = await Session.open(paths[i % paths.length]!);
      await session.appendMessage({ role: "user", content: `more ${i}` });
      await session.close();
    }
  })();
  const [x, y] = await Promise.all([child(), child(), writer]);
  assert.equal(x.code, 0, new TextDecoder().decode(x.stderr));
  assert.equal(y.code, 0, new TextDecoder().decode(y.stderr));
  using index = await SessionIndex.open(dir.path);
  await index.refresh();
  const after = rows(dir.path).map(stateOf);
  await Deno.remove(join(dir.path, "index.sqlite"));
  using scratch = await SessionIndex.open(dir.path);
  await scratch.refresh();
  assert.deepEqual(rows(dir.path).map(stateOf), after);
});

Deno.test("SessionIndex: a refresh killed midway leaves the last committed state; the next refresh completes it", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < 200; i++) await plain(dir.path, `${i}.jsonl`, 2);
  const script = `
    import { SessionIndex } from ${
    JSON.stringify(new URL("../../mod.ts", import.meta.url).href)
  };
    const index = await SessionIndex.open(Deno.args[0]);
    await index.refresh({ onProgress: (n) => { if (n === 150) console.log("most"); } });
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script, dir.path],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  // Small files' writes are saved 64 at a time: by the 150th, two groups.
  await reader.read(); // "most"
  child.kill("SIGKILL");
  reader.releaseLock();
  await child.stdout.cancel();
  await child.status;
  const db = new DatabaseSync(join(dir.path, "index.sqlite"));
  const check = db.prepare("PRAGMA integrity_check").get() as Record<
    string,
    string
  >;
  db.close();
  assert.equal(Object.values(check)[0], "ok");
  const kept = rows(dir.path).length;
  assert.equal(kept > 0 && kept < 200, true, `${kept} rows kept`);
  using index = await SessionIndex.open(dir.path);
  const done = await index.refresh();
  assert.equal(done.sessions, 200);
  assert.equal(done.refreshed, 200 - kept);
  await assertListedAsFiles(dir.path);
});

Deno.test("IndexStore.batched saves its writes a group at a time, and what is queued when the work throws", async () => {
  await using dir = await tempDir();
  const store = (await IndexStore.tryOpen(dir.path))!;
  const count = () =>
    store.read((db) =>
      (db.prepare("SELECT count(*) AS n FROM meta WHERE key LIKE 'k%'")
        .get() as { n: number }).n
    );
  const put = (k: number) =>
    store.write(() =>
      store.read((db) =>
        db.prepare("INSERT INTO meta (key, value) VALUES (?, 'v')").run(
          `k${k}`,
        )
      )
    );
  const seen: number[] = [];
  // Time stands still, so only the count decides when a group is saved.
  const now = performance.now;
  performance.now = () => 0;
  await assert.rejects(
    store.batched(async () => {
      for (let k = 0; k < 100; k++) {
        assert.equal(put(k), true);
        seen.push(count());
        await Promise.resolve();
      }
      throw new Error("stop");
    }),
    /stop/,
  ).finally(() => {
    performance.now = now;
  });
  // Nothing is visible until a group of 64 is saved; the rest at the end.
  assert.equal(seen[0], 0);
  assert.equal(seen[62], 0);
  assert.equal(seen[63], 64);
  assert.equal(seen[99], 64);
  assert.equal(count(), 100);
  assert.equal(put(100), true); // outside batched: saved at once
  assert.equal(count(), 101);
  store.close();
});

for (const umask of ["077", "000"]) {
  Deno.test(`SessionIndex files are 0600 under umask ${umask}`, {
    ignore: Deno.build.os === "windows",
  }, async () => {
    await using dir = await tempDir();
    await plain(dir.path, "s.jsonl", 2);
    const script = `
      import { SessionIndex } from ${
      JSON.stringify(new URL("../../mod.ts", import.meta.url).href)
    };
      const index = await SessionIndex.open(Deno.args[0]);
      await index.refresh();
      const stat = async (p) => (await Deno.stat(p)).mode & 0o777;
      console.log(JSON.stringify(await Promise.all(
        ["", "-wal", "-shm"].map((s) => stat(Deno.args[0] + "/index.sqlite" + s)),
      )));
      index.close();
    `;
    const out = await new Deno.Command("sh", {
      args: [
        "-c",
        `umask ${umask}; exec "$0" eval --quiet "$1" "$2"`,
        Deno.execPath(),
        script,
        dir.path,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const modes = JSON.parse(new TextDecoder().decode(out.stdout)) as number[];
    assert.deepEqual(modes.map((m) => m.toString(8)), ["600", "600", "600"]);
  });
}

Deno.test("SessionIndex keeps each row's token and cost totals, summed over every model call in the file", async () => {
  await using dir = await tempDir();
  const [path] = await place(dir.path, "-omp", ["omp/s1-branched.jsonl"]);
  using index = await SessionIndex.open(dir.path);
  await index.refresh();
  let input = 0, output = 0, cost = 0;
  for (const line of (await Deno.readTextFile(path!)).split("\n").slice(2)) {
    if (line === "") continue;
    const e = JSON.parse(line);
    const u = e.type === "message" && e.message.role === "assistant"
      ? e.message.usage
      : e.type === "model_usage"
      ? e.usage
      : undefined;
    if (u === undefined) continue;
    input += u.input;
    output += u.output;
    cost += u.cost?.total ?? 0;
  }
  const row = rows(dir.path)[0]!;
  assert.equal(input > 0, true);
  assert.equal(row.inputTokens, input);
  assert.equal(row.outputTokens, output);
  assert.equal(Math.abs((row.cost as number) - cost) < 1e-9, true);
});

Deno.test("SessionIndex.dataDirOf finds the data dir holding an index above a session file", async () => {
  await using dir = await tempDir();
  const path = await plain(dir.path, "s.jsonl", 1);
  assert.equal(await SessionIndex.dataDirOf(path), undefined); // no index yet
  (await SessionIndex.open(dir.path)).close();
  assert.equal(await SessionIndex.dataDirOf(path), dir.path);
  assert.equal(await SessionIndex.dataDirOf("/tmp/x.jsonl"), undefined);
});

/** Which tables of two {@linkcode dump}s differ (a diff of thousands of rows takes minutes to print). */
function differing(
  a: Record<string, unknown[]>,
  b: Record<string, unknown[]>,
): string[] {
  return Object.keys({ ...a, ...b }).filter((t) =>
    !isDeepStrictEqual(a[t], b[t])
  );
}

/** Every table the refresh writes, and the full-text index's trigrams, as stored. */
function dump(dataDir: string): Record<string, unknown[]> {
  return fromIndex(dataDir, (db) => {
    const out: Record<string, unknown[]> = {};
    for (const table of ["sessions", "facets"]) {
      out[table] = db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2, 3`).all();
    }
    // Ids of files and which copy of a call counts first follow the order
    // files were read in: each call is named by its file's path, and each
    // call counted once.
    out.usage = db.prepare(
      `SELECT f.path, f.sessionId, f.cwd, f.created, f.deleted, u.entryId,
         u.timestamp, u.provider, u.model, u.stopReason, u.input, u.output,
         u.cacheRead, u.cacheWrite, u.cost, u.malformed, u.unpriced
       FROM usage u JOIN usage_files f USING (file)
       ORDER BY f.path, u.entryId`,
    ).all();
    out.counted = db.prepare(
      `SELECT entryId, timestamp, sum(first) AS n FROM usage
       GROUP BY entryId, timestamp ORDER BY entryId, timestamp`,
    ).all();
    out.search_entries = db.prepare(
      `SELECT path, offset, size, entryId, role, timestamp, skip
       FROM search_entries ORDER BY path, offset`,
    ).all();
    out.trigrams = db.prepare(
      "SELECT term, doc FROM search_vocab ORDER BY term",
    ).all();
    return out;
  });
}
