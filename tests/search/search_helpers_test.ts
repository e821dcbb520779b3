/**
 * A search scan with helper threads finds what a scan on one thread finds:
 * the same hits in the same order (the newest, when there are more than
 * the limit), on or off the active path, the same matching lines skipped,
 * the same files that are not sessions; a helper that dies leaves its
 * files to the calling thread.
 */

import { deepStrictEqual, ok } from "node:assert/strict";
import { join } from "node:path";
import { type SearchOptions, searchSessions } from "../../mod.ts";
import { scanHelperSettings } from "../../src/search/_scan_files.ts";
import { DYING_HELPERS } from "../store/_dying_helpers.ts";
import {
  HEADER,
  sessionBytes,
  tempDir,
  toolResult,
} from "../_session_files.ts";

const T0 = Date.parse("2026-10-01T09:00:00.000Z");

function entry(
  id: string,
  parentId: string | null,
  ms: number,
  message: Record<string, unknown>,
): Record<string, unknown> {
  const timestamp = new Date(ms).toISOString();
  return { type: "message", id, parentId, timestamp, message };
}

const say = (role: "user" | "assistant", content: unknown) => ({
  role,
  content,
  ...(role === "assistant" ? { stopReason: "stop" } : {}),
});

/** `n` sessions in 7 folders: needles in each role, a branch, CJK, a damaged line; some files that are not sessions. */
async function writeDataDir(root: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const folder = join(root, "sessions", `--home-dev-p${i % 7}--`);
    await Deno.mkdir(folder, { recursive: true });
    const path = join(folder, `s${i}.jsonl`);
    if (i % 41 === 3) {
      await Deno.writeTextFile(path, "not a session\n");
      continue;
    }
    const t = T0 + i * 60_000;
    const lines: (Record<string, unknown> | string)[] = [
      entry("00000001", null, t, say("user", `needle user ${i} hello`)),
      entry(
        "00000002",
        "00000001",
        t + 1,
        say("assistant", [
          {
            type: "text",
            text: `reply ${i % 5 === 0 ? "needlerare" : "plain"}`,
          },
        ]),
      ),
      {
        ...toolResult("00000003", "00000002", "c1", [
          { type: "text", text: `tool output ${i}\nneedle tool` },
        ]),
        timestamp: new Date(t + 2).toISOString(),
      },
      entry("00000004", "00000003", t + 3, say("user", "branch start")),
      entry("00000005", "00000004", t + 4, say("assistant", "needle branch")),
      entry(
        "00000006",
        "00000003",
        t + 5,
        say("user", `back: 検索テストabc${i}の結果`),
      ),
    ];
    if (i % 13 === 4) {
      lines.push(
        `{"type":"message","id":"00000007","parentId":"00000006","timestamp":"${
          new Date(t + 6).toISOString()
        }","message":{"role":"user","content":"needle damaged is cut`,
      );
    }
    await Deno.writeFile(
      path,
      sessionBytes(lines, {
        header: {
          ...HEADER,
          id: `01a0f000-0000-7000-8000-${String(i).padStart(12, "0")}`,
        },
      }),
    );
  }
}

async function search(dir: string, query: string, options: SearchOptions) {
  const skips: string[] = [];
  const result = await searchSessions(dir, query, {
    ...options,
    index: false,
    onSkip: (path, why) => skips.push(`${path}: ${why}`),
  });
  return { result, skips: skips.sort() };
}

const QUERIES: [string, SearchOptions][] = [
  ["needle", {}], // in every file: the newest 50 of ~1,000 hits
  ["needle", { limit: 500 }],
  ["needlerare", {}],
  ["needle branch", {}], // off the active path
  ["検索テスト", {}],
  ["needle damaged", {}], // skipped lines
  ["needle", { role: "tool" }],
  ["needle", { since: new Date(T0 + 150 * 60_000) }],
  ["needle (user|tool) \\d+", { regex: true, limit: 100 }],
  ["zqxjnothing", {}],
];

Deno.test("searchSessions() with helper threads finds what one thread finds", async () => {
  await using dir = await tempDir();
  await writeDataDir(dir.path, 300);
  const settings = scanHelperSettings({
    eagerFiles: 1,
    started: () => new Promise((r) => setTimeout(r, 40)),
  });
  try {
    let posted = 0;
    for (const [query, options] of QUERIES) {
      const alone = await search(dir.path, query, { ...options, helpers: 0 });
      for (const helpers of [1, 2]) {
        const helped = await search(dir.path, query, { ...options, helpers });
        deepStrictEqual(helped, alone, `${query} ${JSON.stringify(options)}`);
        posted += settings.posted();
      }
    }
    ok(posted > 0, "helpers scanned some of the files");
  } finally {
    settings.restore();
  }
});

Deno.test("searchSessions() scans itself the files of a helper that dies, and reports each file done once", async (t) => {
  await using dir = await tempDir();
  await writeDataDir(dir.path, 120);
  const alone = await search(dir.path, "needle", { limit: 1000, helpers: 0 });
  ok(alone.result.hits.length > 300);
  // Helpers started, each dying its way (one that reports files done: one
  // helper, so that it is the one to claim them).
  const dying: [string, URL, number][] = [
    ...DYING_HELPERS.map(([what, module]): [string, URL, number] => [
      what,
      module,
      2,
    ]),
    [
      "after reporting the files it claimed done",
      new URL("./_scan_helper_dies_reporting.ts", import.meta.url),
      1,
    ],
  ];
  for (const [what, module, helpers] of dying) {
    await t.step(what, async () => {
      const settings = scanHelperSettings({
        eagerFiles: 1,
        module,
        started: () => new Promise((r) => setTimeout(r, 300)),
      });
      try {
        const seen: [number, number][] = [];
        const helped = await search(dir.path, "needle", {
          limit: 1000,
          helpers,
          onProgress: (done, total) => seen.push([done, total]),
        });
        deepStrictEqual(helped, alone);
        deepStrictEqual(settings.posted(), 0, "the helper posted nothing");
        // The files it claimed are scanned here: each reported once.
        const total = seen[0]![1];
        ok(seen.length > 0 && total === 120);
        ok(seen.every(([d], k) => k === 0 || d > seen[k - 1]![0]), "grows");
        ok(seen.every(([d]) => d <= total), "never past the total");
        deepStrictEqual(seen.at(-1), [total, total], "ends at the total");
      } finally {
        settings.restore();
      }
    });
  }
});
