/**
 * Shared by the usage tests (no tests of its own): the fixture data dirs
 * of `fixtures/usage/`, copied to a temp dir (an index is written into a
 * data dir), and an index built over one.
 */

import { join } from "node:path";
import { SessionIndex } from "../../mod.ts";

/** The fixture data dirs. */
export const USAGE_FIXTURES: string =
  new URL("../../fixtures/usage/", import.meta.url).pathname;

/** Every fixture data dir's name. */
export const USAGE_DIRS = [
  "forks",
  "no-cost",
  "malformed",
  "days",
  "legacy",
  "omp-s1",
  "omp-s2",
] as const;

/**
 * Copy a folder, recursively.
 *
 * @param from The folder.
 * @param to Where the copy goes (made).
 */
export async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    const a = join(from, e.name), b = join(to, e.name);
    if (e.isDirectory) await copyDir(a, b);
    else if (e.isFile) await Deno.copyFile(a, b);
  }
}

/**
 * A copy of a fixture data dir in a new temp dir, removed on dispose.
 *
 * @param name The fixture.
 * @returns The copy's path, disposable.
 */
export async function fixtureCopy(
  name: string,
): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: `xdev-usage-${name}-` });
  await copyDir(join(USAGE_FIXTURES, name), dir);
  return {
    dir,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/**
 * Make and refresh the session index of a data dir.
 *
 * @param dataDir The data dir.
 */
export async function buildIndex(dataDir: string): Promise<void> {
  using index = await SessionIndex.open(dataDir, { onWarning: () => {} });
  await index.refresh();
}

/** A fixed 1 MiB of base64, the stuff of the images below. */
function _base64(bytes: number): string {
  const alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let x = 2463534242;
  let s = "";
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    s += alphabet[(x >>> 0) % 64];
  }
  return s;
}

/**
 * Write an image-heavy session of about `bytes` (a pi-style file: images
 * inline in user messages, 2 MiB each, one answered call per image), in
 * a data dir's cwd folder, streamed a turn at a time.
 *
 * @param dataDir The data dir.
 * @param bytes The size to reach.
 * @returns The file and the calls it records.
 */
export async function writeImageSession(
  dataDir: string,
  bytes: number,
): Promise<{ path: string; calls: number }> {
  const folder = join(dataDir, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  const id = "01900000-0000-7000-8000-0000000000aa";
  const path = join(folder, `2026-05-01T10-00-00-000Z_${id}.jsonl`);
  using file = await Deno.open(path, {
    write: true,
    create: true,
    truncate: true,
  });
  const enc = new TextEncoder();
  const image = _base64(1 << 20).repeat(2);
  let written = 0;
  const write = async (line: unknown) => {
    const b = enc.encode(`${JSON.stringify(line)}\n`);
    for (let at = 0; at < b.length;) at += await file.write(b.subarray(at));
    written += b.length;
  };
  await write({
    type: "session",
    version: 3,
    id,
    timestamp: "2026-05-01T10:00:00.000Z",
    cwd: "/home/dev/app",
  });
  let calls = 0;
  for (let turn = 0; written < bytes; turn++) {
    const at = new Date(Date.parse("2026-05-01T10:00:00Z") + turn * 1000);
    await write({
      type: "message",
      id: `u${String(turn).padStart(7, "0")}`,
      parentId: turn === 0 ? null : `a${String(turn - 1).padStart(7, "0")}`,
      timestamp: at.toISOString(),
      message: {
        role: "user",
        content: [
          { type: "text", text: "What is wrong in this screenshot?" },
          { type: "image", data: image, mimeType: "image/png" },
        ],
        timestamp: at.getTime(),
      },
    });
    await write({
      type: "message",
      id: `a${String(turn).padStart(7, "0")}`,
      parentId: `u${String(turn).padStart(7, "0")}`,
      timestamp: at.toISOString(),
      message: {
        role: "assistant",
        content: [{ type: "text", text: "The button overlaps the label." }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: {
          input: 1600,
          output: 12,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 1612,
          cost: { input: 0.0048, output: 0.00018, total: 0.00498 },
        },
        stopReason: "stop",
        timestamp: at.getTime() + 500,
      },
    });
    calls++;
  }
  return { path, calls };
}

/** What a report in a fresh process cost in memory. */
export interface ReportMemory {
  /** Calls counted. */
  requests: number;
  /** RSS before the report (module loaded), in MiB. */
  rssBeforeMB: number;
  /** Peak RSS of the process after it (the kernel's VmHWM), in MiB. */
  peakMB: number;
  /** Milliseconds the report took. */
  ms: number;
}

/**
 * Run `usageReport(dataDir, { index: false })` in a fresh Deno process and
 * measure its memory.
 *
 * @param dataDir The data dir.
 * @returns The figures.
 */
export async function reportMemory(dataDir: string): Promise<ReportMemory> {
  const mod = new URL("../../mod.ts", import.meta.url).href;
  const code = `
    import { usageReport } from ${JSON.stringify(mod)};
    const kb = (k) => Number(new RegExp(k + ":\\\\s+(\\\\d+)").exec(Deno.readTextFileSync("/proc/self/status"))[1]) / 1024;
    await usageReport(Deno.makeTempDirSync(), { index: false }); // warm: the code
    const rssBeforeMB = kb("VmRSS");
    const t = performance.now();
    const r = await usageReport(${JSON.stringify(dataDir)}, { index: false });
    const ms = performance.now() - t;
    console.log(JSON.stringify({ requests: r.totals.requests, rssBeforeMB, peakMB: kb("VmHWM"), ms }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    cwd: new URL("../..", import.meta.url).pathname,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("the report's process failed");
  return JSON.parse(new TextDecoder().decode(out.stdout)) as ReportMemory;
}
