/**
 * The usage pass over the files of a generated data dir (forks and forks of
 * forks, several models and stop reasons, malformed and unpriced figures,
 * side calls, ids that are not 8 hex digits, an id a file gives twice,
 * subagents, torn last lines, files that are not sessions): the report the
 * index gives, the files skipped, and progress that only grows, to every
 * byte.
 */

import { deepStrictEqual, ok } from "node:assert/strict";
import { join } from "node:path";
import type { UsageReportOptions } from "../../mod.ts";
import { tempDir } from "../_session_files.ts";
import { buildIndex } from "./_usage_dirs.ts";
import { reported } from "../_indexed.ts";

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
  const r = await reported(dir, {
    ...options,
    index: false,
    onSkip: (path, why) => skipped.push(`${path}: ${why}`),
  });
  return { report: r, skipped };
}

Deno.test("reported() over a generated data dir: the files give the index's report, and say which are no session", async () => {
  await using dir = await tempDir();
  await writeDataDir(dir.path, 400, 17);
  const files: Record<string, { report: unknown; skipped: string[] }> = {};
  for (const by of ["session", "day", "model"] as const) {
    files[by] = await report(dir.path, { by });
    ok(files[by].skipped.length > 0, "some files are not sessions");
    ok(
      files[by].skipped.every((s) => s.endsWith(": the header is missing")),
      files[by].skipped.join("\n"),
    );
  }
  await buildIndex(dir.path);
  for (const by of ["session", "day", "model"] as const) {
    const indexed = await reported(dir.path, { by });
    deepStrictEqual(
      { ...indexed, source: "files" },
      files[by]!.report,
      `by ${by}`,
    );
    // Read again (the files in another order of completion), the same.
    deepStrictEqual(await report(dir.path, { by }), files[by]);
  }
});

Deno.test("reported() reports progress that only grows, to every byte of every file", async () => {
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
  const seen: [number, number][] = [];
  await reported(dir.path, {
    index: false,
    onProgress: (done, total) => seen.push([done, total]),
  });
  ok(seen.length > 1, "progress is reported as the files are read");
  ok(seen.every(([, total]) => total === bytes), "the total is every byte");
  for (let k = 1; k < seen.length; k++) {
    ok(seen[k]![0] >= seen[k - 1]![0], `progress went back at ${k}`);
  }
  deepStrictEqual(seen.at(-1), [bytes, bytes]);
});
