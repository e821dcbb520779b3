/**
 * A usage pass with helper threads gives the report of one thread: calls
 * counted in the files' order (a fork's copy in its parent, whoever read
 * which), the same skipped files in the same order, with large files read
 * in parts or whole; a helper that dies (at its start, or holding files it
 * claimed) leaves its files to the calling thread.
 */

import { deepStrictEqual, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { usageReport, type UsageReportOptions } from "../../mod.ts";
import { helperSettings } from "../../src/store/usage/_files.ts";
import { DYING_HELPERS } from "./_dying_helpers.ts";
import { tempDir } from "../_session_files.ts";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");

/** A seeded generator of numbers in [0, 1). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A data dir of `n` sessions over 6 folders: forks (and forks of forks)
 * copying an earlier session's lines, calls of several models and stop
 * reasons, malformed and unpriced figures, side calls, ids that are not
 * 8 hex digits, an id a file gives twice, subagents, a torn last line,
 * and files that are not sessions.
 */
async function writeDataDir(root: string, n: number, seed: number) {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const bodies: string[][] = [];
  let nextId = 1;
  const hex = () => (nextId++ * 2654435761 >>> 0).toString(16).padStart(8, "0");
  const call = (id: string, ms: number): string => {
    const side = rnd() < 0.1;
    const usage: Record<string, unknown> = {
      input: rnd() < 0.03 ? "12" : Math.floor(rnd() * 5000),
      output: Math.floor(rnd() * 900),
      cacheRead: Math.floor(rnd() * 20000),
      cacheWrite: Math.floor(rnd() * 300),
    };
    if (rnd() > 0.08) usage.cost = { total: Math.round(rnd() * 1e6) / 1e7 };
    const model = {
      api: "anthropic-messages",
      provider: pick(["anthropic", "openai", "google"]),
      model: pick(["m-large", "m-small", "m-mini"]),
      usage,
    };
    if (side) {
      return JSON.stringify({
        type: "model_usage",
        id,
        parentId: null,
        timestamp: new Date(ms).toISOString(),
        ...model,
      });
    }
    return JSON.stringify({
      type: "message",
      id,
      parentId: null,
      timestamp: new Date(ms).toISOString(),
      message: {
        role: "assistant",
        content: [{ type: "text", text: "x".repeat(Math.floor(rnd() * 900)) }],
        ...model,
        stopReason: pick(["stop", "stop", "toolUse", "error", "aborted"]),
        timestamp: ms,
      },
    });
  };
  for (let i = 0; i < n; i++) {
    const folder = join(root, "sessions", `--p${i % 6}--`);
    await Deno.mkdir(folder, { recursive: true });
    const created = T0 + i * 60_000;
    const id = `01900000-0000-7000-8000-${String(i).padStart(12, "0")}`;
    const name = `${
      new Date(created).toISOString().replace(/[:.]/g, "-")
    }_${id}`;
    const path = join(folder, `${name}.jsonl`);
    if (i % 37 === 5) {
      await Deno.writeTextFile(path, "not a session\n");
      bodies.push([]);
      continue;
    }
    const body: string[] = [];
    if (i > 0 && rnd() < 0.3) body.push(...pick(bodies)); // a fork's copy
    const calls = Math.floor(rnd() * 40);
    for (let k = 0; k < calls; k++) {
      const own = rnd() < 0.15 ? `msg-${i}-${k}` : hex();
      body.push(call(own, created + k * 1000));
    }
    if (body.length > 2 && rnd() < 0.2) body.push(body[1]!); // an id given twice
    bodies.push(body);
    const header = JSON.stringify({
      type: "session",
      version: 3,
      id,
      timestamp: new Date(created).toISOString(),
      cwd: `/p${i % 6}`,
    });
    let text = [header, ...body].join("\n") + "\n";
    if (i % 23 === 7) text += body.at(-1)?.slice(0, 40) ?? ""; // torn
    await Deno.writeTextFile(path, text);
    if (i % 19 === 3) { // a subagent, in the artifacts folder
      await Deno.mkdir(join(folder, name), { recursive: true });
      const sub = JSON.stringify({
        type: "session",
        version: 3,
        id: `${id}-sub`,
        timestamp: new Date(created + 1).toISOString(),
        cwd: `/p${i % 6}`,
      });
      await Deno.writeTextFile(
        join(folder, name, `${name}-sub.jsonl`),
        [sub, call(hex(), created + 5), call(hex(), created + 6)].join("\n"),
      );
    }
  }
}

async function report(
  dir: string,
  options: UsageReportOptions,
): Promise<{ report: unknown; skipped: string[] }> {
  const skipped: string[] = [];
  const r = await usageReport(dir, {
    ...options,
    index: false,
    onSkip: (path, why) => skipped.push(`${path}: ${why}`),
  });
  return { report: r, skipped };
}

Deno.test("usageReport() with helper threads gives the report of one thread, whoever read which file", async (t) => {
  await using dir = await tempDir();
  await writeDataDir(dir.path, 400, 17);
  const waits = () => new Promise<void>((r) => setTimeout(r, 40));
  for (
    const [when, change] of [
      ["started as the files are listed", { eagerFiles: 1, started: waits }],
      ["started as this thread reads", {
        eagerFiles: Infinity,
        afterMs: 0,
        leftMs: 0,
        started: waits,
      }],
      ["every file over 2 KB read in parts of 1.5 KB", {
        eagerFiles: 1,
        statFew: Infinity,
        splitFrom: 2048,
        partBytes: 1500,
        started: waits,
      }],
      ["in parts, on this thread alone (no helper started)", {
        eagerFiles: Infinity,
        eagerBytes: Infinity,
        afterMs: Infinity,
        statFew: Infinity,
        splitFrom: 2048,
        partBytes: 1500,
      }],
    ] as const
  ) {
    await t.step(when, async () => {
      const settings = helperSettings(change);
      try {
        let posted = 0;
        for (const by of ["session", "day"] as const) {
          const alone = await report(dir.path, { by, helpers: 0 });
          ok(alone.skipped.length > 0, "some files are not sessions");
          const files = settings.pieces();
          for (const helpers of [1, 3]) {
            for (let run = 0; run < 2; run++) {
              const helped = await report(dir.path, { by, helpers });
              deepStrictEqual(helped, alone, `by ${by}, ${helpers} helpers`);
              posted += settings.posted();
              if ("splitFrom" in change) {
                ok(settings.pieces() > 2 * files, "files read in parts");
              }
            }
          }
        }
        if (change.eagerFiles !== Infinity || change.afterMs !== Infinity) {
          ok(posted > 0, "helpers read some of the files");
        }
      } finally {
        settings.restore();
      }
    });
  }
});

Deno.test("usageReport() reads itself the files of a helper that dies", async (t) => {
  await using dir = await tempDir();
  await writeDataDir(dir.path, 150, 29);
  const alone = await report(dir.path, { by: "session", helpers: 0 });
  for (const [what, module] of DYING_HELPERS) {
    await t.step(what, async () => {
      const settings = helperSettings({
        leftMs: 0,
        afterMs: 0,
        eagerFiles: Infinity,
        module,
        started: () => new Promise((r) => setTimeout(r, 300)),
      });
      try {
        const helped = await report(dir.path, { by: "session", helpers: 2 });
        deepStrictEqual(helped, alone);
        deepStrictEqual(settings.posted(), 0, "the helper posted nothing");
      } finally {
        settings.restore();
      }
    });
  }
});

Deno.test("usageReport() where the runtime has no Worker nor SharedArrayBuffer reads on one thread", async () => {
  await using dir = await tempDir();
  await writeDataDir(dir.path, 60, 41);
  const alone = await report(dir.path, { by: "model", helpers: 0 });
  const script = join(dir.path, "no_threads.ts");
  const mod = new URL("../../mod.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `delete (globalThis as any).Worker;
delete (globalThis as any).SharedArrayBuffer;
const { usageReport } = await import(${JSON.stringify(mod)});
const skipped: string[] = [];
const r = await usageReport(${JSON.stringify(dir.path)}, {
  by: "model", index: false, helpers: 2,
  onSkip: (path: string, why: string) => skipped.push(path + ": " + why),
});
console.log(JSON.stringify({ report: r, skipped }));`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  ok(out.success, stderr);
  deepStrictEqual(
    JSON.parse(new TextDecoder().decode(out.stdout)),
    JSON.parse(JSON.stringify(alone)),
  );
});

Deno.test("usageReport() with helpers reports progress that only grows, to every byte of every file", async () => {
  await using dir = await tempDir();
  await writeDataDir(dir.path, 200, 53);
  let bytes = 0;
  const walk = async (folder: string): Promise<void> => {
    for await (const e of Deno.readDir(folder)) {
      const path = join(folder, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".jsonl")) bytes += (await Deno.stat(path)).size;
    }
  };
  await walk(join(dir.path, "sessions"));
  const settings = helperSettings({
    eagerFiles: 1,
    statFew: Infinity,
    splitFrom: 2048,
    partBytes: 1500,
    started: () => new Promise((r) => setTimeout(r, 300)),
  });
  try {
    const seen: [number, number][] = [];
    await usageReport(dir.path, {
      index: false,
      helpers: 1,
      onProgress: (done, total) => seen.push([done, total]),
    });
    ok(
      settings.posted() > 0,
      `the helper read some of the pieces (${settings.posted()} of ${settings.pieces()})`,
    );
    ok(seen.every(([, total]) => total === bytes), "the total is every byte");
    for (let k = 1; k < seen.length; k++) {
      ok(seen[k]![0] >= seen[k - 1]![0], `progress went back at ${k}`);
    }
    deepStrictEqual(seen.at(-1), [bytes, bytes]);
  } finally {
    settings.restore();
  }
});

Deno.test("usageReport() refuses a count of helpers that is not a whole number from 0 to 64", async () => {
  await using dir = await tempDir();
  await writeDataDir(dir.path, 3, 5);
  for (const helpers of [-1, 1.5, 65, NaN]) {
    await rejects(
      () => usageReport(dir.path, { helpers }),
      RangeError,
      `usage, ${helpers}`,
    );
  }
});
