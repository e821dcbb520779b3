import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join } from "node:path";
import {
  LIST_HEAD_BYTES,
  listSessions,
  type SessionInfo,
} from "../../src/store/list.ts";
import { type Fs, realFs, setFs } from "../../src/_fs.ts";
import { marshalTitleSlot } from "../../src/format/title_slot.ts";
import { HEADER, sessionBytes, T0, tempDir, user } from "../_session_files.ts";
import { readSessionHead } from "../../src/store/_session_files.ts";
import { override } from "../_fs_seam.ts";

const enc = new TextEncoder();
const OMP = new URL("../../fixtures/omp/", import.meta.url);

/** A header with its own id, timestamp and extra fields. */
function header(
  n: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const hex = n.toString(16).padStart(4, "0");
  return {
    ...HEADER,
    id: `01a0f000-0000-7000-8000-00000000${hex}`,
    timestamp: `2026-10-01T09:00:0${n}.000Z`,
    ...extra,
  };
}

/** Writes `bytes` at `dataDir/sessions/<rel>` and sets its mtime (seconds after T0). */
async function put(
  dataDir: string,
  rel: string,
  bytes: Uint8Array,
  mtimeSeconds = 0,
): Promise<string> {
  const path = join(dataDir, "sessions", rel);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeFile(path, bytes);
  const mtime = new Date(Date.parse(T0) + mtimeSeconds * 1000);
  await Deno.utime(path, mtime, mtime);
  return path;
}

/** A valid session whose entries bring it to at least `size` bytes. */
function bigSession(size: number, hdr: Record<string, unknown>): Uint8Array {
  const line = enc.encode(
    JSON.stringify(user("00000001", null, "x".repeat(64 * 1024))) + "\n",
  );
  const head = sessionBytes([], { header: hdr, title: "Big one" });
  const n = Math.ceil((size - head.length) / line.length);
  const out = new Uint8Array(head.length + n * line.length);
  out.set(head);
  for (let i = 0; i < n; i++) out.set(line, head.length + i * line.length);
  return out;
}

/** The real filesystem, counting the bytes and calls of every read by path. */
function countingReads(): {
  fs: Fs;
  bytes: Map<string, number>;
  calls: Map<string, number>;
} {
  const bytes = new Map<string, number>();
  const calls = new Map<string, number>();
  const fs: Fs = {
    ...realFs,
    readFile: () => Promise.reject(new Error("readFile must not be used")),
    open: async (path, options) => {
      const file = await realFs.open(path, options);
      return override(file, {
        read: async (p, position) => {
          calls.set(path, (calls.get(path) ?? 0) + 1);
          const n = await file.read(p, position);
          bytes.set(path, (bytes.get(path) ?? 0) + n);
          return n;
        },
      });
    },
  };
  return { fs, bytes, calls };
}

Deno.test("listSessions() lists every folder's sessions newest first and reports what it skips", async (t) => {
  await using dir = await tempDir();
  const data = dir.path;
  const FIVE_MB = 5 * 1024 * 1024;
  const alpha = await put(
    data,
    "-a/alpha.jsonl",
    sessionBytes([user("00000001", null, "hi")], {
      header: header(1, {
        parentSession: "01a0f000-0000-7000-8000-000000000009",
      }),
      title: "Alpha",
    }),
    50,
  );
  // An empty slot title means no title: the header's is ignored.
  const untitled = await put(
    data,
    "-a/untitled.jsonl",
    sessionBytes([], { header: header(2, { title: "stale" }), title: "" }),
    40,
  );
  const legacy = await put(
    data,
    "-b/legacy.jsonl",
    sessionBytes([], {
      slot: false,
      header: header(3, { version: 2, title: "Legacy", titleSource: "user" }),
    }),
    40,
  );
  const big = await put(
    data,
    "-b/big.jsonl",
    bigSession(FIVE_MB, header(4)),
    10,
  );
  const subagentSlot = marshalTitleSlot({
    title: "Scout",
    source: "subagent",
    updatedAt: T0,
  });
  const subagent = await put(
    data,
    "-a/subagent.jsonl",
    new Uint8Array([
      ...subagentSlot,
      ...enc.encode(JSON.stringify(header(5)) + "\n"),
    ]),
    60,
  );
  const nested = await put(
    data,
    "-a/alpha/1-Scout.jsonl",
    sessionBytes([], { header: header(6), title: "" }),
    70,
  );
  const notSession = await put(
    data,
    "-a/notes.jsonl",
    enc.encode('{"hello":1}\n{"world":2}\n'),
  );
  const farHeader = await put(
    data,
    "-b/far.jsonl",
    sessionBytes([], {
      header: header(7, { pad: "y".repeat(LIST_HEAD_BYTES) }),
    }),
  );
  const empty = await put(data, "-b/empty.jsonl", new Uint8Array(0));
  await put(data, "-b/readme.txt", enc.encode("not a session"));
  await put(data, "loose.jsonl", sessionBytes([], { header: header(8) }));

  const skipped: [string, string][] = [];
  const { fs, bytes, calls } = countingReads();
  const restore = setFs(fs);
  let sessions: SessionInfo[];
  try {
    sessions = await listSessions(data, {
      onSkip: (path, reason) => skipped.push([path, reason]),
    });
  } finally {
    restore();
  }

  await t.step(
    "order: mtime, then header timestamp, then path, newest first",
    () => {
      assert.deepEqual(sessions.map((s) => s.path), [
        alpha,
        legacy,
        untitled,
        big,
      ]);
    },
  );
  await t.step("fields come from the slot and the header", async () => {
    const stat = await Deno.stat(alpha);
    assert.deepEqual(sessions[0], {
      path: alpha,
      id: header(1).id,
      title: "Alpha",
      titleSource: "auto",
      cwd: HEADER.cwd,
      parentSession: "01a0f000-0000-7000-8000-000000000009",
      timestamp: header(1).timestamp,
      size: stat.size,
      mtime: stat.mtime,
      version: 3,
    });
    const byPath = new Map(sessions.map((s) => [s.path, s]));
    assert.equal(byPath.get(untitled)?.title, undefined);
    assert.equal(byPath.get(untitled)?.titleSource, "auto");
    assert.equal(byPath.get(legacy)?.title, "Legacy");
    assert.equal(byPath.get(legacy)?.titleSource, "manual");
    assert.equal(byPath.get(legacy)?.version, 2);
    assert.equal(byPath.get(big)?.size, (await Deno.stat(big)).size);
    assert.ok(byPath.get(big)!.size >= FIVE_MB);
  });
  await t.step(
    "subagents (by slot or by folder) and loose files are left out, unreported",
    () => {
      const paths = sessions.map((s) => s.path);
      assert.ok(!paths.includes(subagent));
      assert.ok(!paths.includes(nested));
      assert.ok(!skipped.some(([p]) => p === subagent || p === nested));
    },
  );
  await t.step(
    "damaged and foreign files are skipped and reported with a reason",
    () => {
      assert.deepEqual(
        skipped.sort(),
        [
          [empty, "the file is empty"],
          [
            farHeader,
            `no complete header within the first ${LIST_HEAD_BYTES} bytes`,
          ],
          [notSession, 'the header\'s type is not "session"'],
        ].sort(),
      );
    },
  );
  await t.step(
    `at most ${LIST_HEAD_BYTES} bytes are read per file, in one read call`,
    () => {
      assert.equal(bytes.get(big), LIST_HEAD_BYTES);
      assert.equal(bytes.get(farHeader), LIST_HEAD_BYTES);
      for (const [path, n] of bytes) {
        assert.ok(n <= LIST_HEAD_BYTES, `${path}: ${n} bytes`);
        assert.equal(calls.get(path), 1, path);
      }
      assert.equal(
        bytes.has(nested),
        false,
        "nested folders are not even opened",
      );
      assert.equal(bytes.has(empty), false, "an empty file is not read");
    },
  );

  await t.step("includeSubagents adds both kinds of subagent", async () => {
    const all = await listSessions(data, { includeSubagents: true });
    const paths = all.map((s) => s.path);
    assert.deepEqual(paths.slice(0, 2), [nested, subagent]);
    assert.equal(all[1]?.titleSource, "subagent");
    assert.equal(all[1]?.title, "Scout");
    assert.equal(all.length, sessions.length + 2);
  });
});

Deno.test("listSessions() with cwd lists only that folder", async (t) => {
  await using dir = await tempDir();
  const home_ = await Deno.realPath(Deno.env.get("HOME") ?? homedir());
  const mine = await put(
    dir.path,
    "-proj-x/a.jsonl",
    sessionBytes([], { header: header(1) }),
  );
  await put(
    dir.path,
    "-other/b.jsonl",
    sessionBytes([], { header: header(2) }),
  );
  await t.step("the cwd's slug folder only", async () => {
    const found = await listSessions(dir.path, {
      cwd: join(home_, "proj", "x"),
    });
    assert.deepEqual(found.map((s) => s.path), [mine]);
  });
  await t.step(
    "a cwd without a folder, or no sessions folder: none",
    async () => {
      assert.deepEqual(
        await listSessions(dir.path, { cwd: join(home_, "nope") }),
        [],
      );
      assert.deepEqual(await listSessions(join(dir.path, "missing")), []);
    },
  );
});

Deno.test("listSessions() gives omp's ids and titles for omp's data dir", async () => {
  await using dir = await tempDir();
  const manifest = JSON.parse(
    await Deno.readTextFile(new URL("manifest.json", OMP)),
  ) as { fixtures: { file: string; seed: number; originalPath: string }[] };
  for (const f of manifest.fixtures.filter((f) => f.seed === 1)) {
    const bytes = await Deno.readFile(new URL(f.file, OMP));
    // The same mtime for all: the header timestamp decides the order.
    await put(dir.path, f.originalPath.replace(/^sessions\//, ""), bytes);
  }
  const expected = JSON.parse(
    await Deno.readTextFile(new URL("s1.list.json", OMP)),
  ) as {
    sessions: {
      path: string;
      id: string;
      title: string | null;
      cwd: string;
      parent: string | null;
      created: string;
    }[];
  };
  const skipped: string[] = [];
  const found = await listSessions(dir.path, {
    onSkip: (p) => skipped.push(p),
  });
  // omp's rows are sorted by path; with equal mtimes ours are newest first.
  const ompRows = expected.sessions.toSorted((a, b) =>
    b.created.localeCompare(a.created)
  );
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    found.map((s) => ({
      path: s.path.slice(dir.path.length + 1),
      id: s.id,
      title: s.title ?? null,
      cwd: s.cwd,
      parent: s.parentSession ?? null,
      created: s.timestamp,
    })),
    ompRows.map((r) => ({
      path: r.path,
      id: r.id,
      title: r.title,
      cwd: r.cwd,
      parent: r.parent,
      created: r.created,
    })),
  );
});

Deno.test("readSessionHead() reads the same head whether or not the file is known to be one, and refuses what is not a regular file at once", async () => {
  await using dir = await tempDir();
  const paths = [];
  for (const name of ["s1-main", "s2-branched", "s1-edge"]) {
    const path = join(dir.path, `${name}.jsonl`);
    await Deno.copyFile(new URL(`${name}.jsonl`, OMP), path);
    paths.push(path);
  }
  paths.push(
    await put(
      dir.path,
      "-b/far.jsonl",
      sessionBytes([], {
        header: header(7, { pad: "y".repeat(LIST_HEAD_BYTES) }),
      }),
    ),
  );
  for (const path of paths) {
    const unknown = await readSessionHead(path);
    const known = await readSessionHead(path, { isFile: true });
    assert.deepEqual(known, unknown, path);
  }
  const first = await readSessionHead(paths[0]!);
  assert.ok("head" in first);
  assert.equal(first.info.size, (await Deno.stat(paths[0]!)).size);
  assert.deepEqual(
    first.headBytes,
    (await Deno.readFile(paths[0]!)).subarray(0, first.head.bodyStart),
  );
  assert.ok("skip" in (await readSessionHead(paths[3]!)));
  const folder = await readSessionHead(dir.path);
  assert.deepEqual(folder, {
    skip: "cannot read the first bytes: it is a folder",
  });
  if (Deno.build.os !== "windows") {
    const fifo = join(dir.path, "pipe.jsonl");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output()
      .catch(() => undefined);
    if (made?.success) {
      assert.deepEqual(await readSessionHead(fifo), {
        skip: "cannot read the first bytes: it is a FIFO (named pipe)",
      });
    }
  }
  const gone = await readSessionHead(join(dir.path, "gone.jsonl"));
  assert.ok("skip" in gone && gone.skip.startsWith("cannot read"));
});
