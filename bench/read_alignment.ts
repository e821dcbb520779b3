/**
 * Why `src/read/_read_buffer.ts` starts large read buffers one cache line
 * into their memory: a fresh process reads a 100 MB file from its end in
 * 4 MiB blocks into a fresh page-aligned buffer (as the first
 * `new Uint8Array(4 << 20)` of a Deno or Node process is), or into one 64
 * bytes in; the two alternate, medians. On CPUs whose kernel copy
 * (`rep movsb`) is slow between page-aligned source and destination (AMD
 * Zen), the aligned reads take several times longer; elsewhere the two are
 * alike. (In a process that freed a large buffer already, the allocator
 * hands out unaligned memory anyway: hence a fresh process per read.)
 *
 *     deno run -A bench/read_alignment.ts [FILE] [--runs 9]
 *     npx --yes node@22 bench/read_alignment.ts FILE
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import process from "node:process";

const BLOCK = 4 << 20;

/** Read `file` from its end in blocks into `buffer`; the time in ms. */
function readAll(file: string, buffer: Uint8Array): number {
  const t0 = performance.now();
  const fd = openSync(file, "r");
  try {
    for (let end = fstatSync(fd).size; end > 0;) {
      const start = Math.max(0, end - buffer.length);
      readSync(fd, buffer, 0, end - start, start);
      end = start;
    }
  } finally {
    closeSync(fd);
  }
  return performance.now() - t0;
}

/** One read in a fresh process of this runtime; its time in ms. */
function child(file: string, way: "aligned" | "shifted"): number {
  const self = new URL(import.meta.url).pathname;
  const pre = "Deno" in globalThis ? ["run", "-A"] : [];
  const out = execFileSync(
    process.execPath,
    [...pre, self, "--one", way, file],
    { encoding: "utf8" },
  );
  return Number(out.trim());
}

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(args: string[]): Promise<void> {
  const one = args.indexOf("--one");
  if (one >= 0) {
    const buffer = args[one + 1] === "aligned"
      ? new Uint8Array(BLOCK)
      : new Uint8Array(BLOCK + 64).subarray(64);
    console.log(readAll(args[one + 2]!, buffer));
    return;
  }
  const i = args.indexOf("--runs");
  const runs = i >= 0 ? Number(args[i + 1]) : 9;
  let file = args.find((a, j) =>
    !a.startsWith("--") && args[j - 1] !== "--runs"
  );
  if (file === undefined) {
    const { benchFile } = await import("./_files.ts");
    file = await benchFile(100 << 20, { checkpoints: false });
  }
  const aligned: number[] = [];
  const shifted: number[] = [];
  for (let r = 0; r < runs; r++) {
    aligned.push(child(file, "aligned"));
    shifted.push(child(file, "shifted"));
  }
  const a = median(aligned);
  const s = median(shifted);
  const runtime = "Deno" in globalThis
    ? "deno"
    : "Bun" in globalThis
    ? "bun"
    : `node ${process.version}`;
  console.log(JSON.stringify({
    runtime,
    file,
    runs,
    alignedMs: Math.round(a * 10) / 10,
    shiftedMs: Math.round(s * 10) / 10,
    ratio: Math.round((a / s) * 100) / 100,
  }));
}

if (import.meta.main) await main(process.argv.slice(2));
