import { deepEqual, equal } from "node:assert/strict";
import { basename, join } from "node:path";
import { SessionIndex } from "../../mod.ts";
import { type Fs, realFs } from "../../src/_fs.ts";
import { withFs } from "../_fs_seam.ts";
import { READ_BYTES } from "../../src/read/lines.ts";
import { sessionBytes, tempDir } from "../_session_files.ts";
import { searched } from "../_indexed.ts";

/**
 * The real filesystem, counting the reads of the files whose name is
 * `name` (all, without); from the read `failFrom` on (counting from 1),
 * they fail.
 */
function countingReads(
  count: { reads: number },
  failFrom = Infinity,
  name?: string,
): Fs {
  return {
    ...realFs,
    open: async (path, options) => {
      const file = await realFs.open(path, options);
      if (name !== undefined && basename(path) !== name) return file;
      return {
        ...file,
        read: (p: Uint8Array, position: number) => {
          count.reads++;
          if (count.reads >= failFrom) {
            return Promise.reject(new Error("the disk went away"));
          }
          return file.read(p, position);
        },
      };
    },
  };
}

/** Filler of `n` characters: words, escapes and CJK, as tool output has. */
function filler(n: number, seed: number): string {
  const words = ["alpha", "検索", "tab\there", 'quote"d', "line\nbreak", "é"];
  let s = "";
  for (let i = seed; s.length < n; i++) s += `${words[i % words.length]} `;
  return s.slice(0, n);
}

Deno.test("searched() scanning finds needles across its reads, in long and CRLF lines, as the index does", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  const lines: string[] = [];
  let parent: string | null = null;
  const tokens: string[] = [];
  const damaged: string[] = [];
  for (let i = 0; i < 240; i++) {
    const id = (i + 1).toString(16).padStart(8, "0");
    const token = `tokq${i}z`;
    tokens.push(token);
    // Sizes that put tokens on both sides of every read boundary; every
    // 60th line longer than a read, its token within the 64 Ki characters
    // searched, and "tokcut" past them.
    const long = i % 60 === 59;
    const size = 2_000 + (i * 7919) % 30_000;
    const before = filler(i % 3 === 0 ? 0 : long ? 60_000 : size, i);
    const text = long
      ? `${before} ${token} ${filler(READ_BYTES + 100_000, i)} tokcut`
      : `${before} ${token} end`;
    const entry = {
      type: "message",
      id,
      parentId: parent,
      timestamp: `2026-10-01T09:00:00.${String(i).padStart(3, "0")}Z`,
      message: { role: "user", content: text },
    };
    lines.push(JSON.stringify(entry) + (i % 5 === 0 ? "\r" : ""));
    parent = id;
    if (i % 40 === 20) {
      // A damaged line (not JSON) off the path: reported, whatever the limit.
      damaged.push(`tokqdmg${i}`);
      lines.push(
        `{"type":"message","id":"d${
          id.slice(1)
        }","parentId":"${id}","message":{"role":"user","content":"${
          filler(size, i)
        } tokqdmg${i} end"},,}`,
      );
    }
  }
  lines.push(
    '{"type":"message","id":"ffffffff","parentId":null,"message":{"role":"user","content":"tokqtorn',
  );
  const bytes = sessionBytes(lines);
  await Deno.writeFile(
    join(folder, "big.jsonl"),
    bytes.subarray(0, bytes.length - 1),
  );
  (await SessionIndex.open(dir.path)).close();
  const count = { reads: 0 };
  const scan = await withFs(
    countingReads(count),
    () => searched(dir.path, "tokq*", { index: false, limit: 1000 }),
  );
  equal(count.reads > 3, true, `the file is read in parts (${count.reads})`);
  const indexed = await searched(dir.path, "tokq*", { limit: 1000 });
  equal(scan.hits.length, tokens.length);
  deepEqual(
    scan.hits.map((h) => h.snippet.match(/tokq\d+z/)?.[0]).sort(),
    [...tokens].sort(),
  );
  deepEqual(indexed.hits, scan.hits);
  equal(scan.hits.every((h) => h.onActivePath), true);
  // The newest few: the same, whatever the limit.
  const few = await searched(dir.path, "tokq*", {
    index: false,
    limit: 7,
  });
  deepEqual(few.hits, scan.hits.slice(0, 7));
  equal(scan.skipped.length, damaged.length);
  deepEqual(few.skipped, scan.skipped);
  equal(scan.skipped.every((s) => s.reason === "damaged"), true);
  for (const way of [{ index: false }, {}]) {
    equal((await searched(dir.path, "tokcut", way)).hits.length, 0);
    equal((await searched(dir.path, "tokqtorn", way)).hits.length, 0);
  }
  for (const token of ["tokq0z", "tokq59z", "tokq119z", "tokq239z"]) {
    const one = await searched(dir.path, token, { index: false });
    equal(one.hits.length, 1, token);
  }
});

Deno.test("searched() scanning settles the active path as the reader does, whatever its last line is", async (t) => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  const ts = (s: number) => `2026-10-01T09:00:0${s}.000Z`;
  const message = (id: string, parentId: string | null, s: number) =>
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: ts(s),
      message: { role: "user", content: `needlepath ${id}` },
    });
  // 1 is the root; 2 and 3 are its children; the last line decides.
  const tree = [
    message("00000001", null, 1),
    message("00000002", "00000001", 2),
    message("00000003", "00000001", 3),
  ];
  const marker = { customType: "branch", data: { to: "00000002" } };
  const cases: [string, string, string[]][] = [
    ["the last message", "", [
      "00000003 user",
      "00000002 user off",
      "00000001 user",
    ]],
    [
      "a branch marker, envelope first",
      JSON.stringify({
        type: "custom",
        id: "00000004",
        parentId: "00000003",
        timestamp: ts(4),
        ...marker,
      }),
      ["00000003 user off", "00000002 user", "00000001 user"],
    ],
    [
      "a branch marker as omp writes it (its own fields first)",
      JSON.stringify({
        type: "custom",
        ...marker,
        id: "00000004",
        parentId: "00000003",
        timestamp: ts(4),
      }),
      ["00000003 user off", "00000002 user", "00000001 user"],
    ],
    [
      "a marker to an id no entry has",
      JSON.stringify({
        type: "custom",
        id: "00000004",
        parentId: "00000002",
        timestamp: ts(4),
        customType: "branch",
        data: { to: "0000beef" },
      }),
      ["00000003 user off", "00000002 user", "00000001 user"],
    ],
    [
      "a message whose envelope is not first",
      JSON.stringify({
        id: "00000004",
        type: "message",
        parentId: "00000002",
        timestamp: ts(4),
        message: { role: "user", content: "needlepath 00000004" },
      }),
      [
        "00000004 user",
        "00000003 user off",
        "00000002 user",
        "00000001 user",
      ],
    ],
  ];
  for (const [i, [name, last, want]] of cases.entries()) {
    await t.step(name, async () => {
      const root = join(dir.path, `d${i}`);
      const sessions = join(root, "sessions", "--home-dev-app--");
      await Deno.mkdir(sessions, { recursive: true });
      await Deno.writeFile(
        join(sessions, "s.jsonl"),
        sessionBytes(last === "" ? tree : [...tree, last]),
      );
      (await SessionIndex.open(root)).close();
      const scan = await searched(root, "needlepath", { index: false });
      const indexed = await searched(root, "needlepath");
      deepEqual(
        scan.hits.map((h) =>
          `${h.entryId} ${h.role}${h.onActivePath ? "" : " off"}`
        ),
        want,
      );
      deepEqual(indexed.hits, scan.hits);
    });
  }
});

Deno.test("searched() scanning settles the active path from every line before the first that may match", async (t) => {
  await using dir = await tempDir();
  const ts = (n: number) =>
    `2026-10-01T09:${String(Math.floor(n / 60)).padStart(2, "0")}:${
      String(n % 60).padStart(2, "0")
    }.000Z`;
  const message = (
    id: string,
    parentId: string | null,
    n: number,
    text: string,
  ) =>
    ({
      type: "message",
      id,
      parentId,
      timestamp: ts(n),
      message: { role: "user", content: text },
    }) as Record<string, unknown>;
  // Before any line that may match: 1.2 MB of lines, across the scan's
  // 1 MiB reads; a line whose envelope is not first (parsed), a CRLF line,
  // a line longer than a read, a blank line. Each is the target of the last
  // line's branch marker in one case: found, it puts both hits off the path.
  const targets: [string, string][] = [
    ["a line whose envelope is not first", "0000000a"],
    ["a CRLF line", "0000000b"],
    ["a line across the scan's reads", "0000000c"],
  ];
  for (const [i, [name, target]] of targets.entries()) {
    await t.step(name, async () => {
      const lines: string[] = [];
      lines.push(JSON.stringify(message("00000001", null, 0, "root")));
      const { id: _, ...rest } = message("0000000a", "00000001", 1, "parsed");
      lines.push(JSON.stringify({ id: "0000000a", ...rest }));
      lines.push(
        JSON.stringify(message("0000000b", "0000000a", 2, "crlf")) + "\r",
      );
      lines.push(
        JSON.stringify(
          message("0000000c", "0000000b", 3, filler(1_200_000, 3)),
        ),
      );
      lines.push("");
      let parent = "0000000c";
      for (let n = 0; n < 40; n++) {
        const id = `1${String(n).padStart(7, "0")}`;
        lines.push(JSON.stringify(message(id, parent, 4 + n, filler(900, n))));
        parent = id;
      }
      // The hits: one on the chain, one on a branch from the root.
      lines.push(
        JSON.stringify(message("20000001", parent, 50, "needlelate one")),
      );
      lines.push(
        JSON.stringify(message("20000002", "00000001", 51, "needlelate two")),
      );
      lines.push(JSON.stringify({
        type: "custom",
        id: "20000003",
        parentId: "20000001",
        timestamp: ts(52),
        customType: "branch",
        data: { to: target },
      }));
      const root = join(dir.path, `d${i}`);
      const folder = join(root, "sessions", "--home-dev-app--");
      await Deno.mkdir(folder, { recursive: true });
      await Deno.writeFile(join(folder, "s.jsonl"), sessionBytes(lines));
      (await SessionIndex.open(root)).close();
      const scan = await searched(root, "needlelate", { index: false });
      deepEqual(
        scan.hits.map((h) => `${h.entryId}${h.onActivePath ? "" : " off"}`),
        ["20000002 off", "20000001 off"],
      );
      deepEqual((await searched(root, "needlelate")).hits, scan.hits);
    });
  }
  await t.step(
    "the marker's target missing: the marker is the leaf",
    async () => {
      const root = join(dir.path, "d0");
      const path = join(root, "sessions", "--home-dev-app--", "s.jsonl");
      const text = await Deno.readTextFile(path);
      await Deno.writeTextFile(
        path,
        text.replace('"to":"0000000a"', '"to":"0000dead"'),
      );
      const scan = await searched(root, "needlelate", { index: false });
      deepEqual(
        scan.hits.map((h) => `${h.entryId}${h.onActivePath ? "" : " off"}`),
        ["20000002 off", "20000001"],
      );
      deepEqual((await searched(root, "needlelate")).hits, scan.hits);
    },
  );
});

Deno.test("searched() scanning finds a long word cut by a read at every place", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  const word = "Longneedle" + "x".repeat(50); // 60 bytes
  const enc = new TextEncoder();
  const bodyStart = sessionBytes([]).length;
  // The file is read from its start, READ_BYTES at a time.
  const boundary = (k: number) => k * READ_BYTES;
  const shifts = [0, 1, 2, 30, 58, 59, 60, 63];
  const lines: string[] = [];
  let offset = bodyStart;
  let n = 0;
  /** A line whose text starts at `at` (absolute), or after `pad` bytes. */
  const line = (text: string, at: number | undefined, pad = 0) => {
    n++;
    const id = n.toString(16).padStart(8, "0");
    const parentId = n === 1 ? null : (n - 1).toString(16).padStart(8, "0");
    const head = JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: `2026-10-01T09:00:00.${String(n).padStart(3, "0")}Z`,
      message: { role: "user", content: "" },
    }).slice(0, -3); // up to the content's opening quote
    if (at !== undefined) pad = at - offset - enc.encode(head).length;
    const s = `${head}${"a ".repeat(pad >> 1)}${pad % 2 ? "a" : ""}${text}"}}`;
    lines.push(s);
    const start = offset + enc.encode(head).length + pad;
    offset += enc.encode(s).length + 1;
    return start;
  };
  const starts: number[] = [];
  for (const [i, d] of shifts.entries()) {
    const target = boundary(i + 1) - d; // where the word must start
    while (target - offset > 40_000) line("filler", undefined, 30_000);
    starts.push(line(`${i} ${word}`, target - 2) + 2);
  }
  const bytes = sessionBytes(lines);
  await Deno.writeFile(join(folder, "s.jsonl"), bytes);
  deepEqual(starts, shifts.map((d, i) => boundary(i + 1) - d));
  const count = { reads: 0 };
  const r = await withFs(
    countingReads(count),
    () => searched(dir.path, word, { index: false }),
  );
  equal(count.reads, Math.ceil(bytes.length / READ_BYTES), "read once");
  deepEqual(
    r.hits.map((h) => Number(h.snippet.match(/(\d) Longneedle/)?.[1])).sort(),
    shifts.map((_, i) => i),
  );
});

Deno.test("searched() scanning takes the newest matching lines whatever the limit, as the index finds them", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  const ts = (i: number) =>
    `2026-10-01T09:${String(i % 60).padStart(2, "0")}:00.000Z`;
  const lines: string[] = [];
  // A damaged line first: its envelope intact, its JSON not.
  lines.push(
    `{"type":"message","id":"000000aa","parentId":null,"timestamp":"${
      ts(0)
    }","message":{"role":"user","content":"laterword"x}}`,
  );
  for (let i = 1; i <= 45; i++) {
    // 45 lines of 150 KB, one longer than a read.
    const big = i === 20 ? 1_200_000 : 150_000;
    lines.push(JSON.stringify({
      type: "message",
      id: i.toString(16).padStart(8, "0"),
      parentId: i === 1 ? null : (i - 1).toString(16).padStart(8, "0"),
      // Time order, but for the last line, the oldest.
      timestamp: i === 45 ? ts(0) : ts(i),
      message: {
        role: i % 2 ? "user" : "assistant",
        content: `laterword ${i} ${filler(big, i)}`,
      },
    }));
  }
  await Deno.writeFile(join(folder, "s.jsonl"), sessionBytes(lines));
  (await SessionIndex.open(dir.path)).close();
  for (const limit of [1, 3, 1000]) {
    const scan = await searched(dir.path, "laterword", {
      index: false,
      limit,
    });
    const indexed = await searched(dir.path, "laterword", { limit });
    const want = [44, 43, 42, 41].slice(0, Math.min(limit, 4));
    deepEqual(
      scan.hits.slice(0, 4).map((h) => parseInt(h.entryId, 16)),
      want,
    );
    equal(scan.hits.length, Math.min(limit, 45));
    equal(scan.skipped.length, 1);
    equal(scan.skipped[0]!.reason, "damaged");
    deepEqual(indexed.hits, scan.hits);
    deepEqual(indexed.skipped, scan.skipped);
  }
});

Deno.test("searched() scans at the same time do not share a buffer", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  for (let f = 0; f < 3; f++) {
    const lines: string[] = [];
    for (let i = 1; i <= 40; i++) {
      lines.push(JSON.stringify({
        type: "message",
        id: i.toString(16).padStart(8, "0"),
        parentId: i === 1 ? null : (i - 1).toString(16).padStart(8, "0"),
        timestamp: `2026-10-0${f + 1}T09:00:${String(i).padStart(2, "0")}Z`,
        message: {
          role: "user",
          content: `${filler(40_000, i + f)} same${i % 3} file${f}x${i}`,
        },
      }));
    }
    await Deno.writeFile(join(folder, `s${f}.jsonl`), sessionBytes(lines));
  }
  const queries = ["same0", "same1", "same2", "file1x7", "検索"];
  const one = async (q: string) =>
    (await searched(dir.path, q, { index: false, limit: 1000 })).hits;
  const alone: unknown[] = [];
  for (const q of queries) alone.push(await one(q));
  deepEqual(await Promise.all(queries.map(one)), alone);
  equal((alone[0] as unknown[]).length, 3 * 13);
});

Deno.test("searched() scanning finds in omp's and pi's fixtures what the index finds", async () => {
  await using dir = await tempDir();
  const fixtures = new URL("../../fixtures/", import.meta.url).pathname;
  for (const set of ["s1", "s2"]) {
    const folder = join(dir.path, "sessions", `-omp-${set}`);
    await Deno.mkdir(folder, { recursive: true });
    for (const name of ["main", "branched", "edge", "fork", "reset"]) {
      await Deno.copyFile(
        join(fixtures, "omp", `${set}-${name}.jsonl`),
        join(folder, `${set}-${name}.jsonl`),
      );
    }
  }
  const folder = join(dir.path, "sessions", "-pi");
  await Deno.mkdir(folder);
  await Deno.copyFile(
    join(fixtures, "pi", "large-session-v1.jsonl"),
    join(folder, "v1.jsonl"),
  );
  (await SessionIndex.open(dir.path)).close();
  let total = 0;
  for (const query of ["the", "file", "read*", '"a test"', "検索"]) {
    const scan = await searched(dir.path, query, {
      index: false,
      limit: 500,
    });
    const indexed = await searched(dir.path, query, { limit: 500 });
    deepEqual(indexed.hits, scan.hits, query);
    deepEqual(indexed.skipped, scan.skipped, query);
    total += scan.hits.length;
  }
  equal(total > 100, true, `${total} hits`);
});

Deno.test("searched() scanning a file whose read fails reports the file and searches the others", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  const line = (i: number, text: string) =>
    JSON.stringify({
      type: "message",
      id: (i + 1).toString(16).padStart(8, "0"),
      parentId: i === 0 ? null : i.toString(16).padStart(8, "0"),
      timestamp: "2026-10-01T09:00:00.000Z",
      message: { role: "user", content: text },
    });
  const filler = "lorem ipsum ".repeat(10_000);
  const big = Array.from(
    { length: 3 * READ_BYTES / filler.length + 20 },
    (_, i) => line(i, i % 100 === 7 ? `${filler} findme` : filler),
  );
  await Deno.writeFile(join(folder, "big.jsonl"), sessionBytes(big));
  await Deno.writeFile(
    join(folder, "small.jsonl"),
    sessionBytes([line(0, "findme here")]),
  );
  const count = { reads: 0 };
  const skipped: string[] = [];
  // Two reads (the first with a hit), then a failure.
  const r = await withFs(
    countingReads(count, 3, "big.jsonl"),
    () =>
      searched(dir.path, "findme", {
        index: false,
        onSkip: (path, why) => skipped.push(`${basename(path)}: ${why}`),
      }),
  );
  equal(count.reads, 3, "the third read failed");
  deepEqual(skipped, [
    "big.jsonl: cannot be searched: the disk went away",
  ]);
  deepEqual(r.hits.map((h) => basename(h.path)), ["small.jsonl"]);
});
