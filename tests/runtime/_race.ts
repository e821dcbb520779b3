/**
 * The conformance suite's race: this process (Node, Bun or Deno) and a Deno
 * process (`tests/_append_worker.ts`, as `concurrency_test.ts` runs it)
 * append to one session file at once, each under omp's lock. Afterwards
 * every line is whole, each writer's entries are all there, in order, each
 * the child of that writer's previous one.
 *
 * @module
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import process from "node:process";
import { Session } from "../../mod.ts";

const WORKER = new URL("../_append_worker.ts", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;
/** Entries each writer appends. */
const COUNT = 200;

/** The message of writer `w`'s i-th entry, as `_append_worker.ts` makes it. */
function message(w: number, i: number): { role: "user"; content: string } {
  const pad = "ü".repeat(w * 23 + (i % 7));
  return { role: "user", content: JSON.stringify({ w, i, pad }) };
}

const exists = (path: string) => stat(path).then(() => true, () => false);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Race this process's appends against a Deno writer's on one file.
 *
 * @param dir A fresh folder (the data dir).
 * @param runtime This runtime's name, for messages.
 */
export async function raceWithDeno(
  dir: string,
  runtime: string,
): Promise<void> {
  const base = await Session.create({ cwd: "/home/dev/app", dataDir: dir });
  await base.appendMessage({ role: "user", content: "race" });
  await base.ensureOnDisk();
  const path = base.path!;
  const leaf = base.leafId!;
  await base.close();
  const before = await readFile(path);
  const go = `${path}.go`;
  const deno = process.env.DENO || "deno";
  const child = spawn(
    deno,
    ["run", "-A", WORKER, path, "0", String(COUNT), "1", go, "0"],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout.on("data", (b) => out += b);
  child.stderr.on("data", (b) => out += b);
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", (err) =>
      reject(
        new Error(
          `cannot run Deno as "${deno}" (set $DENO) for the race on ${runtime}`,
          { cause: err },
        ),
      ));
    child.on("exit", (code) => resolve(code ?? 1));
  });
  const mine = await Session.open(path, { lockTimeoutMs: 30_000 });
  try {
    const deadline = Date.now() + 60_000;
    while (!await exists(`${go}.0`)) {
      const early = await Promise.race([exited, sleep(5).then(() => -1)]);
      if (early !== -1) assert.fail(`the Deno writer ended early: ${out}`);
      assert.ok(Date.now() < deadline, "the Deno writer never got ready");
    }
    await writeFile(go, "go\n");
    for (let i = 0; i < COUNT; i++) await mine.appendMessage(message(1, i));
  } finally {
    await mine.close();
  }
  assert.equal(await exited, 0, `the Deno writer failed: ${out}`);
  _check(before, await readFile(path), leaf);
}

/** Every line after `before` whole; per writer, all its entries, in order, chained. */
function _check(before: Uint8Array, after: Uint8Array, leaf: string): void {
  assert.deepEqual(after.subarray(0, before.length), before, "earlier bytes");
  const text = new TextDecoder().decode(after.subarray(before.length));
  assert.ok(text.endsWith("\n"), "the file ends in a whole line");
  const next = [0, 0];
  const last = [leaf, leaf];
  const lines = text.slice(0, -1).split("\n");
  for (const [n, line] of lines.entries()) {
    let entry: { id: string; parentId: string; message: { content: string } };
    try {
      entry = JSON.parse(line);
    } catch {
      assert.fail(`line ${n} after the race is not JSON (interleaved?)`);
    }
    const { w, i, pad } = JSON.parse(entry.message.content) as {
      w: 0 | 1;
      i: number;
      pad: string;
    };
    assert.equal(i, next[w], `writer ${w}: entry ${i} out of order`);
    assert.equal(pad, "ü".repeat(w * 23 + (i % 7)), `line ${n} is whole`);
    assert.equal(entry.parentId, last[w], `writer ${w}: entry ${i}'s parent`);
    next[w] = i + 1;
    last[w] = entry.id;
  }
  assert.deepEqual(next, [COUNT, COUNT], "no entry lost");
  assert.equal(lines.length, 2 * COUNT);
}
