/**
 * Memory and time of opening big transcripts, each run in a fresh process.
 *
 *     deno task bench:heap [--sizes 10M,100M,1G] [--runs N] [--no-omp]
 *         [--against ../v0311]
 *
 * Prints one JSON line per run: open ms, context ms, heap held after GC with
 * the session still referenced, peak heap sampled during the open, peak RSS,
 * retained and seen, for the windowed open, a full read and the naive way
 * (read, split, parse everything) in the same run; then one line per file
 * with the ratios. Where `../shared/peers/omp` is present, omp's own open
 * (`oracle.ts open-bench FILE --as-cli`) runs on the same file too. For
 * the omp-style files (no settings checkpoints), the open of a copy whose
 * data dir's index recorded it runs too, against the windowed open of the
 * file of the same size this library wrote (`indexedOverOwn`; issue 12's
 * target is ≤ 2), and the window alone: the lines of the entries the open
 * kept, decoded and parsed, which any open that returns the context must
 * do besides reading the bytes (`windowedOverFloorPlusWindow`). With
 * `--against DIR` (a checkout of another version, such as 0.3.11), its
 * own `bench/heap.ts` opens the same files in fresh processes alternating
 * with this one's (`against` rows; `windowedOverAgainst` in the summary).
 *
 * @module
 */

import { dirname, join } from "node:path";
import { Session } from "../src/session/session.ts";
import { SessionIndex } from "../src/index/session_index.ts";
import { benchFile, OUT_DIR } from "./_files.ts";
import { childJson } from "./_child.ts";
import { parseSize } from "../src/gen/generate.ts";
import { naiveContext, naiveOpen } from "./naive.ts";
import { askOmp, ompOracle } from "../tools/omp_oracle.ts";
import {
  minorFaults,
  pageFaultMicros,
  parseTail,
  peakRssMB,
  readAndFindLines,
  windowStart,
} from "./_floors.ts";

type Loader = "windowed" | "indexed" | "full" | "naive" | "floor" | "window";

interface Run {
  loader: Loader | "omp";
  file: string;
  bytes: number;
  openMs?: number;
  contextMs?: number;
  heapHeldMB?: number;
  heapBeforeMB?: number;
  peakHeapMB?: number;
  peakRssMB?: number;
  retained?: number;
  seen?: number;
  bytesRead?: number;
  messages?: number;
  /** Minor page faults during the open and the context (Linux). */
  faults?: number;
  error?: string;
}

const MB = 1 << 20;
const round = (n: number): number => Math.round(n * 10) / 10;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** The child: one open of one file, measured. */
async function child(
  loader: Loader,
  file: string,
  from = 0,
): Promise<Run> {
  const run: Run = { loader, file, bytes: (await Deno.stat(file)).size };
  gc();
  run.heapBeforeMB = round(Deno.memoryUsage().heapUsed / MB);
  let peak = 0;
  const sample = (): void => {
    peak = Math.max(peak, Deno.memoryUsage().heapUsed);
  };
  const timer = setInterval(sample, 1);
  const faultsBefore = minorFaults();
  let faultsAfter: number | undefined;
  /** The open is done: its faults, its peak, then what it holds after a GC. */
  const measured = (): void => {
    faultsAfter = minorFaults();
    sample();
    clearInterval(timer);
    gc();
    run.heapHeldMB = round(Deno.memoryUsage().heapUsed / MB);
  };
  try {
    const t0 = performance.now();
    if (loader === "floor") {
      const lines = await readAndFindLines(file);
      const t1 = performance.now();
      measured();
      Object.assign(run, { openMs: round(t1 - t0), contextMs: 0, seen: lines });
    } else if (loader === "window") {
      const values = await parseTail(file, from);
      const t1 = performance.now();
      measured();
      Object.assign(run, {
        openMs: round(t1 - t0),
        contextMs: 0,
        retained: values.length,
        bytesRead: run.bytes - from,
      });
    } else if (loader === "naive") {
      const s = await naiveOpen(file);
      sample();
      const t1 = performance.now();
      const ctx = naiveContext(s);
      const t2 = performance.now();
      measured();
      Object.assign(run, {
        openMs: round(t1 - t0),
        contextMs: round(t2 - t1),
        retained: s.entries.length,
        messages: ctx.messages.length,
      });
      // keep `s` alive until after the measurement
      if (s.entries.length < 0) console.log(s);
    } else {
      // "indexed": the file sits in a data dir whose index recorded it,
      // and opens through the index, from where its row ends.
      const options = { window: loader !== "full", resolveBlobs: false };
      using index = loader === "indexed"
        ? await SessionIndex.open(dirname(dirname(dirname(file))), {
          create: false,
        })
        : undefined;
      const s = await (index?.openSession(file, options) ??
        Session.open(file, options));
      sample();
      const t1 = performance.now();
      const ctx = s.buildContext();
      const t2 = performance.now();
      measured();
      const stats = s.windowStats();
      Object.assign(run, {
        openMs: round(t1 - t0),
        contextMs: round(t2 - t1),
        retained: stats.retained,
        seen: stats.seen,
        bytesRead: stats.bytesRead,
        messages: ctx.messages.length,
      });
      await s.close();
    }
  } catch (err) {
    run.error = err instanceof Error
      ? `${err.name}: ${err.message}`
      : String(err);
  } finally {
    clearInterval(timer);
  }
  if (faultsBefore !== undefined && faultsAfter !== undefined) {
    run.faults = faultsAfter - faultsBefore;
  }
  run.peakHeapMB = round(peak / MB);
  const rss = peakRssMB();
  if (rss !== undefined) run.peakRssMB = rss;
  return run;
}

/** {@linkcode pageFaultMicros} in a fresh process (reading `/proc/self/stat` needs `--allow-all`). */
async function faultPriceChild(): Promise<
  { micros: number; faults: number } | undefined
> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      new URL(import.meta.url).pathname,
      "--fault-price",
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  try {
    return JSON.parse(new TextDecoder().decode(out.stdout)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The `bench/heap.ts` of the checkout given with `--against`, if any. */
let againstScript: string | undefined;

async function spawnChild(
  loader: Loader,
  file: string,
  from = 0,
  script = new URL(import.meta.url).pathname,
): Promise<Run> {
  const r = await childJson<Run>(Deno.execPath(), [
    "run",
    "--allow-all", // reading /proc/self/status (peak RSS) needs it
    "--v8-flags=--expose-gc,--max-old-space-size=4096",
    script,
    "--child",
    loader,
    file,
    String(from),
  ]);
  return "json" in r ? r.json : { loader, file, bytes: 0, error: r.error };
}

async function ompOpen(oracle: string, file: string): Promise<Run> {
  const bytes = (await Deno.stat(file)).size;
  const { json, stderr } = await askOmp(oracle, [
    "open-bench",
    file,
    "--as-cli",
    "--runs",
    "3",
  ]);
  const m = json?.median as Record<string, number> | undefined;
  if (json === undefined || m === undefined) {
    return {
      loader: "omp",
      file,
      bytes,
      error: stderr.trim().split("\n").at(-1) ?? "no output",
    };
  }
  return {
    loader: "omp",
    file,
    bytes,
    openMs: m.openMs!,
    contextMs: m.buildContextMs!,
    heapHeldMB: round(m.heapUsed! / MB),
    peakRssMB: round(Number(json.peakRss) / MB),
    retained: Number(json.entries),
    messages: Number(json.contextMessages),
  };
}

/** What a page fault costs here, in µs ({@linkcode pageFaultMicros}). */
let faultMicros: number | undefined;

function median(
  runs: Run[],
  key: "openMs" | "contextMs" | "faults",
): number | undefined {
  const xs = runs.map((r) => (r[key] ?? NaN) + 0).filter(Number.isFinite).sort((
    a,
    b,
  ) => a - b);
  return xs.length ? xs[Math.floor(xs.length / 2)] : undefined;
}

async function main(args: string[]): Promise<void> {
  if (args[0] === "--fault-price") {
    console.log(JSON.stringify(pageFaultMicros() ?? null));
    return;
  }
  if (args[0] === "--child") {
    console.log(
      JSON.stringify(
        await child(args[1] as Loader, args[2]!, Number(args[3] ?? 0)),
      ),
    );
    return;
  }
  const opt = (name: string): string | undefined => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const sizes = (opt("sizes") ?? "10M,100M,1G").split(",").map(parseSize);
  const against = opt("against");
  if (against !== undefined) againstScript = join(against, "bench", "heap.ts");
  const price = await faultPriceChild();
  faultMicros = price?.micros;
  console.log(JSON.stringify({ pageFault: price ?? null }));
  // A transcript whose final window is ~30 MB: the open should hold about that.
  const bigWindow = parseSize(opt("big-window") ?? "30M");
  const runs = Number(opt("runs") ?? "3");
  const oracle = args.includes("--no-omp")
    ? undefined
    : await ompOracle("bench:heap");
  const ompStyle = (opt("omp-style-sizes") ?? "100M,1G").split(",").filter((
    s,
  ) => s !== "").map(parseSize);
  const own = new Map<number, number | undefined>();
  for (const size of sizes) {
    const file = await generated(size, {});
    own.set(
      size,
      await measure(`${round(size / MB)} MB`, file, runs, oracle, [
        "windowed",
        "full",
        "naive",
        "floor",
      ]),
    );
  }
  // As omp writes them: no settings checkpoints, so the open walks back to
  // the root (over envelopes only), unless the data dir's index recorded
  // the file: then it reads what was appended since, and the window.
  for (const size of ompStyle) {
    const file = await generated(size, { checkpoints: false });
    const indexed = await indexedCopy(file);
    await measure(`${round(size / MB)} MB omp-style`, file, runs, oracle, [
      "windowed",
      "naive",
      "floor",
    ], { file: indexed, own: own.get(size) });
  }
  if (bigWindow > 0) await bigWindowCase(bigWindow, runs);
}

/** A generated transcript, made once (with a progress line on a terminal). */
async function generated(
  size: number,
  options: { checkpoints?: boolean },
): Promise<string> {
  const tty = Deno.stderr.isTerminal();
  const file = await benchFile(size, options, (written, total) => {
    if (tty) {
      Deno.stderr.writeSync(
        new TextEncoder().encode(
          `\rgenerating ${OUT_DIR}: ${Math.floor(written * 100 / total)}%`,
        ),
      );
    }
  });
  if (tty) Deno.stderr.writeSync(new TextEncoder().encode("\n"));
  return file;
}

/**
 * A hard link to `file` in a data dir of its own whose index has recorded
 * it (made once; the refresh reads the file whole).
 */
async function indexedCopy(file: string): Promise<string> {
  const name = file.split("/").at(-1)!;
  const dataDir = join(OUT_DIR, `indexed-${name.replace(/\.jsonl$/, "")}`);
  const link = join(dataDir, "sessions", "-bench", name);
  await Deno.mkdir(join(dataDir, "sessions", "-bench"), { recursive: true });
  const same = await Promise.all([Deno.stat(file), Deno.stat(link)]).then(
    ([a, b]) => a.ino === b.ino,
    () => false,
  );
  if (!same) {
    await Deno.remove(link).catch(() => {});
    await Deno.link(file, link);
  }
  using index = await SessionIndex.open(dataDir);
  const done = await index.refresh();
  console.error(`indexed ${link}: ${JSON.stringify(done)}`);
  return link;
}

/**
 * Every loader on one file, in fresh processes, then the ratios; with
 * `indexed`, the open of its indexed copy too, against `own` (the windowed
 * open of a file of the same size this library wrote). Returns the
 * windowed open's total.
 */
async function measure(
  label: string,
  file: string,
  runs: number,
  oracle: string | undefined,
  loaders: Loader[],
  indexed?: { file: string; own: number | undefined },
): Promise<number | undefined> {
  const byLoader: Record<string, Run[]> = {};
  const other = async (key: string, loader: Loader, on: string) => {
    if (againstScript === undefined) return;
    const r = await spawnChild(loader, on, 0, againstScript);
    (byLoader[key] ??= []).push(r);
    console.log(JSON.stringify({ size: label, against: true, ...r }));
  };
  for (const loader of loaders) {
    for (let i = 0; i < runs; i++) {
      const r = await spawnChild(loader, file);
      (byLoader[loader] ??= []).push(r);
      console.log(JSON.stringify({ size: label, ...r }));
      if (loader === "windowed") await other("againstWindowed", loader, file); // alternating
      if (r.error !== undefined) break; // the naive way cannot open 1 GB: once is enough
    }
  }
  for (let i = 0; indexed !== undefined && i < runs; i++) {
    const r = await spawnChild("indexed", indexed.file);
    (byLoader.indexed ??= []).push(r);
    console.log(JSON.stringify({ size: label, ...r }));
    await other("againstIndexed", "indexed", indexed.file);
  }
  // The window alone: the lines of the entries the open kept, decoded and
  // parsed (they are the file's last lines; the indexed open read them).
  const tail = byLoader.indexed?.[0]?.bytesRead;
  const from = tail === undefined ? undefined : await windowStart(file, tail);
  for (let i = 0; from !== undefined && i < runs; i++) {
    const r = await spawnChild("window", file, from);
    (byLoader.window ??= []).push(r);
    console.log(JSON.stringify({ size: label, ...r }));
  }
  if (oracle !== undefined) {
    const r = await ompOpen(oracle, file);
    (byLoader.omp ??= []).push(r);
    console.log(JSON.stringify({ size: label, ...r }));
  }
  const total = (loader: string): number | undefined => {
    const rs = byLoader[loader] ?? [];
    const o = median(rs, "openMs");
    const c = median(rs, "contextMs");
    return o === undefined ? undefined : o + (c ?? 0);
  };
  const w = total("windowed");
  const ratio = (other: string): number | null => {
    const t = total(other);
    return t === undefined || w === undefined ? null : round(t / w);
  };
  const floor = total("floor");
  const held = (byLoader.windowed ?? []).map((r) => r.heapHeldMB ?? NaN);
  const windowedFaults = median(byLoader.windowed ?? [], "faults");
  const floorFaults = median(byLoader.floor ?? [], "faults");
  console.log(JSON.stringify({
    size: label,
    summary: true,
    windowedMs: w === undefined ? null : round(w),
    floorMs: floor === undefined ? null : round(floor),
    windowedOverFloor: floor === undefined || w === undefined
      ? null
      : round(w / floor),
    naiveOverWindowed: ratio("naive"),
    ...(againstScript === undefined ? {} : {
      againstWindowedMs: total("againstWindowed") ?? null,
      windowedOverAgainst: w === undefined ||
          total("againstWindowed") === undefined
        ? null
        : round(w / total("againstWindowed")!),
      againstHeapHeldMB: Math.max(
        ...(byLoader.againstWindowed ?? []).map((r) => r.heapHeldMB ?? NaN),
      ),
      ...(indexed === undefined ? {} : {
        againstIndexedMs: total("againstIndexed") ?? null,
      }),
    }),
    ...(indexed === undefined ? {} : {
      indexedMs: total("indexed") ?? null,
      ownWindowedMs: indexed.own ?? null,
      indexedOverOwn: indexed.own === undefined
        ? null
        : round((total("indexed") ?? NaN) / indexed.own),
      indexedBytesRead: byLoader.indexed?.[0]?.bytesRead ?? null,
      // The floor of any open that returns the context: the floor, and
      // the window's lines decoded and parsed in a fresh process.
      windowParseMs: total("window") ?? null,
      windowedOverFloorPlusWindow: floor === undefined || w === undefined ||
          total("window") === undefined
        ? null
        : round(w / (floor + total("window")!)),
    }),
    fullOverWindowed: ratio("full"),
    ompOverWindowed: ratio("omp"),
    heapHeldMB: held.length ? Math.max(...held) : null,
    // The page faults of the open beyond the floor's, and what they cost
    // at this machine's price of a fault.
    windowedFaults: windowedFaults ?? null,
    floorFaults: floorFaults ?? null,
    extraFaultMs: windowedFaults === undefined || floorFaults === undefined ||
        faultMicros === undefined
      ? null
      : round((windowedFaults - floorFaults) * faultMicros / 1000),
    peakHeapMB: byLoader.windowed?.[0]?.peakHeapMB ?? null,
    peakRssMB: byLoader.windowed?.[0]?.peakRssMB ?? null,
  }));
  return w;
}

async function bigWindowCase(window: number, runs: number): Promise<void> {
  const size = 100 * MB;
  const file = await benchFile(size, {
    lastCompactionBeforeEnd: window,
    compactionEvery: 40 * MB,
  });
  const rs: Run[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await spawnChild("windowed", file);
    rs.push(r);
    console.log(
      JSON.stringify({
        size: "100 MB",
        window: `${round(window / MB)} MB`,
        ...r,
      }),
    );
  }
  console.log(JSON.stringify({
    size: "100 MB",
    window: `${round(window / MB)} MB`,
    summary: true,
    windowedMs: median(rs, "openMs") ?? null,
    bytesReadMB: rs[0]?.bytesRead === undefined
      ? null
      : round(rs[0].bytesRead / MB),
    heapHeldMB: rs[0]?.heapHeldMB ?? null,
    peakHeapMB: rs[0]?.peakHeapMB ?? null,
  }));
}

if (import.meta.main) await main(Deno.args);
