/**
 * The line source, every way it is fed: a web stream in chunks of any size
 * (`LineStream`), positional reads that come back short (`readLines`), and
 * reads backwards in blocks of any size (`BackwardLines`). Each must give
 * exactly the lines of a reference splitter, byte for byte, with their
 * offsets, sizes, heads and flags; every consumer of the pipeline inherits
 * this.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { FileHandle, FileInfo } from "../../src/_fs.ts";
import { fs } from "../../src/_fs.ts";
import { BackwardLines } from "../../src/read/_backward_lines.ts";
import {
  type Line,
  type LineLimits,
  LineStream,
  readLines,
} from "../../src/read/lines.ts";

const encoder = new TextEncoder();
const MiB = 1 << 20;

/** A plain copy of a Line, safe to keep after the next line is read. */
interface Seen {
  offset: number;
  size: number;
  length: number;
  index: number;
  terminated: boolean;
  head: number[];
  bytes: number[] | undefined;
  oversized: boolean;
  nul: boolean;
}

const bigLine = `{"out":"${"x😀é漢\r".repeat(300_000)}"}`; // ~3.3 MB
const INPUTS: Record<string, string> = {
  "empty": "",
  "one line with a final newline": '{"a":1}\n',
  "one line without a final newline": '{"a":1}',
  "CRLF": 'a\r\n{"b":2}\r\n\r\nc',
  "blank lines": "\n\n\na\n\n",
  "emoji and CJK": '{"t":"😀 漢字 café"}\n{"t":"𝄞"}\n漢😀\n',
  "a torn final line": '{"a":1}\n{"b":"😀 torn',
  "a NUL-filled tail": `{"a":1}\n${"\0".repeat(100)}`,
  "a 3 MB line": `{"a":1}\n${bigLine}\r\n{"z":2}\n`,
  "lone CRs": "\ra\rb\r\r\n\r\nc\r",
};

/** The expected lines, one byte at a time. */
function referenceLines(input: Uint8Array, limits: LineLimits = {}): Seen[] {
  const max = limits.maxLineBytes ?? Infinity;
  const first = Math.min(limits.maxFirstLineBytes ?? max, max);
  const headBytes = limits.headBytes ?? 8192;
  const lines: Seen[] = [];
  const push = (
    start: number,
    end: number,
    size: number,
    terminated: boolean,
  ) => {
    const nul = end > start && input[start] === 0;
    const oversized = !nul && end - start > (lines.length === 0 ? first : max);
    const content = [...input.subarray(start, end)];
    lines.push({
      offset: start,
      size,
      length: end - start,
      index: lines.length,
      terminated,
      head: nul ? [] : content.slice(0, headBytes),
      bytes: oversized || nul ? undefined : content,
      oversized,
      nul,
    });
  };
  let start = 0;
  for (let i = 0; i < input.length; i++) {
    if (input[i] !== 10) continue;
    push(
      start,
      i > start && input[i - 1] === 13 ? i - 1 : i,
      i + 1 - start,
      true,
    );
    start = i + 1;
  }
  if (start < input.length) {
    push(start, input.length, input.length - start, false);
  }
  return lines;
}

function seen(line: Line): Seen {
  return {
    offset: line.offset,
    size: line.size,
    length: line.length,
    index: line.index,
    terminated: line.terminated,
    head: [...line.head],
    bytes: line.bytes === undefined ? undefined : [...line.bytes],
    oversized: line.oversized,
    nul: line.nul,
  };
}

/** A stream of `bytes` in chunks of `size` bytes, each a fresh copy. */
function chunkedStream(
  bytes: Uint8Array,
  size: number,
): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller): void {
      if (at < bytes.length) controller.enqueue(bytes.slice(at, at += size));
      else controller.close();
    },
  });
}

/** Read sizes a handle double cycles through: many tiny, a few large. */
const SHORT_READS = [1, 2, 5, 13, 4096, 65_537];

/** A read-only handle over `bytes` whose reads come short, scribbling past what they return. */
function shortHandle(bytes: Uint8Array, log: number[] = []): FileHandle {
  let turn = 0;
  const info: FileInfo = {
    kind: "file",
    size: bytes.length,
    mtimeMs: 0,
    birthtimeMs: null,
    ino: 1,
    dev: 1,
    mode: 0o600,
  };
  const readOnly = () => Promise.reject(new Error("read-only"));
  return {
    read(p, position) {
      const n = Math.max(
        0,
        Math.min(
          p.length,
          bytes.length - position,
          SHORT_READS[turn++ % SHORT_READS.length]!,
        ),
      );
      p.set(bytes.subarray(position, position + n));
      p.fill(0xee, n, n + 100);
      log.push(n);
      return Promise.resolve(n);
    },
    write: readOnly,
    stat: () => Promise.resolve(info),
    truncate: readOnly,
    syncData: () => Promise.resolve(),
    tryLock: () => Promise.resolve(false),
    unlock: () => Promise.resolve(),
    close: () => Promise.resolve(),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

async function backward(
  handle: FileHandle,
  size: number,
  options: LineLimits & { blockBytes?: number } = {},
): Promise<Seen[]> {
  const block = options.blockBytes;
  const lines = new BackwardLines(handle, {
    ...options,
    size,
    ...(block === undefined
      ? {}
      : { firstBlockBytes: block, blockBytes: block }),
  });
  const out: Seen[] = [];
  for (let l = await lines.prev(); l !== undefined; l = await lines.prev()) {
    // A line not at hand is read on request: it must then be the whole line.
    const whole = await lines.complete(l);
    if (l.bytes === undefined && !l.oversized && !l.nul) {
      assert.equal(
        whole.bytes?.length,
        l.length,
        `complete() reads line at ${l.offset}`,
      );
    }
    out.push({ ...seen(whole), index: 0 });
  }
  return out.reverse().map((l, i) => ({ ...l, index: i }));
}

/** Every way of reading `input`, by name, to the lines it gives in order. */
async function everyWay(
  input: Uint8Array,
  limits: LineLimits = {},
): Promise<Map<string, Seen[]>> {
  const ways = new Map<string, Seen[]>();
  for (const size of [1, 2, 3, 7, 64, 4096, MiB]) {
    const lines = await Array.fromAsync(
      chunkedStream(input, size).pipeThrough(new LineStream(limits)),
    );
    ways.set(`LineStream, chunks of ${size}`, lines.map(seen));
  }
  const forward: Seen[] = [];
  for await (const l of readLines(shortHandle(input), limits)) {
    forward.push(seen(l));
  }
  ways.set("readLines, short reads", forward);
  for (const blockBytes of [1, 3, 64, undefined]) {
    ways.set(
      `BackwardLines, blocks of ${blockBytes ?? "default"}`,
      await backward(shortHandle(input), input.length, {
        ...limits,
        ...(blockBytes === undefined ? {} : { blockBytes }),
      }),
    );
  }
  return ways;
}

/**
 * Assert the lines match, naming the first difference without printing
 * megabytes. Backward lines have no line numbers: they are numbered by the
 * caller, and a backward line's content not at hand is read by `complete`.
 */
function assertLines(actual: Seen[], expected: Seen[], way: string): void {
  assert.equal(actual.length, expected.length, `${way}: line count`);
  expected.forEach((want, i) => {
    const got = actual[i]!;
    const { bytes, head, ...meta } = got;
    const { bytes: wantBytes, head: wantHead, ...wantMeta } = want;
    assert.deepEqual(meta, wantMeta, `${way}: line ${i}`);
    assert.ok(same(bytes, wantBytes), `${way}: bytes of line ${i}`);
    // A backward head may hold more than headBytes (what is at hand), never less.
    const cut = way.startsWith("Backward")
      ? head.slice(0, wantHead.length)
      : head;
    assert.ok(same(cut, wantHead), `${way}: head of line ${i}`);
  });
}

function same(a: number[] | undefined, b: number[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

Deno.test("LineStream, readLines() and BackwardLines agree with a reference splitter", async (t) => {
  for (const [name, text] of Object.entries(INPUTS)) {
    await t.step(`on ${name}`, async () => {
      const input = encoder.encode(text);
      const expected = referenceLines(input);
      for (const [way, lines] of await everyWay(input)) {
        assertLines(lines, expected, way);
      }
      // The lines and their terminators rebuild the input.
      const rebuilt = expected.flatMap((l) =>
        l.nul ? [...input.subarray(l.offset, l.offset + l.size)] : [
          ...l.bytes!,
          ...input.subarray(l.offset + l.length, l.offset + l.size),
        ]
      );
      assert.ok(same(rebuilt, [...input]));
    });
  }
});

Deno.test("LineStream keeps a lone CR and drops only the CR of CRLF", async () => {
  const lines = await Array.fromAsync(
    chunkedStream(encoder.encode(INPUTS["lone CRs"]!), 1).pipeThrough(
      new LineStream(),
    ),
  );
  assert.deepEqual(lines.map((l) => new TextDecoder().decode(l.bytes)), [
    "\ra\rb\r",
    "",
    "c\r",
  ]);
  assert.deepEqual(lines.map((l) => [l.size, l.terminated]), [[7, true], [
    2,
    true,
  ], [2, false]]);
});

Deno.test("the line source, property: every way gives the reference's lines for random input and limits", async () => {
  const alphabet = ["a", "{", "}", "\r", "\n", "\r\n", "é", "漢", "😀", "\0"];
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }),
      fc.option(fc.nat({ max: 8 }), { nil: undefined }),
      fc.option(fc.nat({ max: 8 }), { nil: undefined }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 9 }),
      async (pieces, maxLineBytes, maxFirstLineBytes, headBytes, chunk) => {
        const input = encoder.encode(pieces.join(""));
        const limits: LineLimits = {
          headBytes,
          ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
          ...(maxFirstLineBytes === undefined ? {} : { maxFirstLineBytes }),
        };
        const expected = referenceLines(input, limits);
        const stream = await Array.fromAsync(
          chunkedStream(input, chunk).pipeThrough(new LineStream(limits)),
        );
        assertLines(
          stream.map(seen),
          expected,
          `LineStream, chunks of ${chunk}`,
        );
        const forward: Seen[] = [];
        for await (const l of readLines(shortHandle(input), limits)) {
          forward.push(seen(l));
        }
        assertLines(forward, expected, "readLines");
        assertLines(
          await backward(shortHandle(input), input.length, {
            ...limits,
            blockBytes: chunk,
          }),
          expected,
          `BackwardLines, blocks of ${chunk}`,
        );
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("the line source skips lines past maxLineBytes, every way, and counts a CR of CRLF out of the limit", async (t) => {
  const text = [
    "",
    "a",
    "ab",
    "abc",
    "abcd",
    "abc\r",
    "abcd\r",
    "ab\rc",
    "x".repeat(100_000),
    "abc",
  ].join("\n") + "\r\nabcd";
  const input = encoder.encode(text);
  for (const max of [0, 3, 4, 99_999]) {
    await t.step(`at maxLineBytes ${max}`, async () => {
      const expected = referenceLines(input, { maxLineBytes: max });
      assert.ok(
        expected.some((l) => l.oversized) && expected.some((l) => !l.oversized),
      );
      for (const [way, lines] of await everyWay(input, { maxLineBytes: max })) {
        assertLines(lines, expected, way);
      }
    });
  }
  const lines = await Array.fromAsync(
    chunkedStream(encoder.encode("abc\r\nabcd\r\n"), 1).pipeThrough(
      new LineStream({ maxLineBytes: 3 }),
    ),
  );
  assert.deepEqual(
    lines.map((l) => [l.bytes?.length, l.oversized, l.head.length]),
    [[3, false, 3], [undefined, true, 4]],
  );
});

Deno.test("the line source rejects a bad limit", () => {
  for (const maxLineBytes of [-1, 1.5, NaN, -Infinity]) {
    assert.throws(() => new LineStream({ maxLineBytes }), RangeError);
    assert.throws(
      () =>
        new BackwardLines(shortHandle(new Uint8Array(0)), {
          size: 0,
          maxLineBytes,
        }),
      RangeError,
    );
  }
  assert.throws(() => new LineStream({ headBytes: -1 }), RangeError);
});

Deno.test("BackwardLines reads only as far back as the lines taken", async () => {
  const input = encoder.encode('{"n":1234567}\n'.repeat(100_000)); // 1.4 MB
  const reads: number[] = [];
  const lines = new BackwardLines(shortHandle(input, reads), {
    size: input.length,
    firstBlockBytes: 4096,
    blockBytes: 4096,
    headBytes: 64,
  });
  const offsets = [];
  for (let i = 0; i < 3; i++) offsets.push((await lines.prev())!.offset);
  assert.deepEqual(offsets, [
    input.length - 14,
    input.length - 28,
    input.length - 42,
  ]);
  assert.equal(reads.reduce((a, b) => a + b, 0), 4096);
});

Deno.test("BackwardLines throws when the file ends before its size", async () => {
  const lines = new BackwardLines(shortHandle(encoder.encode("a\nb\n")), {
    size: 10,
  });
  await assert.rejects(
    async () => await lines.prev(),
    /Cannot read lines backward: the file ended at byte 4, before its size 10/,
  );
});

Deno.test("readLines() and BackwardLines read a real file and leave it open", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/session.jsonl`;
    const input = encoder.encode(Object.values(INPUTS).join("\n"));
    await Deno.writeFile(path, input);
    await using file = await fs().open(path, { read: true });
    const expected = referenceLines(input);
    const forward: Seen[] = [];
    for await (const l of readLines(file)) forward.push(seen(l));
    assertLines(forward, expected, "readLines");
    assertLines(
      await backward(file, input.length, { blockBytes: 4096 }),
      expected,
      "BackwardLines",
    );
    assert.equal(await file.read(new Uint8Array(1), input.length - 1), 1); // still open
    // From an offset to an end: line numbers are unknown, the last line cut.
    const part = [];
    for await (const l of readLines(file, { start: 8, end: 20 })) {
      part.push([l.offset, l.index, l.terminated]);
    }
    assert.deepEqual(part[0], [8, -1, true]);
    assert.equal(part.at(-1)![2], false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
