/**
 * The usage report against the floor and against itself, in the same run
 * (issue 13):
 * - a cold report (no index) of 10,000 sessions, and of one 512 MB
 *   session, against merely reading their bytes (each file opened and
 *   read in 1 MiB reads; the 10,000 also listed first, as the report
 *   lists them);
 * - a rerun through the index after one file changed, against a cold
 *   build of the index (and the cold report without one); target ≤ 5 %.
 *
 *     deno task bench bench/usage_bench.ts
 *     deno run -A bench/usage_bench.ts --rss 2.6G   # memory, in a fresh process
 *     deno run -A bench/usage_bench.ts --first       # the first report of a process
 *
 * The data is made once in `bench/out/usage-10k/` (10,000 generated
 * transcripts of ~16 KB, each its own seed; every tenth a fork of the one
 * before, its lines copied) and `bench/out/usage-big/`.
 *
 * @module
 */

import { join } from "node:path";
import { usageReport } from "../src/usage/usage_report.ts";
import { SessionIndex } from "../src/index/session_index.ts";
import {
  generateBytes,
  generateTranscript,
  parseSize,
} from "../src/gen/generate.ts";
import { reportMemory, writeImageSession } from "../tests/usage/_usage_dirs.ts";

const SESSIONS = 10_000;
const OUT = new URL("./out/", import.meta.url).pathname;
const many = join(OUT, "usage-10k");
const big = join(OUT, "usage-big");

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function transcript(size: number, seed: number): Promise<string> {
  return new TextDecoder().decode(await generateBytes({ size, seed }));
}

/** 100 cwd folders of 100 sessions; every tenth a fork of the one before. */
async function prepareMany(): Promise<void> {
  if (await exists(join(many, ".complete"))) return;
  await Deno.remove(many, { recursive: true }).catch(() => {});
  let parent = "";
  for (let i = 0; i < SESSIONS; i++) {
    const dir = join(many, "sessions", `-work-project-${Math.floor(i / 100)}`);
    if (i % 100 === 0) await Deno.mkdir(dir, { recursive: true });
    let text = await transcript(16 * 1024, i + 1);
    if (i % 10 === 9) {
      // A fork: a header of its own, then its parent's entries verbatim.
      const lines = parent.split("\n");
      const header = JSON.parse(lines[1]!);
      header.id = `fork-${i}`;
      header.parentSession = `parent-${i - 1}`;
      text = [JSON.stringify(header), ...lines.slice(2)].join("\n") +
        text.split("\n").slice(2).join("\n");
    }
    parent = text;
    const name = `2026-01-01T00-00-00-${
      String(i).padStart(3, "0")
    }Z_s${i}.jsonl`;
    await Deno.writeTextFile(join(dir, name), text);
  }
  await Deno.writeTextFile(join(many, ".complete"), "");
}

async function prepareBig(): Promise<string> {
  const dir = join(big, "sessions", "-work-big");
  const file = join(dir, "2026-01-01T00-00-00-000Z_big.jsonl");
  if (await exists(file)) return file;
  await Deno.mkdir(dir, { recursive: true });
  using out = await Deno.open(file, { write: true, create: true });
  await generateTranscript(out, { size: parseSize("512MB"), seed: 7 });
  return file;
}

/** Every session file under a data dir. */
async function filesOf(dataDir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(join(dir, e.name));
      else if (e.name.endsWith(".jsonl")) out.push(join(dir, e.name));
    }
  };
  await walk(join(dataDir, "sessions"));
  return out;
}

/**
 * The buffer of the floors, made once: a fresh 1 MiB costs ~3 ms of page
 * faults here, which is not reading.
 */
const _readBuffer = new Uint8Array(1 << 20);

/** The floor: open each file, read its bytes into a reused 1 MiB buffer, close it. */
async function readBytes(files: readonly string[]): Promise<number> {
  const buffer = _readBuffer;
  let n = 0;
  for (const path of files) {
    using file = await Deno.open(path);
    for (
      let k = await file.read(buffer);
      k !== null;
      k = await file.read(buffer)
    ) {
      n += k;
    }
  }
  return n;
}

/** The same with the listing: every `*.jsonl` of the cwd folders. */
async function listAndRead(dataDir: string): Promise<number> {
  const root = join(dataDir, "sessions");
  const files: string[] = [];
  for await (const folder of Deno.readDir(root)) {
    if (!folder.isDirectory) continue;
    const dir = join(root, folder.name);
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.endsWith(".jsonl")) files.push(`${dir}/${e.name}`);
    }
  }
  return await readBytes(files);
}

/**
 * Milliseconds of `code` in a fresh process, module loading left out
 * (what `cli usage` meets: nothing compiled yet).
 */
async function freshMs(code: string): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    cwd: new URL("..", import.meta.url).pathname,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("the measuring process failed");
  return Number(new TextDecoder().decode(out.stdout));
}

/** The first report of a process, against a fresh process listing and reading the bytes: medians of 9. */
async function firstReport(): Promise<void> {
  await prepareMany();
  const report = new URL("../src/usage/usage_report.ts", import.meta.url)
    .href;
  // listAndRead, as its source.
  const read = `
    const join = (a, b) => a + "/" + b;
    const _readBuffer = new Uint8Array(1 << 20);
    ${readBytes}
    ${listAndRead}
    const t = performance.now();
    await listAndRead(${JSON.stringify(many)});
    console.log(performance.now() - t);`;
  const pass = `
    const { usageReport } = await import(${JSON.stringify(report)});
    const t = performance.now();
    await usageReport(${JSON.stringify(many)});
    console.log(performance.now() - t);`;
  const reads: number[] = [], passes: number[] = [];
  for (let i = 0; i < 9; i++) {
    reads.push(await freshMs(read));
    passes.push(await freshMs(pass));
  }
  const spread = (v: number[]) => {
    const s = v.toSorted((a, b) => a - b).map(Math.round);
    return { median: s[s.length >> 1]!, min: s[0]!, max: s.at(-1)! };
  };
  const [read9, report9] = [spread(reads), spread(passes)];
  console.log(JSON.stringify({
    readMs: read9,
    reportMs: report9,
    ratio: Math.round(read9.median / report9.median * 100) / 100,
  }));
}

if (Deno.args[0] === "--first") {
  await firstReport();
} else if (Deno.args[0] === "--rss") {
  const size = parseSize(Deno.args[1] ?? "2.6G");
  const dataDir = join(OUT, `usage-images-${Deno.args[1] ?? "2.6G"}`);
  if (!await exists(join(dataDir, ".complete"))) {
    await writeImageSession(dataDir, size);
    await Deno.writeTextFile(join(dataDir, ".complete"), "");
  }
  const m = await reportMemory(dataDir);
  const grew = Math.round((m.peakMB - m.rssBeforeMB) * 10) / 10;
  console.log(JSON.stringify({ bytes: size, ...m, grewMB: grew }));
} else {
  await prepareMany();
  const bigFile = await prepareBig();
  const manyFiles = await filesOf(many);
  const quiet = { onWarning: () => {} };

  Deno.bench({
    name: "read the bytes of 10,000 sessions",
    group: "cold, 10,000 sessions",
    baseline: true,
    n: 5,
    warmup: 1,
    async fn() {
      await readBytes(manyFiles);
    },
  });
  Deno.bench({
    name: "list the files and read their bytes",
    group: "cold, 10,000 sessions",
    n: 5,
    warmup: 1,
    async fn() {
      await listAndRead(many);
    },
  });
  Deno.bench({
    name: "usageReport without an index",
    group: "cold, 10,000 sessions",
    n: 5,
    warmup: 1,
    async fn() {
      await usageReport(many);
    },
  });
  Deno.bench({
    name: "read the bytes of a 512 MB session",
    group: "cold, one 512 MB session",
    baseline: true,
    n: 5,
    warmup: 1,
    async fn() {
      await readBytes([bigFile]);
    },
  });
  Deno.bench({
    name: "usageReport without an index",
    group: "cold, one 512 MB session",
    n: 5,
    warmup: 1,
    async fn() {
      await usageReport(big);
    },
  });

  const changed = manyFiles[777]!;
  let appended = 0;
  const oneCall = () =>
    JSON.stringify({
      type: "message",
      id: `bench${String(appended++).padStart(4, "0")}`,
      parentId: null,
      timestamp: "2026-11-30T09:00:00.000Z",
      message: {
        role: "assistant",
        content: [],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: { input: 10, output: 1, cost: { total: 0.001 } },
        stopReason: "stop",
      },
    }) + "\n";

  Deno.bench({
    name: "cold build of the index, then the report",
    group: "rerun, 10,000 sessions",
    baseline: true,
    n: 2,
    warmup: 0,
    async fn() {
      await Deno.remove(join(many, "index.sqlite")).catch(() => {});
      using index = await SessionIndex.open(many, quiet);
      await index.usageReport();
    },
  });
  Deno.bench({
    name: "cold report without an index",
    group: "rerun, 10,000 sessions",
    n: 2,
    warmup: 0,
    async fn() {
      await usageReport(many);
    },
  });
  Deno.bench({
    name: "rerun through the index, one file changed",
    group: "rerun, 10,000 sessions",
    n: 10,
    warmup: 1,
    async fn(b) {
      await Deno.writeTextFile(changed, oneCall(), { append: true });
      using index = await SessionIndex.open(many, quiet);
      b.start();
      const r = await index.usageReport();
      b.end();
      if (r.source !== "index") throw new Error("no index");
    },
  });
}
