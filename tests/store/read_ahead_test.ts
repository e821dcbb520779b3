/**
 * Reads ahead (`fs/_read_ahead.ts`): a read started before the caller's
 * work is taken whole by the read that asks for it, other reads wait for
 * it, a failed one fails the read that takes it; and a usage pass that
 * reads ahead finds the calls a parse of every line finds.
 */

import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import type { SessionEntry } from "../../src/format/entries.ts";
import { type RequestUsage, requestUsage } from "../../src/format/usage.ts";
import { readAheadAt } from "../../src/fs/_read_ahead.ts";
import { type Fs, type FsHandle, realFs } from "../../src/fs/_seam.ts";
import { passPath } from "../../src/store/usage/_file_pass.ts";
import { usageFinder } from "../../src/store/usage/_finder.ts";
import { countingReads } from "../_fs_seam.ts";
import { tempDir } from "../_session_files.ts";

const enc = new TextEncoder();

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

/** A file of `n` bytes, byte i being `i % 251`. */
async function numbered(dir: string, n: number): Promise<string> {
  const path = join(dir, "f.bin");
  await Deno.writeFile(path, Uint8Array.from({ length: n }, (_, i) => i % 251));
  return path;
}

function isNumbered(p: Uint8Array, position: number): boolean {
  return p.every((b, i) => b === (position + i) % 251);
}

Deno.test("readAheadAt(): a read ahead starts at once, and the read of the same bytes takes it", async () => {
  await using dir = await tempDir();
  const path = await numbered(dir.path, 50_000);
  const count = { reads: 0 };
  using file = await countingReads(count).openHandle(path, { read: true });
  const source = readAheadAt(file, 50_000);
  const p = new Uint8Array(10_000);
  for (const position of [0, 10_000, 31_000]) { // where the cursor is, then not
    const before = count.reads;
    source.readAhead(p, position);
    // Before any microtask: a read that starts later would start only
    // once the caller's work is done, and hide none of it.
    equal(count.reads, before + 1, "the asynchronous read is under way");
    equal(await source.readAt(p, position), 10_000);
    equal(isNumbered(p, position), true);
    equal(count.reads, before + 1, "taken, not read again");
  }
  source.readAhead(p.subarray(0, 5_000), 48_000);
  equal(
    await source.readAt(p.subarray(0, 5_000), 48_000),
    2_000,
    "short at the end",
  );
  equal(isNumbered(p.subarray(0, 2_000), 48_000), true);
  await source.settle();
});

Deno.test("readAheadAt(): another read waits for the read ahead, which can still be taken; one not taken is dropped by the next", async () => {
  await using dir = await tempDir();
  const path = await numbered(dir.path, 50_000);
  const count = { reads: 0 };
  using file = await countingReads(count).openHandle(path, { read: true });
  const source = readAheadAt(file, 50_000);
  const ahead = new Uint8Array(8_000);
  const other = new Uint8Array(3_000);
  source.readAhead(ahead, 20_000);
  equal(await source.readAt(other, 1_000), 3_000); // moves the cursor
  equal(isNumbered(other, 1_000), true);
  equal(await source.readAt(ahead, 20_000), 8_000);
  equal(isNumbered(ahead, 20_000), true);
  equal(count.reads, 1, "the other read was synchronous, the read ahead taken");
  // Not taken: the next read ahead goes after it, and is right.
  source.readAhead(ahead, 0);
  source.readAhead(ahead, 40_000);
  equal(await source.readAt(ahead, 40_000), 8_000);
  equal(isNumbered(ahead, 40_000), true);
  // A read of the same place but other bytes does not take it.
  source.readAhead(ahead, 5_000);
  equal(await source.readAt(ahead.subarray(0, 100), 5_000), 100);
  equal(isNumbered(ahead.subarray(0, 100), 5_000), true);
  await source.settle();
});

Deno.test("readAheadAt(): a failed read ahead fails the read that takes it; one not taken fails nothing", async () => {
  await using dir = await tempDir();
  const path = await numbered(dir.path, 1_000);
  using real = await realFs.openHandle(path, { read: true });
  let fail = true;
  const file = new Proxy(real, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === "read" && fail) {
        return () => Promise.reject(new Error("disk gone"));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as FsHandle;
  const source = readAheadAt(file, 1_000);
  const p = new Uint8Array(100);
  source.readAhead(p, 0);
  await rejects(source.readAt(p, 0), /disk gone/);
  source.readAhead(p, 100); // fails, never taken
  equal(await source.readAt(new Uint8Array(10), 500), 10, "a read after it");
  await source.settle();
  fail = false;
  source.readAhead(p, 200);
  equal(await source.readAt(p, 200), 100);
  equal(isNumbered(p, 200), true);
  await source.settle();
});

/** A session of calls and other entries, some lines longer than a chunk. */
function sessionText(
  kinds: { call: boolean; pad: number; crlf: boolean }[],
  torn: boolean,
): string {
  const lines = [JSON.stringify({
    type: "session",
    version: 3,
    id: "01900000-0000-7000-8000-0000000000ab",
    timestamp: "2026-03-01T10:00:00.000Z",
    cwd: "/p",
  })];
  kinds.forEach((k, i) => {
    const message = k.call
      ? {
        role: "assistant",
        content: [{ type: "text", text: "é".repeat(k.pad) }],
        api: "a",
        provider: "p",
        model: `m${i % 3}`,
        usage: { input: i, output: 2, cost: { total: i / 1000 } },
        stopReason: "stop",
        timestamp: 1,
      }
      : { role: "user", content: "u".repeat(k.pad) };
    const line = JSON.stringify({
      type: "message",
      id: (i + 1).toString(16).padStart(8, "0"),
      parentId: i === 0 ? null : i.toString(16).padStart(8, "0"),
      timestamp: "2026-03-01T10:00:00.000Z",
      message,
    });
    lines.push(k.crlf ? `${line}\r` : line);
  });
  const text = lines.join("\n") + "\n";
  return torn ? text.slice(0, -20) : text;
}

/** The calls of every whole line, each parsed: what the pass must find. */
function parsedCalls(text: string): RequestUsage[] {
  const lines = text.split("\n");
  const out: RequestUsage[] = [];
  for (const [i, raw] of lines.entries()) {
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
  const chunk = 4096;
  let ahead = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          call: fc.boolean(),
          pad: fc.oneof(
            fc.integer({ min: 0, max: 400 }),
            fc.integer({ min: 900, max: 1_300 }), // lines about a reserve long
            fc.integer({ min: 2_000, max: 7_000 }), // longer than a chunk
          ),
          crlf: fc.boolean(),
        }),
        { minLength: 0, maxLength: 60 },
      ),
      fc.boolean(),
      async (kinds, torn) => {
        const text = sessionText(kinds, torn);
        await Deno.writeTextFile(path, text);
        const pass = async (fs: Fs) => {
          const out: RequestUsage[] = [];
          await passPath(fs, path, usageFinder(chunk), new Uint8Array(chunk), {
            head: () => {},
            request: (u) => out.push(u),
            progress: () => {},
          });
          return out;
        };
        const count = { reads: 0 };
        const withAhead = await pass(countingReads(count));
        const expected = parsedCalls(text);
        deepStrictEqual(withAhead, expected);
        deepStrictEqual(await pass(syncOnly), expected, "no reads ahead");
        if (enc.encode(text).length >= 4 * chunk) {
          equal(count.reads > 0, true, "a file of four chunks is read ahead");
        }
        ahead += count.reads;
      },
    ),
    { numRuns: 200 },
  );
  equal(ahead > 100, true, `reads ahead: ${ahead}`);
});
