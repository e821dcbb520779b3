import assert from "node:assert/strict";
import fc from "fast-check";
import type { ReaderAt } from "../../src/fs/_read.ts";
import {
  BackwardLines,
  type BackwardLinesOptions,
} from "../../src/read/_backward_lines.ts";
import { CR, LF } from "../../src/read/_line.ts";

/** What one step of a walk shows, copied out of the buffer. */
interface Step {
  start: number;
  contentEnd: number;
  lineEnd: number;
  terminated: boolean;
  lastByte: number;
  nul: boolean;
  head: number[];
  line: { bytes: number[]; size: number; oversized: boolean; nul: boolean };
}

/** Bytes kept after a block for a line's first bytes (`_HEAD_BYTES`). */
const HEAD_BYTES = 512;

/**
 * The stepping `BackwardLines` did before the kernel, over the whole input:
 * a `lastIndexOf` per line. What a walk must show at each step.
 */
function lastIndexOfSteps(data: Uint8Array, floor: number, max: number) {
  const out: Omit<Step, "head">[] = [];
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
      line: {
        bytes: nul || oversized ? [] : [...data.subarray(start, contentEnd)],
        size: end - start,
        oversized,
        nul,
      },
    });
    end = start;
  }
  return out;
}

/** A source over `data` whose reads return at most `most` bytes. */
function source(data: Uint8Array, most: number): ReaderAt {
  return {
    size: data.length,
    readAt(p, position) {
      const n = Math.min(p.length, most, data.length - position);
      p.set(data.subarray(position, position + n));
      return Promise.resolve(n);
    },
  };
}

/** Walk every line, as the window walk does (sync steps, async when told). */
async function walk(
  lines: BackwardLines,
  max: number,
): Promise<Step[]> {
  const out: Step[] = [];
  for (;;) {
    let more = lines.prev();
    if (more instanceof Promise) more = await more;
    if (!more) return out;
    const head = [...lines.bytes.subarray(lines.headStart, lines.headEnd)];
    const step = {
      start: lines.start,
      contentEnd: lines.contentEnd,
      lineEnd: lines.lineEnd,
      terminated: lines.terminated,
      lastByte: lines.lastByte,
      nul: lines.isNul(),
      head,
    };
    const line = await lines.line(max);
    out.push({
      ...step,
      line: {
        bytes: [...line.bytes],
        size: line.size,
        oversized: line.oversized === true,
        nul: line.nul === true,
      },
    });
  }
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

const options = fc.record({
  firstBlockBytes: fc.integer({ min: 1, max: 300 }),
  blockBytes: fc.integer({ min: 1, max: 1200 }),
  segmentBytes: fc.integer({ min: 1, max: 200 }),
});

Deno.test("BackwardLines steps over the lines exactly as a lastIndexOf per line did, kernel or plain", async () => {
  await fc.assert(
    fc.asyncProperty(
      inputs,
      fc.nat(),
      options,
      fc.integer({ min: 1, max: 4096 }),
      fc.integer({ min: 0, max: 1000 }),
      async (data, floorSeed, sizes, most, max) => {
        const floor = floorSeed % (data.length + 1);
        const expected = lastIndexOfSteps(data, floor, max);
        const bytesRead: number[] = [];
        for (const plain of [false, true]) {
          const o: BackwardLinesOptions = { ...sizes, plain };
          const lines = new BackwardLines(source(data, most), floor, o);
          const steps = await walk(lines, max);
          assert.deepEqual(
            steps.map(({ head: _, ...rest }) => rest),
            expected,
          );
          for (const s of steps) {
            // The first bytes at hand: the line's own, at least 512 of them.
            const want = Math.min(s.contentEnd - s.start, HEAD_BYTES);
            assert.ok(
              s.head.length >= want && s.start + s.head.length <= s.contentEnd,
            );
            assert.deepEqual(s.head, [
              ...data.subarray(s.start, s.start + s.head.length),
            ]);
          }
          bytesRead.push(lines.bytesRead);
        }
        assert.equal(bytesRead[0], bytesRead[1]);
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

Deno.test("BackwardLines with its default blocks walks megabytes of lines as the old stepping did", async (t) => {
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
      for (const plain of [false, true]) {
        const lines = new BackwardLines(source(data, 1 << 30), 0, { plain });
        const got = [];
        for (;;) {
          let more = lines.prev();
          if (more instanceof Promise) more = await more;
          if (!more) break;
          got.push([lines.start, lines.contentEnd, lines.lineEnd]);
        }
        assert.deepEqual(got, expected);
        assert.ok(lines.bytesRead >= data.length);
      }
    });
  }
});
