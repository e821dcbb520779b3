/**
 * A file's usage pass in parts (`passPath` with a range, as helper threads
 * read a large file): the parts' calls, in order, are the whole file's,
 * wherever the cuts fall (in a line, at its start, on a line feed, in a
 * line longer than a chunk, past the end), with short and long lines,
 * CRLF, a torn last line and one without its newline; only the first part
 * reads the head. And a whole file read ahead (`readAheadAt` in
 * `fs/_read.ts`) gives the calls a parse of every line gives.
 */

import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import type { SessionEntry } from "../../src/format/entries.ts";
import { type RequestUsage, requestUsage } from "../../src/format/usage.ts";
import { type Fs, realFs } from "../../src/fs/_seam.ts";
import { type FileRange, passPath } from "../../src/store/usage/_file_pass.ts";
import { usageFinder } from "../../src/store/usage/_finder.ts";
import { countingReads } from "../_fs_seam.ts";
import { tempDir } from "../_session_files.ts";

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

async function calls(
  path: string,
  range?: FileRange,
  fs: Fs = realFs,
): Promise<{ heads: number; calls: RequestUsage[] }> {
  const finder = usageFinder(CHUNK);
  const scratch = new Uint8Array(CHUNK);
  const out: RequestUsage[] = [];
  let heads = 0;
  await passPath(fs, path, finder, scratch, {
    head: () => heads++,
    request: (u) => out.push(u),
    progress: () => {},
  }, range);
  return { heads, calls: out };
}

Deno.test("passPath() in parts gives the whole file's calls, in order, wherever the cuts fall", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  await fc.assert(
    fc.asyncProperty(
      lineKinds(
        [
          fc.integer({ min: 0, max: 300 }),
          fc.integer({ min: CHUNK - 400, max: 3 * CHUNK }),
        ],
        40,
      ),
      fc.constantFrom("newline", "none", "torn" as const),
      fc.array(fc.integer({ min: 1, max: 1050 }), {
        minLength: 1,
        maxLength: 5,
      }),
      async (kinds, ending, perMille) => {
        const text = sessionText(kinds, ending);
        await Deno.writeTextFile(path, text);
        const whole = await calls(path);
        const size = new TextEncoder().encode(text).length;
        const cuts = [
          ...new Set(perMille.map((f) => Math.floor(f / 1000 * size))),
        ]
          .filter((c) => c > 0).sort((a, b) => a - b);
        const bounds = [0, ...cuts, Infinity];
        const parts: RequestUsage[] = [];
        for (let k = 0; k + 1 < bounds.length; k++) {
          const part = await calls(path, {
            from: bounds[k]!,
            to: bounds[k + 1]!,
          });
          equal(
            part.heads,
            k === 0 ? whole.heads : 0,
            "only the first part reads the head",
          );
          parts.push(...part.calls);
        }
        deepStrictEqual(parts, whole.calls, `cuts ${cuts.join(", ")}`);
      },
    ),
    { numRuns: 150 },
  );
});

Deno.test("passPath() in parts: a cut at each byte of a small file", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  const text = sessionText([
    { call: true, pad: 10, crlf: false },
    { call: false, pad: 5, crlf: true },
    { call: true, pad: CHUNK + 100, crlf: false },
    { call: true, pad: 0, crlf: true },
  ], "none");
  await Deno.writeTextFile(path, text);
  const whole = await calls(path);
  equal(whole.calls.length, 3);
  const size = new TextEncoder().encode(text).length;
  for (let cut = 1; cut <= size + 1; cut++) {
    const a = await calls(path, { from: 0, to: cut });
    const b = await calls(path, { from: cut, to: Infinity });
    deepStrictEqual([...a.calls, ...b.calls], whole.calls, `cut at ${cut}`);
  }
});

/** The real filesystem, its files reading only synchronously: no reads ahead. */
const syncOnly: Fs = {
  ...realFs,
  openSync: (path, options) =>
    new Proxy(realFs.openSync(path, options), {
      get(target, key) {
        if (key === "read") return undefined;
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }),
};

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

Deno.test("passPath() reading ahead finds the calls a parse of every line finds, as it does without reading ahead", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  let ahead = 0;
  await fc.assert(
    fc.asyncProperty(
      lineKinds(
        [
          fc.integer({ min: 0, max: 300 }),
          fc.integer({ min: 900, max: 1_300 }), // about a chunk's reserve
          fc.integer({ min: CHUNK - 400, max: 2 * CHUNK }),
        ],
        60,
      ),
      fc.constantFrom("newline", "none", "torn" as const),
      async (kinds, ending) => {
        const text = sessionText(kinds, ending);
        await Deno.writeTextFile(path, text);
        const count = { reads: 0 };
        const read = await calls(path, undefined, countingReads(count));
        const expected = parsedCalls(text);
        deepStrictEqual(read.calls, expected);
        deepStrictEqual(
          (await calls(path, undefined, syncOnly)).calls,
          expected,
        );
        if (new TextEncoder().encode(text).length >= 4 * CHUNK) {
          ok(count.reads > 0, "a file of four chunks is read ahead");
        }
        ahead += count.reads;
      },
    ),
    { numRuns: 200 },
  );
  ok(ahead > 100, `reads ahead: ${ahead}`);
});
