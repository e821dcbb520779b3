/**
 * The index is a cache: a damaged, read-only or linked index file never
 * stops a method or a command, and never gives a wrong answer. Each case
 * on a real file: an index made by a refresh, then damaged in its bytes
 * (a table's root page zeroed), made read-only, or replaced by a link.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  listSessions,
  searchSessions,
  Session,
  SessionIndex,
  usageReport,
} from "../../mod.ts";
import { cliInProcess } from "../_cli.ts";
import {
  indexFile,
  needleSessions,
  readOnly,
  userLine,
  zeroRootPage,
} from "../_index_damage.ts";
import { backdate, tempDir } from "../_session_files.ts";

/** An index of the data dir, made by a refresh. */
async function indexed(dataDir: string): Promise<void> {
  using index = await SessionIndex.open(dataDir, { onWarning: () => {} });
  await index.refresh();
}

/** The index file put back as `bytes` (its WAL files gone). */
async function putBack(dataDir: string, bytes: Uint8Array): Promise<void> {
  for (const suffix of ["", "-wal", "-shm"]) {
    await Deno.remove(`${indexFile(dataDir)}${suffix}`).catch(() => {});
  }
  await Deno.writeFile(indexFile(dataDir), bytes, { mode: 0o600 });
}

/** The index of `dataDir`, its warnings kept. */
async function opened(
  dataDir: string,
): Promise<{ index: SessionIndex; warnings: string[] }> {
  const warnings: string[] = [];
  const index = await SessionIndex.open(dataDir, {
    create: false,
    onWarning: (m) => warnings.push(m),
  });
  return { index, warnings };
}

/** What a search gives, as compared: each hit's place and entry. */
function hitsOf(result: Awaited<ReturnType<typeof searchSessions>>): string[] {
  return result.hits.map((h) => `${h.path}#${h.entryId}`);
}

/** Standard error's lines. */
function lines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l !== "");
}

Deno.test("SessionIndex with the sessions table's root page zeroed: every method answers as the files, the index made anew with one warning", async (t) => {
  await using dir = await tempDir();
  const paths = await needleSessions(dir.path, 12);
  await backdate(dir.path);
  await indexed(dir.path);
  await zeroRootPage(dir.path, "sessions");
  const damaged = await Deno.readFile(indexFile(dir.path));
  // A session changed since: every method reads its row.
  await Deno.writeTextFile(paths[0]!, userLine("u0b", "a0", "more"), {
    append: true,
  });
  const damage =
    /^The session index ".*" is damaged \(database disk image is malformed; quick check: .+\); rebuilding it$/;

  await t.step("list", async () => {
    await putBack(dir.path, damaged);
    const { index, warnings } = await opened(dir.path);
    using _ = index;
    assert.deepEqual(await index.list(), await listSessions(dir.path));
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(warnings[0]!, damage);
    assert.deepEqual(await index.list(), await listSessions(dir.path));
    assert.equal(
      warnings.length,
      1,
      "the index made anew serves the next list",
    );
  });

  await t.step("refresh, and rebuild", async () => {
    for (const rebuild of [false, true]) {
      await putBack(dir.path, damaged);
      const { index, warnings } = await opened(dir.path);
      using _ = index;
      assert.equal((await index.refresh({ rebuild })).sessions, 12);
      assert.equal(warnings.length, 1, warnings.join("\n"));
      assert.match(
        warnings[0]!,
        /is damaged \(.*quick check: .+\); rebuilding it$/,
      );
      const found = await index.search("needle", { limit: 100 });
      assert.equal(found.indexed, true);
      assert.deepEqual(
        hitsOf(found),
        hitsOf(await searchSessions(dir.path, "needle", { limit: 100 })),
      );
    }
  });

  await t.step("openSession and refreshFile", async () => {
    await putBack(dir.path, damaged);
    const { index, warnings } = await opened(dir.path);
    using _ = index;
    await using opened_ = await index.openSession(paths[3]!);
    await using plain = await Session.open(paths[3]!);
    assert.deepEqual(opened_.buildContext(), plain.buildContext());
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(warnings[0]!, damage);
    await putBack(dir.path, damaged);
    const again = await opened(dir.path);
    using __ = again.index;
    await again.index.refreshFile(paths[4]!);
    assert.equal(again.warnings.length, 1, again.warnings.join("\n"));
  });

  await t.step("usageReport", async () => {
    await putBack(dir.path, damaged);
    const { index, warnings } = await opened(dir.path);
    using _ = index;
    const report = await index.usageReport();
    assert.deepEqual(report.totals, (await usageReport(dir.path)).totals);
    assert.equal(warnings.length, 1, warnings.join("\n"));
  });

  await t.step(
    "the CLI: show, context, list, index, index --rebuild, search and usage, each with one warning",
    async () => {
      const runs = [
        ["show", paths[0]!],
        ["context", paths[0]!],
        ["list"],
        ["index"],
        ["index", "--rebuild"],
        ["search", "needle"],
        ["usage"],
      ];
      for (const args of runs) {
        await putBack(dir.path, damaged);
        const r = await cliInProcess([...args, "--data-dir", dir.path]);
        assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
        assert.equal(lines(r.stderr).length, 1, `${args[0]}: ${r.stderr}`);
        assert.match(r.stderr, /^warning: The session index .* is damaged/);
      }
    },
  );
});

Deno.test("SessionIndex.search with a search table's root page zeroed scans with one warning, never answering from the damaged table; the index made anew answers the next search", async (t) => {
  await using dir = await tempDir();
  await needleSessions(dir.path, 12);
  await backdate(dir.path);
  const scanned = hitsOf(
    await searchSessions(dir.path, "needle", { limit: 100 }),
  );
  assert.equal(scanned.length, 24);
  for (const table of ["search_entries", "search_fts_data"]) {
    await t.step(table, async () => {
      await Deno.remove(indexFile(dir.path)).catch(() => {});
      await indexed(dir.path);
      await zeroRootPage(dir.path, table);
      const { index, warnings } = await opened(dir.path);
      using _ = index;
      await index.refresh(); // nothing changed: it reads no row, nor the table
      const found = await index.search("needle", { limit: 100 });
      assert.deepEqual(hitsOf(found), scanned);
      assert.equal(warnings.length, 1, warnings.join("\n"));
      assert.match(warnings[0]!, /is damaged .*; rebuilding it$/);
      const next = await index.search("needle", { limit: 100 });
      assert.equal(next.indexed, true);
      assert.deepEqual(hitsOf(next), scanned);
      assert.equal(warnings.length, 1, warnings.join("\n"));
    });
  }
  await t.step("the CLI: search answers every hit", async () => {
    await Deno.remove(indexFile(dir.path));
    await indexed(dir.path);
    await zeroRootPage(dir.path, "search_entries");
    const r = await cliInProcess([
      "search",
      "needle",
      "--limit",
      "100",
      "--json",
      "--data-dir",
      dir.path,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).hits.length, 24);
    assert.equal(lines(r.stderr).length, 1, r.stderr);
  });
});

Deno.test("SessionIndex that SQLite can only read, after a session changed: it is used as it is or passed by, with one warning; a refresh says it is read-only", async (t) => {
  await using dir = await tempDir();
  const paths = await needleSessions(dir.path, 6);
  await backdate(dir.path);
  await indexed(dir.path);
  await Deno.writeTextFile(
    paths[2]!,
    userLine("u2b", "a2", "one more needle"),
    {
      append: true,
    },
  );
  await using guard = await readOnly(indexFile(dir.path));
  if (guard === undefined) {
    console.log("skipped: cannot make a file read-only here");
    return;
  }
  const readOnlyWarning =
    /^Cannot write to the session index ".*": it is read-only \(attempt to write a readonly database\); /;

  await t.step("openSession reads the file as it is now", async () => {
    const { index, warnings } = await opened(dir.path);
    using _ = index;
    await using session = await index.openSession(paths[2]!);
    await using plain = await Session.open(paths[2]!);
    assert.deepEqual(session.buildContext(), plain.buildContext());
    assert.equal(session.buildContext().messages.length, 3);
    assert.ok(warnings.length <= 1, warnings.join("\n"));
    for (const w of warnings) assert.match(w, readOnlyWarning);
  });

  await t.step("list, search, usageReport", async () => {
    const { index, warnings } = await opened(dir.path);
    using _ = index;
    assert.deepEqual(await index.list(), await listSessions(dir.path));
    const found = await index.search("needle", { limit: 100 });
    assert.deepEqual(
      hitsOf(found),
      hitsOf(await searchSessions(dir.path, "needle", { limit: 100 })),
    );
    assert.equal(found.hits.length, 13);
    assert.deepEqual(
      (await index.usageReport()).totals,
      (await usageReport(dir.path)).totals,
    );
    assert.ok(
      warnings.length >= 1 && warnings.length <= 2,
      warnings.join("\n"),
    );
    for (const w of warnings) assert.match(w, readOnlyWarning);
  });

  await t.step("refresh rejects: it cannot do its work", async () => {
    const { index } = await opened(dir.path);
    using _ = index;
    await assert.rejects(index.refresh(), /index ".*" is read-only/);
  });

  await t.step("the CLI", async () => {
    for (const args of [["show", paths[2]!], ["list"], ["search", "needle"]]) {
      const r = await cliInProcess([...args, "--data-dir", dir.path]);
      assert.equal(r.code, 0, `${args[0]}: ${r.stderr}`);
      // The list writes nothing here (the changed file's row is a
      // refresh's to read), and warns of nothing.
      const want = args[0] === "list" ? 0 : 1;
      assert.equal(lines(r.stderr).length, want, `${args[0]}: ${r.stderr}`);
      if (want) {
        assert.match(r.stderr, /^warning: Cannot write to the session index/);
      }
    }
    const index = await cliInProcess(["index", "--data-dir", dir.path]);
    assert.equal(index.code, 1);
    assert.match(
      index.stderr,
      /^error: Cannot index the sessions in ".*": the session index ".*" is read-only \(attempt to write a readonly database\)\n$/,
    );
  });
});

Deno.test("SessionIndex refuses an index file that is a symbolic link, dangling or not, as the blob store does, and goes on without it", async (t) => {
  await using dir = await tempDir();
  await needleSessions(dir.path, 3);
  await using elsewhere = await tempDir();

  await t.step(
    "a dangling link: no database is made where it points",
    async () => {
      const target = join(elsewhere.path, "made.sqlite");
      await Deno.symlink(target, indexFile(dir.path));
      const warnings: string[] = [];
      const index = await SessionIndex.tryOpen(dir.path, {
        onWarning: (m) => warnings.push(m),
      });
      assert.equal(index, undefined);
      assert.match(
        warnings.join("\n"),
        /^Cannot use the session index ".*": it is a symbolic link; going on without it$/,
      );
      const r = await cliInProcess(["list", "--json", "--data-dir", dir.path]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).length, 3);
      assert.match(
        r.stderr,
        /^warning: .* is a symbolic link; going on without it\n$/,
      );
      await assert.rejects(Deno.lstat(target), Deno.errors.NotFound);
      await Deno.remove(indexFile(dir.path));
    },
  );

  await t.step("a link to an index elsewhere, or to its WAL", async () => {
    const other = join(elsewhere.path, "other");
    await needleSessions(other, 1);
    await indexed(other);
    const before = await Deno.readFile(indexFile(other));
    await Deno.symlink(indexFile(other), indexFile(dir.path));
    assert.equal(
      await SessionIndex.tryOpen(dir.path, { onWarning: () => {} }),
      undefined,
    );
    await Deno.remove(indexFile(dir.path));
    await indexed(dir.path);
    await Deno.symlink(
      join(elsewhere.path, "wal"),
      `${indexFile(dir.path)}-wal`,
    );
    const warnings: string[] = [];
    assert.equal(
      await SessionIndex.tryOpen(dir.path, {
        onWarning: (m) => warnings.push(m),
      }),
      undefined,
    );
    assert.match(warnings.join("\n"), /its file ".*-wal" is a symbolic link/);
    assert.deepEqual(await Deno.readFile(indexFile(other)), before);
    await assert.rejects(
      Deno.lstat(join(elsewhere.path, "wal")),
      Deno.errors.NotFound,
    );
  });
});
