/**
 * Our open against each peer's own, on the runtime where the peer's users
 * live: on Node, pi's `SessionManager` (`@mariozechner/pi-coding-agent`,
 * installed in `bench/peers/pi/`, not a dependency of the project); on Bun,
 * omp's (`oracle.ts open-bench --as-cli`, omp's resume path).
 *
 *     deno task bench:runtimes [--sizes 100M,1G] [--runs 3] [--runtimes node,bun]
 *
 * The files are omp-style (`cli gen --no-checkpoints`: what omp writes, so
 * our open walks back to the root over envelopes). pi's files have no title
 * slot, and pi's open truncates a file whose first line is not its header:
 * on Node both readers open a copy without the slot (made once next to the
 * generated file). Every measurement is a fresh process, ours and the peer's
 * alternating; open and context are timed inside the child, so the time of
 * starting the runtime and importing the code is not counted. Heap held is
 * `heapUsed` after a full GC with the session still referenced (the peer's
 * modules loaded too, as a user has them); buffers held the ArrayBuffers
 * then alive (outside heapUsed on V8; omp's oracle does not report them);
 * peak RSS the kernel's VmHWM.
 * Prints one JSON line per run, then a markdown table: times are medians,
 * heap held and peak RSS the largest of the runs; the ratio is the peer's
 * time over ours, in the same run. A peer that cannot open a file is tried
 * once.
 *
 * The driver runs on Deno; the children are `bench/_open_child.ts`, under
 * `npx --yes node@22` or `npx --yes bun@1.4.5`; omp's are its oracle's.
 * On Node the child runs as JavaScript (`deno bundle`), as Node users get
 * the package (JSR serves npm JavaScript): run as TypeScript, Node's type
 * stripper would add its own heap (some 3 MB) to every reader's figure.
 * Bun runs the TypeScript as it is.
 *
 * @module
 */

import { benchFile, OUT_DIR } from "./_files.ts";
import { childJson } from "./_child.ts";
import { parseSize } from "../src/gen/generate.ts";
import { askOmp, ompOracle } from "../tools/omp_oracle.ts";
import type { Reader, Run } from "./_open_child.ts";

type Runtime = "node" | "bun";

const MB = 1 << 20;
const round = (n: number): number => Math.round(n * 10) / 10;
const CHILD = new URL("./_open_child.ts", import.meta.url).pathname;
const PI_DIR = new URL("./peers/pi/", import.meta.url).pathname;
const PI_ENTRY = new URL(
  "./peers/pi/node_modules/@mariozechner/pi-coding-agent/dist/index.js",
  import.meta.url,
).href;
const RUNTIMES: Record<Runtime, { npx: string; peer: Reader }> = {
  node: { npx: "node@22", peer: "pi" },
  bun: { npx: "bun@1.4.5", peer: "omp" },
};

/** The path of `npx --yes <spec>`'s executable (fetched once by npx). */
async function executable(spec: string): Promise<string> {
  const out = await new Deno.Command("npx", {
    args: ["--yes", spec, "-e", "console.log(process.execPath)"],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const path = new TextDecoder().decode(out.stdout).trim();
  if (!out.success || path === "") throw new Error(`npx ${spec} failed`);
  return path;
}

/**
 * `_open_child.ts` as JavaScript, for Node (made once a run): split where
 * it imports a reader, so each reader's modules load as the child asks for
 * them, as from a package.
 */
async function bundledChild(): Promise<string> {
  const dir = `${OUT_DIR}open_child/`;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--code-splitting",
      "--outdir",
      dir,
      CHILD,
    ],
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!r.success) throw new Error("deno bundle of bench/_open_child.ts failed");
  return `${dir}_open_child.js`;
}

/** A fresh child (`child`: the .ts, or its bundle) under `exe`; its last JSON line. */
async function spawnChild(
  runtime: Runtime,
  exe: string,
  child: string,
  reader: "ours" | "pi",
  file: string,
): Promise<Run> {
  const flags = runtime === "node" ? ["--expose-gc"] : [];
  const r = await childJson<Run>(exe, [
    ...flags,
    child,
    reader,
    file,
    PI_ENTRY,
  ]);
  return "json" in r
    ? r.json
    : { reader, runtime, file, bytes: 0, error: r.error };
}

/** omp's open and context of `file`, once, in a fresh Bun process. */
async function ompRun(oracle: string, file: string): Promise<Run> {
  const bytes = (await Deno.stat(file)).size;
  const { json, stderr } = await askOmp(oracle, [
    "open-bench",
    file,
    "--as-cli",
    "--runs",
    "1",
  ]);
  const r = (json?.runs as Record<string, number>[] | undefined)?.[0];
  if (json === undefined || r === undefined || json.error !== undefined) {
    const why = json?.error ?? stderr.trim().split("\n").at(-1);
    return { reader: "omp", runtime: "bun", file, bytes, error: String(why) };
  }
  return {
    reader: "omp",
    runtime: String(json.runtime),
    file,
    bytes,
    openMs: r.openMs!,
    contextMs: r.buildContextMs!,
    heapBaseMB: round(
      Number((json.baseline as { heapUsed: number }).heapUsed) /
        MB,
    ),
    heapHeldMB: round(r.heapUsed! / MB),
    peakRssMB: round(Number(json.peakRss) / MB),
    messages: r.contextMessages!,
  };
}

/**
 * `file` without its title slot, as pi writes its files (made once): pi's
 * open takes the first line for its header and truncates a file whose
 * first line is not one.
 */
async function withoutTitleSlot(file: string): Promise<string> {
  const out = file.replace(/\.jsonl$/, ".no-title-slot.jsonl");
  try {
    await Deno.stat(out);
    return out;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const src = await Deno.open(file);
  const head = new Uint8Array(4096);
  const n = (await src.read(head)) ?? 0;
  const end = head.subarray(0, n).indexOf(10);
  const first = new TextDecoder().decode(head.subarray(0, Math.max(end, 0)));
  if (end < 0 || !first.startsWith('{"type":"title"')) {
    src.close();
    throw new Error(`${file} does not start with a title slot`);
  }
  await src.seek(end + 1, Deno.SeekMode.Start);
  const tmp = `${out}.partial`;
  const dst = await Deno.open(tmp, {
    write: true,
    create: true,
    truncate: true,
  });
  await src.readable.pipeTo(dst.writable); // closes both
  await Deno.rename(tmp, out);
  return out;
}

/** pi installed in `bench/peers/pi/` (`npm ci`, once). */
async function piInstalled(): Promise<void> {
  try {
    await Deno.stat(`${PI_DIR}node_modules/@mariozechner/pi-coding-agent`);
    return;
  } catch {
    // install below
  }
  console.error("bench:runtimes: installing pi in bench/peers/pi (npm ci)");
  const r = await new Deno.Command("npm", {
    args: ["ci", "--no-audit", "--no-fund"],
    cwd: PI_DIR,
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!r.success) throw new Error("npm ci in bench/peers/pi failed");
}

function median(runs: Run[], key: "openMs" | "contextMs"): number | undefined {
  const xs = runs.map((r) => r[key]).filter((x) => x !== undefined).sort((
    a,
    b,
  ) => a - b);
  return xs[Math.floor(xs.length / 2)];
}

/** Median open + context of the runs that did not fail. */
function total(runs: Run[]): number | undefined {
  const ok = runs.filter((r) => r.error === undefined);
  const o = median(ok, "openMs");
  return o === undefined ? undefined : o + (median(ok, "contextMs") ?? 0);
}

const ms = (t: number): string =>
  t >= 1000 ? `${(t / 1000).toFixed(1)} s` : `${Math.round(t)} ms`;
/** The largest of the runs' figures, to 0.1 MB below 100 MB (floors sit at 16). */
const mb = (xs: (number | undefined)[]): string => {
  const ys = xs.filter((x) => x !== undefined);
  if (ys.length === 0) return "–";
  const m = Math.max(...ys);
  return `${m < 100 ? m.toFixed(1) : Math.round(m)} MB`;
};

async function main(args: string[]): Promise<void> {
  const opt = (name: string): string | undefined => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const sizes = (opt("sizes") ?? "100M,1G").split(",").map(parseSize);
  const runs = Number(opt("runs") ?? "3");
  const runtimes = (opt("runtimes") ?? "node,bun").split(",") as Runtime[];
  const oracle = runtimes.includes("bun")
    ? await ompOracle("bench:runtimes")
    : undefined;
  if (runtimes.includes("node")) await piInstalled();
  const exe: Partial<Record<Runtime, string>> = {};
  for (const rt of runtimes) exe[rt] = await executable(RUNTIMES[rt].npx);
  const child: Record<Runtime, string> = {
    node: runtimes.includes("node") ? await bundledChild() : CHILD,
    bun: CHILD,
  };
  const rows: string[] = [];
  for (const size of sizes) {
    const ompStyle = await benchFile(size, { checkpoints: false });
    const label = size >= 1024 * MB
      ? `${round(size / 1024 / MB)} GB`
      : `${round(size / MB)} MB`;
    for (const rt of runtimes) {
      const peer = RUNTIMES[rt].peer;
      const file = rt === "node" ? await withoutTitleSlot(ompStyle) : ompStyle;
      const by: Record<string, Run[]> = { ours: [], [peer]: [] };
      for (let i = 0; i < runs; i++) {
        const ours = await spawnChild(rt, exe[rt]!, child[rt], "ours", file);
        by.ours!.push(ours);
        console.log(JSON.stringify({ size: label, ...ours }));
        // A peer that cannot open the file fails the same way each time.
        if (by[peer]!.some((r) => r.error !== undefined)) continue;
        const theirs = peer === "pi"
          ? await spawnChild(rt, exe[rt]!, child[rt], "pi", file)
          : oracle === undefined
          ? { reader: peer, runtime: rt, file, bytes: 0, error: "no oracle" }
          : await ompRun(oracle, file);
        by[peer]!.push(theirs);
        console.log(JSON.stringify({ size: label, ...theirs }));
      }
      const ourTime = total(by.ours!);
      for (const reader of ["ours", peer]) {
        const rs = by[reader]!;
        const t = total(rs);
        const failed = rs.find((r) => r.error !== undefined)?.error;
        const ratio = reader === "ours" || t === undefined ||
            ourTime === undefined
          ? ""
          : `${round(t / ourTime)}×`;
        const version = rs[0]?.runtime ?? RUNTIMES[rt].npx;
        rows.push(
          `| ${label} omp-style | ${version} | ${reader} | ${
            t === undefined ? `cannot (${failed})` : ms(t)
          } | ${mb(rs.map((r) => r.heapHeldMB))} | ${
            mb(rs.map((r) => r.buffersHeldMB))
          } | ${mb(rs.map((r) => r.peakRssMB))} | ${
            rs.find((r) => r.messages !== undefined)?.messages ?? "–"
          } | ${ratio || (reader === "ours" ? "1×" : "–")} |`,
        );
      }
    }
  }
  console.log(
    `\n| file | runtime | reader | open + context | heap held | buffers held | peak RSS | messages | peer / ours |
| ---- | ------- | ------ | -------------: | --------: | -----------: | -------: | -------: | ----------: |
${rows.join("\n")}`,
  );
  console.log(`\nmedians of ${runs}; generated files in ${OUT_DIR}`);
}

if (import.meta.main) await main(Deno.args);
