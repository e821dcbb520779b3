import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join, relative } from "node:path";
import {
  type SearchOptions,
  type SearchResult,
  SessionIndex,
} from "../../mod.ts";
import {
  HEADER,
  sessionBytes,
  tempDir,
  toolResult,
} from "../_session_files.ts";
import { searched } from "../_indexed.ts";

const at = (minute: number): string =>
  `2026-10-01T09:${String(minute).padStart(2, "0")}:00.000Z`;

function entry(
  id: string,
  parentId: string | null,
  minute: number,
  message: Record<string, unknown>,
): Record<string, unknown> {
  return { type: "message", id, parentId, timestamp: at(minute), message };
}

const say = (role: "user" | "assistant", content: unknown) => ({
  role,
  content,
  ...(role === "assistant" ? { stopReason: "stop" } : {}),
});

/** A line written by a writer that escapes non-ASCII and `<` (Python's, Go's). */
const FOREIGN = `{"type":"message","id":"0000000a","parentId":"00000007",` +
  `"timestamp":"${at(8)}","message":{"role":"user","content":` +
  `"caf\\u00e9 cr\\u00e8me a\\u003cb crossline\\nescape \\"quoted\\" back\\\\slash"}}`;

/** Sessions with a needle planted in each place the search reads, and in places it does not. */
async function plant(root: string): Promise<{ a: string; b: string }> {
  const a = join(root, "sessions", "--home-dev-app--", "a.jsonl");
  const b = join(root, "sessions", "--home-dev-other--", "b.jsonl");
  await Deno.mkdir(join(a, ".."), { recursive: true });
  await Deno.mkdir(join(b, ".."), { recursive: true });
  const image = { type: "image", mimeType: "image/png", data: "needleimg7" };
  await Deno.writeFile(
    a,
    sessionBytes([
      entry("00000001", null, 1, say("user", "needleuser1 hello")),
      entry(
        "00000002",
        "00000001",
        2,
        say("assistant", [
          { type: "thinking", thinking: "needlethink9" },
          { type: "text", text: "needleasst2 reply" },
          {
            type: "toolCall",
            id: "c1",
            name: "bash",
            arguments: { cmd: "needlecall8" },
          },
        ]),
      ),
      {
        ...toolResult("00000003", "00000002", "c1", [
          { type: "text", text: "output line\nneedletool3 done" },
          image,
        ]),
        timestamp: at(3),
      },
      entry("00000004", "00000003", 4, say("user", "branch start")),
      entry("00000005", "00000004", 5, say("assistant", "needlebranch4 left")),
      entry(
        "00000006",
        "00000003",
        6,
        say("user", "back: 検索テストabc123の結果"),
      ),
      entry("00000007", "00000006", 7, say("assistant", "🦄needleemoji🦄 ok")),
      FOREIGN,
      `{"type":"message","id":"0000000b","parentId":"0000000a","timestamp":"${
        at(9)
      }","message":{"role":"user","content":"needledamaged is cut`,
      entry("0000000c", "0000000a", 10, say("user", "after the damage")),
    ], { title: "Planted" }),
  );
  await Deno.writeFile(
    b,
    sessionBytes([
      {
        type: "custom_message",
        id: "00000001",
        parentId: null,
        timestamp: at(11),
        customType: "hook",
        content: "needlecustom5 from a hook",
        display: true,
      },
      entry("00000002", "00000001", 12, {
        role: "bashExecution",
        command: "ls needlebash6",
        output: "a.txt",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: 1,
      }),
    ], { header: { ...HEADER, id: "01a0f000-0000-7000-8000-00000000bbbb" } }),
  );
  return { a, b };
}

/** Search both ways: scanning, and through an index. */
async function both(
  root: string,
  query: string,
  options: SearchOptions = {},
): Promise<[SearchResult, SearchResult]> {
  const scan = await searched(root, query, { ...options, index: false });
  const indexed = await searched(root, query, options);
  equal(scan.indexed, false);
  equal(indexed.indexed, true);
  return [scan, indexed];
}

const brief = (r: SearchResult) =>
  r.hits.map((h) => `${h.entryId} ${h.role}${h.onActivePath ? "" : " off"}`);

Deno.test("searched() finds every planted needle and nothing else, the same way with and without the index", async (t) => {
  await using dir = await tempDir();
  const { a } = await plant(dir.path);
  (await SessionIndex.open(dir.path)).close();
  const cases: [string, string[]][] = [
    ["needleuser1", ["00000001 user"]],
    ["NEEDLEASST2", ["00000002 assistant"]],
    ["needletool3", ["00000003 tool"]],
    ["needlebranch4", ["00000005 assistant off"]],
    ["needlecustom5", ["00000001 custom"]],
    ["needlebash6", ["00000002 tool"]],
    ["abc123", ["00000006 user"]],
    ["検索テスト", ["00000006 user"]],
    ["🦄needleemoji", ["00000007 assistant"]],
    ["crème", ["0000000a user"]],
    ["a<b", ["0000000a user"]],
    ['"crossline escape"', ["0000000a user"]],
    ['back\\slash "quoted"', ["0000000a user"]],
    ["needle*", [
      "00000002 tool",
      "00000001 custom",
      "00000007 assistant",
      "00000005 assistant off",
      "00000003 tool",
      "00000002 assistant",
      "00000001 user",
    ]],
    ["eedleuser1*", []],
    ["eedleuser1", ["00000001 user"]],
    ["needlethink9", []],
    ["needlecall8", []],
    ["needleimg7", []],
    ["needledamaged", []],
    ["検索", ["00000006 user"]],
    ["ab", ["00000006 user"]],
    ["zz", []],
  ];
  for (const [query, want] of cases) {
    await t.step(query, async () => {
      const [scan, indexed] = await both(dir.path, query);
      deepEqual(brief(scan), want);
      deepEqual(indexed, { ...scan, indexed: true, scanned: 0 });
    });
  }
  await t.step(
    "the index answers for a data dir given as a relative path",
    async () => {
      const r = await searched(relative(Deno.cwd(), dir.path), "abc123");
      deepEqual([r.indexed, r.scanned, brief(r)], [true, 0, ["00000006 user"]]);
    },
  );
  await t.step(
    "a hit names its session and the text around the match",
    async () => {
      const [{ hits: [hit] }] = await both(dir.path, "needletool3");
      equal(hit!.path, a);
      equal(hit!.sessionId, HEADER.id);
      equal(hit!.title, "Planted");
      equal(hit!.timestamp, at(3));
      equal(hit!.snippet, "output line needletool3 done");
      equal(
        hit!.snippet.slice(hit!.match.start, hit!.match.end),
        "needletool3",
      );
    },
  );
});

Deno.test("searched() reports a damaged line whose text matches, both ways", async () => {
  await using dir = await tempDir();
  const { a } = await plant(dir.path);
  (await SessionIndex.open(dir.path)).close();
  const [scan, indexed] = await both(dir.path, "needledamaged");
  const bytes = await Deno.readFile(a);
  const text = new TextDecoder().decode(bytes);
  const before = text.slice(
    0,
    text.indexOf('{"type":"message","id":"0000000b"'),
  );
  const offset = new TextEncoder().encode(before).length;
  deepEqual(scan.skipped, [{ path: a, offset, reason: "damaged" }]);
  deepEqual(indexed.skipped, scan.skipped);
  deepEqual((await searched(dir.path, "zzz")).skipped, []);
});

Deno.test("searched() takes a hostile query literally or refuses it clearly", async (t) => {
  await using dir = await tempDir();
  await plant(dir.path);
  (await SessionIndex.open(dir.path)).close();
  for (
    const query of [
      "needleuser1 OR nothing",
      'needleuser1 NOT "',
      "NEAR(needleuser1 hello)",
      "text:needleuser1",
      "-needleuser1",
      "^needleuser1",
      "needleuser1 (",
      "*",
      "'; DROP TABLE search_entries; --",
    ]
  ) {
    await t.step(query, async () => {
      const [scan, indexed] = await both(dir.path, query);
      deepEqual(indexed.hits, scan.hits);
    });
  }
  await t.step("NUL, an empty query, a bad pattern, a bad limit", async () => {
    await rejects(searched(dir.path, "a\0b"), TypeError);
    await rejects(searched(dir.path, "  "), TypeError);
    await rejects(searched(dir.path, '"'), TypeError);
    await rejects(searched(dir.path, "(", { regex: true }), TypeError);
    await rejects(searched(dir.path, "a", { limit: 0 }), RangeError);
    await rejects(searched(dir.path, "a", { since: "nope" }), TypeError);
  });
});

Deno.test("searched() filters by role, folder, date and limit; a regex scans", async (t) => {
  await using dir = await tempDir();
  await plant(dir.path);
  (await SessionIndex.open(dir.path)).close();
  await t.step("role", async () => {
    const [scan, indexed] = await both(dir.path, "needle", { role: "tool" });
    deepEqual(brief(scan), ["00000002 tool", "00000003 tool"]);
    deepEqual(indexed.hits, scan.hits);
  });
  await t.step("cwd", async () => {
    const [scan, indexed] = await both(dir.path, "needle", {
      cwd: "/home/dev/other",
    });
    deepEqual(brief(scan), ["00000002 tool", "00000001 custom"]);
    deepEqual(indexed.hits, scan.hits);
  });
  await t.step(
    "since: entries from then on; older files not opened",
    async () => {
      const [scan, indexed] = await both(dir.path, "needle", { since: at(7) });
      deepEqual(brief(scan), [
        "00000002 tool",
        "00000001 custom",
        "00000007 assistant",
      ]);
      deepEqual(indexed.hits, scan.hits);
      const later = await both(dir.path, "needle", { since: "2100-01-01" });
      deepEqual(later.map((r) => r.hits), [[], []]);
    },
  );
  await t.step("limit keeps the newest", async () => {
    const [scan, indexed] = await both(dir.path, "needle", { limit: 2 });
    deepEqual(brief(scan), ["00000002 tool", "00000001 custom"]);
    deepEqual(indexed.hits, scan.hits);
  });
  await t.step("regex", async () => {
    const r = await searched(dir.path, "needle(user|asst)\\d", {
      regex: true,
    });
    equal(r.indexed, false);
    deepEqual(brief(r), ["00000002 assistant", "00000001 user"]);
  });
});

Deno.test("searched() keeps the index up to date: an append adds its rows once", async () => {
  await using dir = await tempDir();
  const { a } = await plant(dir.path);
  (await SessionIndex.open(dir.path)).close();
  const rows = (): number => {
    const db = new DatabaseSync(join(dir.path, "index.sqlite"));
    try {
      return (db.prepare(
        "SELECT count(*) AS n FROM search_entries WHERE path = ?",
      )
        .get(a) as { n: number }).n;
    } finally {
      db.close();
    }
  };
  deepEqual((await searched(dir.path, "needlelate")).hits, []);
  const before = rows();
  const line = JSON.stringify(
    entry("0000000d", "0000000c", 20, say("user", "needlelate")),
  );
  await Deno.writeTextFile(a, `${line}\n`, { append: true });
  const [scan, indexed] = await both(dir.path, "needlelate");
  deepEqual(brief(indexed), ["0000000d user"]);
  deepEqual(indexed.hits, scan.hits);
  equal(rows(), before + 1);
  await searched(dir.path, "needlelate");
  equal(rows(), before + 1);
  await Deno.remove(a);
  deepEqual((await searched(dir.path, "needlelate")).hits, []);
  equal(rows(), 0);
});

Deno.test("searched() reads pi's version 1 sessions both ways", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--pi--");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.copyFile(
    new URL("../../fixtures/pi/large-session-v1.jsonl", import.meta.url),
    join(folder, "pi.jsonl"),
  );
  (await SessionIndex.open(dir.path)).close();
  const [scan, indexed] = await both(dir.path, "user-message-selector");
  ok(scan.hits.length > 0);
  deepEqual(indexed.hits, scan.hits);
  ok(scan.hits.every((h) => /^[0-9a-f]{8}$/.test(h.entryId)));
});

Deno.test("searched() works on an index remade from an older schema", async () => {
  await using dir = await tempDir();
  await plant(dir.path);
  (await SessionIndex.open(dir.path)).close();
  await searched(dir.path, "needleuser1");
  const db = new DatabaseSync(join(dir.path, "index.sqlite"));
  db.exec("UPDATE meta SET value = '1' WHERE key = 'schema'");
  db.close();
  const [scan, indexed] = await both(dir.path, "needleuser1");
  deepEqual(brief(indexed), ["00000001 user"]);
  deepEqual(indexed.hits, scan.hits);
});

Deno.test("searched() finds a word spelled with JSON escapes, by scanning and through the index", async (t) => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  // "zebra crossing", its "e" written as an escape (valid JSON, the same
  // string): the loader reads "zebra".
  const escaped = (id: string, minute: number) =>
    JSON.stringify(entry(id, null, minute, say("user", "zebra crossing")))
      .replace("zebra", "z\\u0065bra");
  const whole = join(folder, "whole.jsonl");
  await Deno.writeFile(whole, sessionBytes([], { header: HEADER }));
  await Deno.writeTextFile(whole, `${escaped("00000001", 1)}\n`, {
    append: true,
  });
  (await SessionIndex.open(dir.path)).close();
  await t.step("a file the index holds whole", async () => {
    const [scan, indexed] = await both(dir.path, "zebra");
    deepEqual(brief(scan), ["00000001 user"]);
    deepEqual(indexed.hits, scan.hits);
  });
  await t.step(
    "a file the index scans (its last line has no newline)",
    async () => {
      const torn = join(folder, "torn.jsonl");
      await Deno.writeFile(torn, sessionBytes([], { header: HEADER }));
      await Deno.writeTextFile(torn, escaped("00000002", 2), { append: true });
      const [scan, indexed] = await both(dir.path, "ZEBRA");
      deepEqual(brief(scan), ["00000002 user", "00000001 user"]);
      deepEqual(indexed.hits, scan.hits);
    },
  );
});
