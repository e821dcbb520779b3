/**
 * One file's usage pass (`fileCalls`): the calls a parse of every line
 * finds, in order, with short and long lines, CRLF, a torn last line and
 * one without its newline, the head read first; and a read that fails
 * midway, which keeps the calls before it and names the file.
 */

import { deepStrictEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { type FileHandle, realFs, setFs } from "../../src/_fs.ts";
import type { SessionEntry } from "../../src/format/entries.ts";
import { type RequestUsage, requestUsage } from "../../src/format/usage.ts";
import { READ_BYTES } from "../../src/read/lines.ts";
import { fileCalls } from "../../src/usage/_file_calls.ts";
import { tempDir } from "../_session_files.ts";
import { reported } from "../_indexed.ts";

const CHUNK = 4096;

/** A session's lines: calls of every length (some longer than a chunk), other entries between. */
function sessionText(
  kinds: { call: boolean; pad: number; crlf: boolean }[],
  ending: "newline" | "none" | "torn",
): string {
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: "01900000-0000-7000-8000-0000000000aa",
      timestamp: "2026-03-01T10:00:00.000Z",
      cwd: "/p",
    }),
  ];
  kinds.forEach((k, i) => {
    const id = (i + 1).toString(16).padStart(8, "0");
    const text = "w".repeat(k.pad);
    const line = k.call
      ? JSON.stringify({
        type: "message",
        id,
        parentId: null,
        timestamp: "2026-03-01T10:00:00.000Z",
        message: {
          role: "assistant",
          content: [{ type: "text", text }],
          api: "a",
          provider: "p",
          model: "m",
          usage: { input: i, output: 1, cost: { total: i / 1000 } },
          stopReason: "stop",
          timestamp: 1000 + i,
        },
      })
      : JSON.stringify({
        type: "message",
        id,
        parentId: null,
        timestamp: "2026-03-01T10:00:00.000Z",
        message: { role: "user", content: text },
      });
    lines.push(k.crlf ? `${line}\r` : line);
  });
  let text = lines.join("\n");
  if (ending === "newline") text += "\n";
  if (ending === "torn") text = text.slice(0, text.length - 9);
  return text;
}

/** Lines for {@linkcode sessionText}: calls or not, padded by one of `pads`, CRLF or not. */
function lineKinds(pads: fc.Arbitrary<number>[], maxLength: number) {
  return fc.array(
    fc.record({
      call: fc.boolean(),
      pad: fc.oneof(...pads),
      crlf: fc.boolean(),
    }),
    { minLength: 0, maxLength, size: "medium" },
  );
}

/** The calls of every whole line, each parsed: what a pass must find. */
function parsedCalls(text: string): RequestUsage[] {
  const out: RequestUsage[] = [];
  for (const [i, raw] of text.split("\n").entries()) {
    if (i === 0) continue; // the header
    try {
      const u = requestUsage(JSON.parse(raw) as SessionEntry);
      if (u !== undefined) out.push(u);
    } catch {
      // torn
    }
  }
  return out;
}

async function calls(
  path: string,
): Promise<{ heads: number; calls: RequestUsage[]; skip?: string }> {
  const out: RequestUsage[] = [];
  let heads = 0;
  const skip = await fileCalls(path, (await Deno.stat(path)).size, {
    head: () => heads++,
    call: (u) => out.push(u),
    bytes: () => {},
    oversized: () => {},
  });
  return skip === undefined
    ? { heads, calls: out }
    : { heads, calls: out, skip };
}

Deno.test("fileCalls() finds the calls a parse of every line finds, in order, in a small file read whole and in a large one", async (t) => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  // A user's turn longer than a read makes a file large, and the lines
  // after it fall across the reads' ends.
  const large = JSON.stringify({
    type: "message",
    id: "0000abcd",
    parentId: null,
    timestamp: "2026-03-01T10:00:00.000Z",
    message: { role: "user", content: "u".repeat(READ_BYTES + 5000) },
  });
  for (
    const [what, big, runs] of [["small", false, 200], [
      "large",
      true,
      15,
    ]] as const
  ) {
    await t.step(what, async () => {
      let found = 0;
      await fc.assert(
        fc.asyncProperty(
          lineKinds(
            [
              fc.integer({ min: 0, max: 300 }),
              fc.integer({ min: 900, max: 1_300 }),
              fc.integer({ min: CHUNK - 400, max: 2 * CHUNK }),
              fc.integer({ min: 60_000, max: 140_000 }), // longer than kept
            ],
            60,
          ),
          fc.constantFrom("newline", "none", "torn" as const),
          async (kinds, ending) => {
            let text = sessionText(kinds, ending);
            if (big) {
              const [header, ...rest] = text.split("\n");
              text = [header, large, ...rest].join("\n");
            }
            await Deno.writeTextFile(path, text);
            const read = await calls(path);
            equal(read.heads, read.skip === undefined ? 1 : 0); // a torn header: none
            deepStrictEqual(read.calls, parsedCalls(text));
            found += read.calls.length;
          },
        ),
        { numRuns: runs },
      );
      equal(found > 10, true, `calls: ${found}`);
    });
  }
});

Deno.test("fileCalls() reads a head only within the file's first 4096 bytes, as the list does", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  const header = (pad: number) =>
    JSON.stringify({
      type: "session",
      version: 3,
      id: "s",
      timestamp: "2026-03-01T10:00:00.000Z",
      cwd: "/p",
      pad: "x".repeat(pad),
    });
  const body = sessionText([{ call: true, pad: 5000, crlf: false }], "newline")
    .split("\n").slice(1).join("\n");
  await Deno.writeTextFile(path, `${header(3900)}\n${body}`);
  deepStrictEqual((await calls(path)).skip, undefined);
  await Deno.writeTextFile(path, `${header(4100)}\n${body}`);
  deepStrictEqual(await calls(path), {
    heads: 0,
    calls: [],
    skip: "no complete header within the first 4096 bytes",
  });
  await Deno.writeTextFile(path, "");
  equal((await calls(path)).skip, "the file is empty");
  await Deno.writeTextFile(path, "not a session\n");
  equal((await calls(path)).skip, "the header is missing");
});

Deno.test("reported() counts the calls before a read that fails, and names the file it could not read", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--p--");
  await Deno.mkdir(folder, { recursive: true });
  const text = sessionText(
    Array.from(
      { length: 300 },
      () => ({ call: true, pad: 10_000, crlf: false }),
    ),
    "newline",
  );
  const path = join(folder, "s.jsonl");
  await Deno.writeTextFile(path, text);
  let reads = 0;
  const failing = (file: FileHandle): FileHandle => ({
    ...file,
    read: (p, position) => {
      if (++reads >= 2) return Promise.reject(new Error("the disk went away"));
      return file.read(p, position);
    },
  });
  const restore = setFs({
    ...realFs,
    open: async (p, o) => failing(await realFs.open(p, o)),
  });
  const skipped: string[] = [];
  let report;
  try {
    report = await reported(dir.path, {
      index: false,
      onSkip: (p, why) => skipped.push(`${p}: ${why}`),
    });
  } finally {
    restore();
  }
  deepStrictEqual(skipped, [`${path}: cannot read it: the disk went away`]);
  // The calls of the lines the first read holds whole.
  let end = 0;
  const whole = text.split("\n").slice(0, -1).filter((line) => {
    end += new TextEncoder().encode(line).length + 1;
    return end <= READ_BYTES;
  });
  equal(report.totals.requests, whole.length - 1); // the header is no call
  equal(report.totals.requests > 0, true);
});
