/**
 * What `BackwardLines` (`read/_backward_lines.ts`) must give that the line
 * source's shared tests (`lines_test.ts`) do not reach: a floor (the lines
 * start after a file's head), a first block smaller than the largest (the
 * blocks double as the walk goes back), reads that come back short by any
 * amount, and each line's `lastByte`. The reference is a `lastIndexOf` per
 * line over the whole input.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { FileHandle } from "../../src/_fs.ts";
import {
  BackwardLines,
  type BackwardLinesOptions,
} from "../../src/read/_backward_lines.ts";
import { CR, LF } from "../../src/read/lines.ts";

/** What one step of a walk shows, copied out of the buffer. */
interface Step {
  start: number;
  contentEnd: number;
  lineEnd: number;
  terminated: boolean;
  lastByte: number;
  nul: boolean;
  oversized: boolean;
  /** The whole content (`complete`), or [] for a NUL or oversized line. */
  bytes: number[];
}

/** The steps a walk of `data[floor, ...)` must show, a `lastIndexOf` per line. */
function lastIndexOfSteps(data: Uint8Array, floor: number, max: number) {
  const out: Step[] = [];
  for (let end = data.length; end > floor;) {
    const terminated = data[end - 1] === LF;
    let contentEnd = terminated ? end - 1 : end;
    if (terminated && contentEnd > floor && data[contentEnd - 1] === CR) {
      contentEnd--;
    }
    const found = contentEnd > floor
      ? data.lastIndexOf(LF, contentEnd - 1)
      : -1;
    const start = found >= floor ? found + 1 : floor;
    const nul = contentEnd > start && data[start] === 0;
    const oversized = !nul && contentEnd - start > max;
    out.push({
      start,
      contentEnd,
      lineEnd: end,
      terminated,
      lastByte: start < contentEnd ? data[contentEnd - 1]! : -1,
      nul,
      oversized,
      bytes: nul || oversized ? [] : [...data.subarray(start, contentEnd)],
    });
    end = start;
  }
  return out;
}

/** A handle over `data` whose reads return at most `most` bytes. */
function source(data: Uint8Array, most: number): Pick<FileHandle, "read"> {
  return {
    read(p, position) {
      const n = Math.max(0, Math.min(p.length, most, data.length - position));
      p.set(data.subarray(position, position + n));
      return Promise.resolve(n);
    },
  };
}

/** Walk every line, each read whole; the heads are checked against `data` on the way. */
async function walk(
  lines: BackwardLines,
  data: Uint8Array,
  headBytes: number,
): Promise<Step[]> {
  const out: Step[] = [];
  for (let l = await lines.prev(); l !== undefined; l = await lines.prev()) {
    // The first bytes at hand: the line's own, at least `headBytes` of them.
    const want = l.nul ? 0 : Math.min(l.length, headBytes);
    assert.ok(l.head.length >= want && l.head.length <= l.length);
    assert.deepEqual([...l.head], [
      ...data.subarray(l.offset, l.offset + l.head.length),
    ]);
    const lastByte = lines.lastByte;
    const whole = await lines.complete(l);
    out.push({
      start: l.offset,
      contentEnd: l.offset + l.length,
      lineEnd: l.offset + l.size,
      terminated: l.terminated,
      lastByte,
      nul: l.nul,
      oversized: l.oversized,
      bytes: whole.bytes === undefined ? [] : [...whole.bytes],
    });
  }
  return out;
}

/** Inputs rich in what a line walk gets wrong: CR, LF, NUL runs, long lines. */
const inputs = fc.array(
  fc.oneof(
    fc.constantFrom(LF, CR, 0, 0x7b, 0x61).map((b) => [b]),
    fc.constantFrom([CR, LF], [LF, LF], [0, LF]),
    fc.tuple(fc.constantFrom(0, 0x61, LF, CR), fc.integer({ min: 1, max: 900 }))
      .map(([b, n]) => new Array<number>(n).fill(b)),
  ),
  { maxLength: 40 },
).map((parts) => new Uint8Array(parts.flat()));

const blocks = fc.record({
  firstBlockBytes: fc.integer({ min: 1, max: 300 }),
  blockBytes: fc.integer({ min: 1, max: 1200 }),
  headBytes: fc.integer({ min: 0, max: 600 }),
});

Deno.test("BackwardLines steps over the lines above a floor exactly as a lastIndexOf per line, whatever the blocks and short reads", async () => {
  await fc.assert(
    fc.asyncProperty(
      inputs,
      fc.nat(),
      blocks,
      fc.integer({ min: 1, max: 4096 }),
      fc.integer({ min: 0, max: 1000 }),
      async (data, floorSeed, sizes, most, max) => {
        const floor = floorSeed % (data.length + 1);
        const options: BackwardLinesOptions = {
          ...sizes,
          floor,
          size: data.length,
          maxLineBytes: max,
        };
        const lines = new BackwardLines(source(data, most), options);
        assert.deepEqual(
          await walk(lines, data, sizes.headBytes),
          lastIndexOfSteps(data, floor, max),
        );
      },
    ),
    { numRuns: 1500 },
  );
});

/** `bytes` of lines of 1 to `2 * mean` bytes, some ending in CRLF (a fixed LCG: the same every run). */
function generatedLines(bytes: number, mean: number): Uint8Array {
  const data = new Uint8Array(bytes).fill(0x61);
  let state = 7;
  const next = (): number => (state = (state * 1103515245 + 12345) % 2 ** 31);
  for (let end = 0;;) {
    end += 1 + (next() % (2 * mean));
    if (end > bytes) return data;
    data[end - 1] = LF;
    if (next() % 7 === 0) data[end - 2] = CR;
  }
}

Deno.test("BackwardLines with its default blocks walks megabytes of lines as a lastIndexOf per line", async (t) => {
  for (
    const [name, mean] of [
      ["short lines", 200],
      ["10 KB lines", 10_000],
      ["lines of megabytes", 3 << 20],
    ] as const
  ) {
    await t.step(name, async () => {
      const data = generatedLines(9 << 20, mean);
      const expected = lastIndexOfSteps(data, 0, Infinity)
        .map((s) => [s.start, s.contentEnd, s.lineEnd]);
      const lines = new BackwardLines(source(data, 1 << 30), {
        size: data.length,
      });
      const got = [];
      for (
        let l = await lines.prev();
        l !== undefined;
        l = await lines.prev()
      ) {
        got.push([l.offset, l.offset + l.length, l.offset + l.size]);
      }
      assert.deepEqual(got, expected);
    });
  }
});

Deno.test("BackwardLines reading ahead reads a block again when its read ahead failed, never taking the bytes it did not get", async () => {
  const data = generatedLines(64 << 10, 200);
  const block = 4096;
  // The first block read ahead: the one before the last block.
  const aheadAt = data.length - 2 * block;
  const real = source(data, 1 << 30);
  let failed = 0;
  const flaky: Pick<FileHandle, "read"> = {
    read(p, position) {
      if (position === aheadAt && failed++ === 0) {
        return Promise.reject(new Error("EIO (once)"));
      }
      return real.read(p, position);
    },
  };
  const lines = new BackwardLines(flaky, {
    size: data.length,
    firstBlockBytes: block,
    blockBytes: block,
    readAhead: true,
  });
  const got = await walk(lines, data, 0);
  await lines.settle();
  assert.equal(failed, 2, "the failed block was read again");
  assert.deepEqual(got, lastIndexOfSteps(data, 0, Infinity));
});

Deno.test("BackwardLines gives a line the buffer holds at once, a promise only where a read is due", async () => {
  // 100 lines of 100 bytes, in blocks of 1 KiB: about one step in ten reads.
  const data = new TextEncoder().encode(
    Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(99, ".") + "\n").join(
      "",
    ),
  );
  const reads: number[] = [];
  const file: Pick<FileHandle, "read"> = {
    read: (p, position) => {
      reads.push(position);
      const n = Math.min(p.length, data.length - position);
      p.set(data.subarray(position, position + n));
      return Promise.resolve(n);
    },
  };
  const lines = new BackwardLines(file, {
    size: data.length,
    firstBlockBytes: 1024,
    blockBytes: 1024,
  });
  let promised = 0;
  const seen: string[] = [];
  for (;;) {
    const step = lines.prev();
    if (step instanceof Promise) promised++;
    const line = await step;
    if (line === undefined) break;
    seen.push(new TextDecoder().decode(line.bytes!.subarray(0, 3)));
  }
  assert.deepEqual(
    seen,
    Array.from(
      { length: 100 },
      (_, i) => `${99 - i}`.padEnd(3, ".").slice(0, 3),
    ),
  );
  // A promise for each block read (and for a line across two), none for the rest.
  assert.ok(
    promised >= reads.length && promised <= 2 * reads.length,
    `${promised} promises, ${reads.length} reads`,
  );
  assert.ok(promised <= 25, `${promised} promises for 100 lines`);
});
