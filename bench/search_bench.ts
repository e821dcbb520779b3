/**
 * Search: through the index over 10,000 small sessions, and the scan of a
 * 100 MB transcript against merely reading its bytes.
 *
 *     deno task bench
 *     deno run -A bench/search_bench.ts --rss <file>   # the scan's memory
 *
 * Data dirs are made once in `bench/out/` (the index of 10,000 sessions
 * takes a minute or two to build).
 *
 * @module
 */

import { join } from "node:path";
import { searchSessions } from "../src/search/search.ts";
import { SessionIndex } from "../src/index/session_index.ts";
import { benchFile, OUT_DIR, readdirAndStat } from "./_files.ts";

const MB = 1 << 20;
const SESSIONS = 10_000;
const _WORDS = ("read write lock index search window branch compaction token " +
  "blob header title slot fork cache error retry buffer stream 検索 会话 résumé")
  .split(" ");

/** A data dir of `n` sessions of 12 entries, session i holding "needle<i>". */
async function manySessions(n: number): Promise<string> {
  const root = join(OUT_DIR, `search-${n}`);
  try {
    await Deno.stat(join(root, "index.sqlite"));
    return root;
  } catch {
    // made below
  }
  await Deno.remove(root, { recursive: true }).catch(() => {});
  for (let i = 0; i < n; i++) {
    const folder = join(root, "sessions", `--home-dev-p${i % 50}--`);
    if (i < 50) await Deno.mkdir(folder, { recursive: true });
    const lines = [
      JSON.stringify({
        type: "session",
        version: 3,
        id: `01a0f000-0000-7000-8000-${String(i).padStart(12, "0")}`,
        timestamp: "2026-10-01T09:00:00.000Z",
        cwd: `/home/dev/p${i % 50}`,
      }),
    ];
    for (let j = 0; j < 12; j++) {
      const words = Array.from(
        { length: 60 },
        (_, k) => _WORDS[(i * 31 + j * 7 + k * k) % _WORDS.length],
      );
      if (j === 5) words.push(`needle${i}`);
      lines.push(JSON.stringify({
        type: "message",
        id: (j + 1).toString(16).padStart(8, "0"),
        parentId: j === 0 ? null : j.toString(16).padStart(8, "0"),
        timestamp: new Date(Date.UTC(2026, 9, 1, 9) + i * 60_000 + j * 1000)
          .toISOString(),
        message: {
          role: j % 2 === 0 ? "user" : "assistant",
          content: words.join(" "),
        },
      }));
    }
    await Deno.writeTextFile(
      join(folder, `s${i}.jsonl`),
      lines.join("\n") + "\n",
    );
  }
  const index = await SessionIndex.open(root);
  try {
    await index.refresh();
  } finally {
    index.close();
  }
  return root;
}

/** A data dir holding one generated transcript of `size` bytes (a hard link). */
async function oneFile(size: number): Promise<{ root: string; path: string }> {
  const source = await benchFile(size);
  const root = join(OUT_DIR, `search-one-${size}`);
  const path = join(root, "sessions", "--bench--", "s.jsonl");
  await Deno.mkdir(join(path, ".."), { recursive: true });
  try {
    await Deno.stat(path);
  } catch {
    await Deno.link(source, path).catch(() => Deno.copyFile(source, path));
  }
  return { root, path };
}

/**
 * The buffer of {@linkcode readBytes}, made once: a fresh 1 MiB costs ~3 ms
 * of page faults here, which made the floor look twice as slow as it is.
 */
const _readBuffer = new Uint8Array(MB);

/** Read a file in 1 MiB reads, nothing else: the floor of any scan. */
function readBytes(path: string): number {
  const buffer = _readBuffer;
  using file = Deno.openSync(path);
  let total = 0;
  for (let n = file.readSync(buffer); n !== null; n = file.readSync(buffer)) {
    total += n;
  }
  return total;
}

if (import.meta.main && Deno.args[0] === "--rss") {
  // A fresh process: the RSS a scan adds, for the README.
  const { root } = await oneFile(Number(Deno.args[1] ?? 1024 * MB));
  const before = Deno.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  const r = await searchSessions(root, "truncateTailV2");
  clearInterval(timer);
  peak = Math.max(peak, Deno.memoryUsage().rss);
  console.log(JSON.stringify({
    ms: Math.round(performance.now() - started),
    hits: r.hits.length,
    rssBeforeMB: +(before / MB).toFixed(1),
    rssGrowthMB: +((peak - before) / MB).toFixed(1),
  }));
} else {
  const many = await manySessions(SESSIONS);
  const index = await SessionIndex.open(many); // kept open, as a harness keeps it
  const group = "indexed search over 10,000 sessions";
  Deno.bench({
    name: "scan every file (--no-index)",
    group,
    baseline: true,
    async fn() {
      await index.search("needle4242");
    },
  });
  Deno.bench({
    name: "index, refreshed first (a stat per file)",
    group,
    async fn() {
      await index.search("needle4242");
    },
  });
  Deno.bench({
    name: "only readdir and a stat per file (the refresh's floor)",
    group,
    fn: () => readdirAndStat(join(many, "sessions"), SESSIONS),
  });
  Deno.bench({
    name: "index, as it is (refresh: false)",
    group,
    async fn() {
      await index.search("needle4242", { refresh: false });
    },
  });
  Deno.bench({
    name: "index, a common word, 50 newest of 10,000 sessions",
    group,
    async fn() {
      await index.search("compaction", { refresh: false });
    },
  });
  Deno.bench({
    name: "index, a word in no entry",
    group,
    async fn() {
      await index.search("zqxjvkw", { refresh: false });
    },
  });
  Deno.bench({
    name: "index, a 2-character CJK word, 50 newest",
    group,
    async fn() {
      await index.search("会话", { refresh: false });
    },
  });

  const { root, path } = await oneFile(100 * MB);
  const scan = "scan of a 100 MB transcript";
  Deno.bench({
    name: "read the bytes (1 MiB reads)",
    group: scan,
    baseline: true,
    fn() {
      readBytes(path);
    },
  });
  Deno.bench({
    name: "scan for a rare needle (50 hits)",
    group: scan,
    async fn() {
      await searchSessions(root, "truncateTailV2");
    },
  });
  Deno.bench({
    name: "scan for a word in no line",
    group: scan,
    async fn() {
      await searchSessions(root, "zqxjvkw");
    },
  });
  Deno.bench({
    name: "scan for CJK in no line",
    group: scan,
    async fn() {
      await searchSessions(root, "検索テスト結果");
    },
  });
  Deno.bench({
    name: "naive: readTextFile, split, JSON.parse, includes",
    group: scan,
    async fn() {
      const text = await Deno.readTextFile(path);
      let n = 0;
      for (const line of text.split("\n")) {
        if (line !== "" && JSON.parse(line) && line.includes("zqxjvkw")) n++;
      }
      if (n < 0) throw new Error("unreachable");
    },
  });
}
