/**
 * The `summary` facet: a list with summaries through the index gives what
 * the list over the files gives, reads no file's body once the index holds
 * them, and reads only the appended bytes of a file appended to.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { listSessions, SessionIndex } from "../../mod.ts";
import { type Fs, realFs } from "../../src/_fs.ts";
import { generateFile } from "../../src/gen/generate.ts";
import type { SessionInfo } from "../../src/store/session_info.ts";
import { override, withFs } from "../_fs_seam.ts";
import { backdate, tempDir } from "../_session_files.ts";

const FIXTURES = new URL("../../fixtures/", import.meta.url);
const OPTIONS = { summary: true, includeSubagents: true } as const;

/** A data dir holding every session of fixtures/omp, fixtures/pi and fixtures/xdev, one folder each. */
async function fixtureDataDir(root: string): Promise<string[]> {
  const paths: string[] = [];
  for (const set of ["omp", "pi", "xdev"]) {
    const folder = join(root, "sessions", `-fixtures-${set}`);
    await Deno.mkdir(folder, { recursive: true });
    for await (const e of Deno.readDir(new URL(`${set}/`, FIXTURES))) {
      if (!e.isFile || !e.name.endsWith(".jsonl")) continue;
      const path = join(folder, e.name);
      await Deno.copyFile(new URL(`${set}/${e.name}`, FIXTURES), path);
      paths.push(path);
    }
  }
  await backdate(root);
  return paths;
}

/** The real filesystem, counting the bytes read from each file. */
function counting(bytes: Map<string, number>): Fs {
  return {
    ...realFs,
    open: async (path, options) => {
      const file = await realFs.open(path, options);
      return override(file, {
        read: async (p, position) => {
          const n = await file.read(p, position);
          bytes.set(path, (bytes.get(path) ?? 0) + n);
          return n;
        },
      });
    },
  };
}

/** The summaries of a list, by path, as comparable JSON. */
function summaries(list: SessionInfo[]): string {
  return JSON.stringify(
    list.map((s) => [s.path, s.firstMessage, s.messageCount, s.lastActivity]),
  );
}

Deno.test("index list summaries equal the files' on the omp, pi and xdev fixtures: cold, refreshed, and from the facet", async () => {
  await using dir = await tempDir();
  const paths = await fixtureDataDir(dir.path);
  const scanned = await listSessions(dir.path, OPTIONS);
  assert.equal(scanned.length, paths.length);
  assert.ok(scanned.every((s) => typeof s.messageCount === "number"));
  using index = await SessionIndex.open(dir.path);
  // A list before any refresh feeds the facet itself; the next reads it.
  assert.equal(summaries(await index.list(OPTIONS)), summaries(scanned));
  assert.equal(summaries(await index.list(OPTIONS)), summaries(scanned));
  await index.refresh({ rebuild: true });
  assert.equal(summaries(await index.list(OPTIONS)), summaries(scanned));
  assert.deepEqual(await index.list(OPTIONS), scanned);
});

Deno.test("a list with summaries through a fresh index reads no session file's bytes", async () => {
  for (const refresh of [true, false]) {
    await using dir = await tempDir();
    await fixtureDataDir(dir.path);
    using index = await SessionIndex.open(dir.path);
    // Made fresh by a refresh, or by a first list (which keeps what it read).
    if (refresh) await index.refresh();
    else await index.list(OPTIONS);
    const bytes = new Map<string, number>();
    const listed = await withFs(counting(bytes), () => index.list(OPTIONS));
    assert.deepEqual([...bytes], [], `refresh: ${refresh}`);
    assert.equal(
      summaries(listed),
      summaries(await listSessions(dir.path, OPTIONS)),
    );
  }
});

Deno.test("after an append, a list's summary counts the new message and reads only the appended bytes", async () => {
  await using dir = await tempDir();
  await fixtureDataDir(dir.path);
  const path = join(dir.path, "sessions", "-fixtures-omp", "generated.jsonl");
  await generateFile(path, { size: 256 * 1024 });
  await backdate(dir.path);
  using index = await SessionIndex.open(dir.path);
  await index.refresh();
  const before = (await index.list(OPTIONS)).find((s) => s.path === path)!;
  const text = await Deno.readTextFile(path);
  const lastId = JSON.parse(text.trimEnd().split("\n").at(-1)!).id;
  const at = "2027-01-01T00:00:00.000Z";
  const line = `${
    JSON.stringify({
      type: "message",
      id: "feedf00d",
      parentId: lastId,
      timestamp: at,
      message: { role: "user", content: "one more thing" },
    })
  }\n`;
  await Deno.writeTextFile(path, line, { append: true });
  const old = new Date(Date.now() - 30_000); // settled; the others' stats stay
  await Deno.utime(path, old, old);

  const bytes = new Map<string, number>();
  const listed = await withFs(counting(bytes), () => index.list(OPTIONS));
  const after = listed.find((s) => s.path === path)!;
  assert.equal(after.messageCount, before.messageCount! + 1);
  assert.equal(after.lastActivity, at);
  assert.equal(after.firstMessage, before.firstMessage);
  assert.deepEqual([...bytes.keys()], [path]); // no other file
  // Its head twice (the list's, the feed's), a page to find its last line,
  // a page to check the bytes before where the facet stopped, the line,
  // and the page before the new end (the hash the facet's progress keeps).
  const read = bytes.get(path)!;
  assert.ok(read <= 5 * 4096 + line.length, `${read} bytes read`);
  assert.ok(read < text.length, "the file is larger than what was read");
  // The scan agrees, and a refresh after the list leaves the same.
  const scanned = await listSessions(dir.path, OPTIONS);
  assert.equal(summaries(listed), summaries(scanned));
  await index.refresh();
  assert.equal(summaries(await index.list(OPTIONS)), summaries(scanned));
});

Deno.test("a last line without its newline counts, through the index as in the files, and once it ends", async () => {
  await using dir = await tempDir();
  await fixtureDataDir(dir.path);
  using index = await SessionIndex.open(dir.path);
  await index.refresh();
  const omp = join(dir.path, "sessions", "-fixtures-omp", "s2-main.jsonl");
  const pi = join(
    dir.path,
    "sessions",
    "-fixtures-pi",
    "large-session-v1.jsonl",
  );
  for (const path of [omp, pi]) {
    // The file's last line again (a version 1 file mints it a new id), without "\n".
    const last = (await Deno.readTextFile(path)).trimEnd().split("\n").at(-1)!;
    const entry = JSON.parse(last);
    if (typeof entry.id === "string") entry.id = "0ddba11a";
    entry.timestamp = "2027-02-02T00:00:00.000Z";
    await Deno.writeTextFile(path, JSON.stringify(entry), { append: true });
  }
  await backdate(dir.path);
  const check = async (what: string) => {
    const scanned = await listSessions(dir.path, OPTIONS);
    assert.equal(
      summaries(await index.list(OPTIONS)),
      summaries(scanned),
      what,
    );
    await index.refresh();
    assert.equal(
      summaries(await index.list(OPTIONS)),
      summaries(scanned),
      what,
    );
    return scanned;
  };
  const open = await check("an open last line");
  for (const s of open.filter((s) => s.path === omp || s.path === pi)) {
    assert.equal(s.lastActivity, "2027-02-02T00:00:00.000Z", s.path);
  }
  await Deno.writeTextFile(omp, "\n", { append: true });
  await Deno.writeTextFile(pi, "\n", { append: true });
  await backdate(dir.path);
  await check("the line ended");
});
