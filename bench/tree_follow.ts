/**
 * The figures of the tree and the follower, each from fresh processes:
 *
 *     deno run -A bench/tree_follow.ts tree [file]      # time and peak memory: tree vs envelope scan
 *     deno run -A bench/tree_follow.ts latency [n] [omp-n]  # write → yield, p50/p99
 *     deno run -A bench/tree_follow.ts idle [seconds]   # CPU while nothing happens
 *
 * `tree` runs each reader 3 times in a fresh process (median time, its peak
 * RSS and heap) on the ~165 MB file `tree_bench.ts` generates. `latency`
 * follows a session while another process appends `n` messages (default
 * 1,000, one every 5 ms) through `Session.appendMessage`, then `omp-n`
 * (default 10) through omp's oracle (`roundtrip`, where `.cache/omp` is
 * installed); latency is the yield's time minus the writer's time (ours: a
 * high-resolution stamp taken before `appendMessage`; omp's: the entry's
 * millisecond timestamp), so it includes the writer's lock. `idle` reads
 * this process's utime + stime from `/proc/self/stat` over the idle span.
 *
 * @module
 */

import { join } from "node:path";
import { Session, SessionTree, watchSession } from "../mod.ts";
import { benchFile } from "./_files.ts";
import {
  drawTree,
  scanEnvelopeHeads,
  scanEnvelopes,
  TREE_BENCH_BYTES,
} from "./_envelopes.ts";

const SELF = new URL(import.meta.url).pathname;
const APPENDER = new URL("./_paced_appender.ts", import.meta.url).pathname;
const OMP = new URL("../.cache/omp/", import.meta.url).pathname;

const [what = "tree", ...rest] = Deno.args;

if (what === "tree-child") await treeChild(rest[0]!, rest[1]!);
else if (what === "tree") await tree(rest[0]);
else if (what === "latency") {
  await latency(Number(rest[0] ?? 1000), Number(rest[1] ?? 10));
} else if (what === "idle") await idle(Number(rest[0] ?? 10));
else {
  console.error(
    "usage: tree_follow.ts tree [file] | latency [n] [omp-n] | idle [s]",
  );
  Deno.exit(2);
}

/** One reader, in this (fresh) process: its time, peak RSS and heap. */
async function treeChild(reader: string, file: string): Promise<void> {
  const t0 = performance.now();
  let kept: unknown;
  if (reader === "envelopes") kept = await scanEnvelopes(file);
  else if (reader === "heads") kept = await scanEnvelopeHeads(file);
  else if (reader === "draw") kept = await drawTree(file);
  else kept = await SessionTree.read(file);
  const ms = performance.now() - t0;
  const status = await Deno.readTextFile("/proc/self/status");
  const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  const heap = Deno.memoryUsage().heapUsed;
  console.log(
    JSON.stringify({ ms, peakRss: hwm, heap, kept: kept !== undefined }),
  );
}

async function tree(file?: string): Promise<void> {
  const path = file ?? await benchFile(TREE_BENCH_BYTES);
  const size = (await Deno.stat(path)).size;
  const entries = (await SessionTree.read(path)).size;
  console.log(
    `tree: ${path} (${
      _mb(size)
    }, ${entries} entries), medians of 3 fresh processes`,
  );
  const runs: Record<string, { ms: number; peakRss: number; heap: number }[]> =
    {};
  for (let i = 0; i < 3; i++) {
    for (const reader of ["envelopes", "heads", "draw", "all"]) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", SELF, "tree-child", reader, path],
        stdout: "piped",
      }).output();
      (runs[reader] ??= []).push(
        JSON.parse(new TextDecoder().decode(out.stdout)),
      );
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[1]!;
  const row = (r: string) => ({
    ms: median(runs[r]!.map((x) => x.ms)),
    rss: median(runs[r]!.map((x) => x.peakRss)),
    heap: median(runs[r]!.map((x) => x.heap)),
  });
  const env = row("envelopes");
  const line = (name: string, r: ReturnType<typeof row>) =>
    console.log(
      `  ${name.padEnd(44)} ${r.ms.toFixed(0).padStart(5)} ms ${
        (r.ms / env.ms).toFixed(2)
      }x, peak RSS ${_mb(r.rss)}, heap held ${_mb(r.heap)}`,
    );
  line("envelope scan (baseline)", env);
  line("envelopes from each line's first bytes", row("heads"));
  line("cli tree's work (outline, previews drawn)", row("draw"));
  line("SessionTree.read(), every preview (--json)", row("all"));
}

async function latency(n: number, ompN: number): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "xdev-follow-bench-" });
  try {
    await using s = await Session.create({
      cwd: "/home/dev/app",
      dataDir: dir,
    });
    await s.appendMessage({ role: "user", content: "start" });
    await s.ensureOnDisk();
    const path = s.path!;
    let returned: number[] = [];
    const ours = await _follow(path, n, async () => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", APPENDER, path, String(n), "5"],
        stdout: "piped",
      }).output();
      if (!out.success) throw new Error("the appender failed");
      returned = new TextDecoder().decode(out.stdout).trim().split("\n")
        .map(Number);
    });
    _report(
      `Session.appendMessage, another process, ${n} appends, from the append's start`,
      ours.map((l) => l.latency),
    );
    _report(
      `the same, from the append's return (the bytes written)`,
      ours.map((l, i) => l.at - returned[i]!),
    );
    if (ompN === 0) return;
    const bun = join(OMP, "node_modules", ".bin", "bun");
    try {
      await Deno.stat(bun);
    } catch {
      console.log(
        "omp: skipped (.cache/omp absent: `deno task interop` installs it)",
      );
      return;
    }
    const theirs = await _follow(path, ompN, async () => {
      for (let i = 0; i < ompN; i++) {
        const out = await new Deno.Command(bun, {
          args: ["oracle.ts", "roundtrip", path, "--text", `omp ${i}`],
          cwd: OMP,
          stdout: "null",
          stderr: "null",
        }).output();
        if (!out.success) throw new Error("omp's roundtrip failed");
      }
    });
    _report(
      `omp 18.3.4 (oracle roundtrip), ${ompN} appends, from the entry's timestamp`,
      theirs.map((l) => l.latency),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Follow `path` while `write` runs: for each of `n` entries, when it was
 * yielded and its latency from the writer's stamp, in ms.
 */
async function _follow(
  path: string,
  n: number,
  write: () => Promise<void>,
): Promise<{ at: number; latency: number }[]> {
  const stop = new AbortController();
  const lat: { at: number; latency: number }[] = [];
  const it = watchSession(path, { signal: stop.signal });
  const first = it.next();
  await new Promise((r) => setTimeout(r, 200));
  const writing = write();
  for (let r = await first; !r.done; r = await it.next()) {
    const now = performance.timeOrigin + performance.now();
    const e = r.value as { timestamp: string; message?: { content?: unknown } };
    const c = e.message?.content;
    const stamp = typeof c === "string" && c.includes(" @")
      ? Number(c.slice(c.indexOf(" @") + 2))
      : Date.parse(e.timestamp);
    lat.push({ at: now, latency: now - stamp });
    if (lat.length === n) break;
  }
  stop.abort();
  await it.return();
  await writing;
  return lat;
}

function _report(what: string, lat: number[]): void {
  const s = [...lat].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  console.log(
    `${what}: p50 ${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, max ${
      s.at(-1)!.toFixed(1)
    } ms (${s.length} yielded)`,
  );
}

async function idle(seconds: number): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "xdev-idle-bench-" });
  try {
    await using s = await Session.create({
      cwd: "/home/dev/app",
      dataDir: dir,
    });
    await s.appendMessage({ role: "user", content: "start" });
    await s.ensureOnDisk();
    const stop = new AbortController();
    const following = (async () => {
      for await (const _ of watchSession(s.path!, { signal: stop.signal })) {
        // nothing is written: nothing comes
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    const before = await _cpuTicks();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const ticks = await _cpuTicks() - before;
    const ms = performance.now() - t0;
    stop.abort();
    await following;
    const cpuMs = ticks * 10; // USER_HZ is 100 on Linux
    console.log(
      `idle: ${cpuMs} ms of CPU over ${(ms / 1000).toFixed(1)} s = ${
        (100 * cpuMs / ms).toFixed(2)
      } % (target < 1 %)`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** This process's user + system time, in clock ticks. */
async function _cpuTicks(): Promise<number> {
  const stat = await Deno.readTextFile("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

function _mb(bytes: number): string {
  return `${(bytes / (1 << 20)).toFixed(1)} MB`;
}
