/**
 * The parts of a usage pass: what a call is (`requestUsage`), the exact
 * sum, and the chunked read at its edges (a key across two chunks, a line
 * longer than a chunk, a last line without its newline).
 */

import { deepStrictEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import type { SessionEntry } from "../../src/format/entries.ts";
import { requestUsage } from "../../src/format/usage.ts";
import { ExactSum } from "../../src/usage/_tally.ts";
import { buildIndex } from "./_usage_dirs.ts";
import { reported } from "../_indexed.ts";

const entry = (e: Record<string, unknown>) => e as unknown as SessionEntry;

function call(more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    role: "assistant",
    content: [],
    api: "a",
    provider: "p",
    model: "m",
    usage: { input: 10, output: 2, cost: { total: 0.5 } },
    timestamp: 1000,
    ...more,
  };
}

Deno.test("requestUsage() reads a call as omp-stats does", async (t) => {
  await t.step(
    "a turn without a stop reason failed: error with a message, else aborted",
    () => {
      const of = (m: Record<string, unknown>) =>
        requestUsage(entry({ type: "message", id: "a", message: call(m) }))
          ?.stopReason;
      equal(of({}), "aborted");
      equal(of({ errorMessage: "boom" }), "error");
      equal(of({ stopReason: "length", errorMessage: "x" }), "length");
    },
  );
  await t.step(
    "a side call without one stopped; its time is the entry's",
    () => {
      const u = requestUsage(entry({
        type: "model_usage",
        id: "t",
        timestamp: "2026-01-01T00:00:00.000Z",
        api: "a",
        provider: "p",
        model: "m",
        usage: { input: 1, output: 1 },
      }));
      deepStrictEqual([u?.stopReason, u?.timestamp, u?.sideCall], [
        "stop",
        Date.parse("2026-01-01T00:00:00.000Z"),
        true,
      ]);
    },
  );
  await t.step("a cost without a total is the sum of its parts", () => {
    const u = requestUsage(entry({
      type: "message",
      id: "a",
      message: call({
        usage: { input: 1, cost: { input: 0.25, output: 0.5 } },
      }),
    }));
    deepStrictEqual([u?.cost, u?.unpriced, u?.malformed], [0.75, false, false]);
  });
  await t.step("no cost, or a zero cost for tokens used, is unpriced", () => {
    const of = (usage: unknown) =>
      requestUsage(
        entry({ type: "message", id: "a", message: call({ usage }) }),
      )
        ?.unpriced;
    equal(of({ input: 5 }), true);
    equal(of({ input: 5, cost: { total: 0 } }), true);
    equal(of({ cost: { total: 0 } }), false);
  });
  await t.step("a bad figure counts 0 and marks the call", () => {
    for (const bad of ["7", -7, 7.5, Infinity, true]) {
      const u = requestUsage(entry({
        type: "message",
        id: "a",
        message: call({ usage: { input: bad, output: 3 } }),
      }));
      deepStrictEqual([u?.input, u?.output, u?.malformed], [0, 3, true]);
    }
  });
  await t.step("no id, no api, no usage object, another role: no call", () => {
    for (
      const e of [
        { type: "message", message: call() },
        { type: "message", id: "a", message: call({ api: undefined }) },
        { type: "message", id: "a", message: call({ usage: "lots" }) },
        { type: "message", id: "a", message: call({ role: "user" }) },
      ]
    ) equal(requestUsage(entry(e)), undefined);
  });
});

Deno.test("ExactSum gives the correctly rounded sum, whatever the order", () => {
  const s = new ExactSum();
  for (let i = 0; i < 10; i++) s.add(0.1);
  equal(s.value(), 1); // a plain loop gives 0.9999999999999999
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { maxLength: 50 }),
      (xs) => {
        const a = new ExactSum(), b = new ExactSum(), c = new ExactSum();
        xs.forEach((x) => a.add(x));
        [...xs].reverse().forEach((x) => b.add(x));
        a.partials().forEach((x) => c.add(x));
        equal(a.value(), b.value());
        equal(c.value(), a.value());
      },
    ),
  );
});

/** A data dir with one session of `lines` (after its header), written as given. */
async function dataDirWith(text: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "xdev-usage-" });
  const folder = join(dir, "sessions", "--w--");
  await Deno.mkdir(folder, { recursive: true });
  const header = JSON.stringify({
    type: "session",
    version: 3,
    id: "s",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/w",
  });
  await Deno.writeTextFile(join(folder, "s.jsonl"), `${header}\n${text}`);
  return dir;
}

function line(id: string, pad = 0): string {
  const message = call({ content: [{ type: "text", text: "x".repeat(pad) }] });
  return JSON.stringify({ type: "message", id, message });
}

Deno.test("reported() reads calls at a chunk's edges, from the files as from the index", async (t) => {
  const chunk = 1 << 20;
  const header = 92; // the header line above, with its newline
  const cases: [string, string, number][] = [];
  // A "usage" key across the first two chunks, at each of its offsets.
  for (let shift = -8; shift <= 8; shift++) {
    const probe = line("a", 0);
    const key = probe.indexOf('"usage"');
    const pad = chunk - header - key + shift;
    cases.push([`key at chunk end ${shift}`, `${line("a", pad)}\n`, 1]);
  }
  // A short call across the first two chunks (kept whole into the
  // second), after a line without one, its "usage" before, across or after
  // the chunk's end.
  for (const before of [1, 40, 120, 200, 400]) {
    const call = line("c", 100);
    const filler = JSON.stringify({ type: "custom", data: "" });
    const pad = chunk - header - before - filler.length - 1;
    const text = `${filler.slice(0, -2)}${"x".repeat(pad)}"}\n${call}\n${
      line("d")
    }\n`;
    cases.push([`a short call ${before} bytes before the chunk end`, text, 2]);
  }
  cases.push([
    "a call longer than three chunks",
    `${line("a", 3 * chunk)}\n${line("b")}\n`,
    2,
  ]);
  // A last line without its newline counts when it is whole JSON, as omp
  // counts it; a torn one (a write under way) does not.
  cases.push([
    "a last line without its newline",
    `${line("a")}\n${line("b")}`,
    2,
  ]);
  cases.push([
    "a long line without its newline",
    `${line("a")}\n${line("b", 2 * chunk)}`,
    2,
  ]);
  cases.push([
    "a torn last line",
    `${line("a")}\n${line("b").slice(0, -3)}`,
    1,
  ]);
  cases.push([
    "a long torn last line",
    `${line("a")}\n${line("b", 2 * chunk).slice(0, -3)}`,
    1,
  ]);
  for (const [name, text, calls] of cases) {
    await t.step(name, async () => {
      const dir = await dataDirWith(text);
      try {
        const files = await reported(dir, { index: false });
        equal(files.totals.requests, calls);
        await buildIndex(dir);
        const indexed = await reported(dir);
        deepStrictEqual({ ...indexed, source: "files" }, files);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
});
