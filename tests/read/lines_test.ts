import assert from "node:assert/strict";
import {
  fileReaderAt,
  type Reader,
  type ReaderAt,
} from "../../src/fs/_read.ts";
import { isNulFill } from "../../src/read/_decode.ts";
import type {
  Line,
  ReadLinesBackwardOptions,
  ReadLinesOptions,
} from "../../src/read/_line.ts";
import { readLinesBackward } from "../../src/read/_lines_backward.ts";
import {
  readLines,
  readLinesFromReader,
} from "../../src/read/_lines_forward.ts";

const encoder = new TextEncoder();
const MiB = 1 << 20;
const STREAM_CHUNKS = [1, 2, 3, 7, 64, 4096, MiB];
const BACKWARD_CHUNKS = [1, 3, 64, undefined];

/** A plain copy of a Line, safe to keep after the next line is read. */
interface Seen {
  bytes: Uint8Array;
  offset: number;
  index: number;
  size: number;
  terminated: boolean;
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
function referenceLines(input: Uint8Array, max = Infinity): Seen[] {
  const lines: Seen[] = [];
  const push = (
    start: number,
    end: number,
    size: number,
    terminated: boolean,
  ) => {
    // A line that starts with NUL is crash damage: skipped unread.
    const nul = end > start && input[start] === 0;
    const oversized = !nul && end - start > max;
    const bytes = oversized || nul
      ? new Uint8Array(0)
      : input.slice(start, end);
    lines.push({
      bytes,
      offset: start,
      index: lines.length,
      size,
      terminated,
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

/** Read sizes that reader doubles cycle through: many tiny, a few large. */
const SHORT_READS = [1, 2, 5, 13, 4096, 65_537];

/** A reader whose reads come short, scribbling after what it returns. */
function shortReader(bytes: Uint8Array): Reader {
  let at = 0;
  let turn = 0;
  return {
    read(p: Uint8Array): Promise<number | null> {
      if (at >= bytes.length) return Promise.resolve(null);
      const n = Math.min(
        p.length,
        bytes.length - at,
        SHORT_READS[turn++ % SHORT_READS.length]!,
      );
      p.set(bytes.subarray(at, at + n));
      p.fill(0xee, n, n + 100);
      at += n;
      return Promise.resolve(n);
    },
  };
}

/** Positional reads over `bytes` that come short, as `shortReader`'s do. */
function shortReaderAt(bytes: Uint8Array, log: number[] = []): ReaderAt {
  let turn = 0;
  return {
    size: bytes.length,
    readAt(p: Uint8Array, position: number): Promise<number> {
      const n = Math.min(
        p.length,
        bytes.length - position,
        SHORT_READS[turn++ % SHORT_READS.length]!,
      );
      p.set(bytes.subarray(position, position + n));
      log.push(n);
      return Promise.resolve(Math.max(n, 0));
    },
  };
}

async function collect(lines: AsyncIterable<Line>): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const line of lines) {
    const { offset, index, size, terminated } = line;
    seen.push({
      bytes: line.bytes.slice(),
      offset,
      index,
      size,
      terminated,
      oversized: line.oversized ?? false,
      nul: line.nul ?? false,
    });
  }
  return seen;
}

/** Every way of reading `input`, by name, to the lines it gives in order. */
async function everyWay(
  input: Uint8Array,
  options: ReadLinesOptions = {},
): Promise<Map<string, Seen[]>> {
  const ways = new Map<string, Seen[]>();
  for (const size of STREAM_CHUNKS) {
    ways.set(
      `readLines, chunks of ${size}`,
      await collect(readLines(chunkedStream(input, size), options)),
    );
  }
  ways.set(
    "readLinesFromReader, short reads",
    await collect(readLinesFromReader(shortReader(input), options)),
  );
  for (const chunkBytes of BACKWARD_CHUNKS) {
    const backwardOptions: ReadLinesBackwardOptions = chunkBytes === undefined
      ? options
      : { ...options, chunkBytes };
    const lines = await collect(
      readLinesBackward(shortReaderAt(input), backwardOptions),
    );
    ways.set(
      `readLinesBackward, chunks of ${chunkBytes ?? "default"}`,
      lines.reverse(),
    );
  }
  return ways;
}

/** The terminator a line had, from its size. */
function terminator(line: Seen): string {
  if (line.nul) return line.terminated ? "\n" : "";
  return ["", "\n", "\r\n"][line.size - line.bytes.length] ?? "?";
}

/** A line's text as read: a NUL line's bytes were not kept, so they are NULs. */
function textOf(line: Seen, decoder: TextDecoder): string {
  if (!line.nul) return decoder.decode(line.bytes);
  return "\0".repeat(line.size - (line.terminated ? 1 : 0));
}

/**
 * Assert the lines match, naming the first difference without printing
 * megabytes. Lines read backward are expected with `index` -1.
 */
function assertLines(actual: Seen[], expected: Seen[], way: string): void {
  const backward = way.startsWith("readLinesBackward");
  assert.equal(actual.length, expected.length, `${way}: line count`);
  expected.forEach((want, i) => {
    const { bytes, ...meta } = actual[i]!;
    const { bytes: wantBytes, ...wantMeta } = want;
    if (backward) wantMeta.index = -1;
    assert.deepEqual(meta, wantMeta, `${way}: line ${i}`);
    assert.ok(sameBytes(bytes, wantBytes), `${way}: bytes of line ${i}`);
  });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

Deno.test("readLines(), readLinesFromReader() and readLinesBackward() agree with a reference splitter", async (t) => {
  for (const [name, text] of Object.entries(INPUTS)) {
    await t.step(`on ${name}`, async () => {
      const input = encoder.encode(text);
      const expected = referenceLines(input);
      for (const [way, lines] of await everyWay(input)) {
        assertLines(lines, expected, way);
        const decoder = new TextDecoder("utf-8", { fatal: true }); // no U+FFFD
        const rebuilt = lines.map((l) => textOf(l, decoder) + terminator(l))
          .join("");
        assert.ok(rebuilt === text, `${way}: decoded lines rebuild the text`);
      }
    });
  }
});

Deno.test("readLines() keeps a lone CR and drops only the CR of CRLF", async () => {
  const lines = await collect(
    readLines(chunkedStream(encoder.encode(INPUTS["lone CRs"]!), 1)),
  );
  const texts = lines.map((l) => new TextDecoder().decode(l.bytes));
  assert.deepEqual(texts, ["\ra\rb\r", "", "c\r"]);
  assert.deepEqual(lines.map((l) => [l.size, l.terminated]), [[7, true], [
    2,
    true,
  ], [2, false]]);
});

Deno.test("readLines() rebuilds random input exactly from bytes and terminators", async (t) => {
  const random = mulberry32(7);
  const alphabet = ["a", "\r", "\n", "\r\n", "é", "漢", "😀", "\0"].map((s) =>
    encoder.encode(s)
  );
  for (let round = 0; round < 200; round++) {
    const pieces = Array.from(
      { length: Math.floor(random() * 40) },
      () => alphabet[Math.floor(random() * alphabet.length)]!,
    );
    const input = concat(pieces);
    const chunk = 1 + Math.floor(random() * 9);
    const max = random() < 0.5 ? Infinity : Math.floor(random() * 6);
    await t.step(
      `round ${round}: ${input.length} bytes, chunks of ${chunk}, maxLineBytes ${max}`,
      async () => {
        const lines = await collect(
          readLines(chunkedStream(input, chunk), { maxLineBytes: max }),
        );
        assertLines(lines, referenceLines(input, max), "readLines");
        if (max === Infinity) {
          // A NUL line's bytes are not kept: it must start with NUL, and the
          // lines must still tile the input.
          for (const l of lines.filter((l) => l.nul)) {
            assert.equal(input[l.offset], 0);
          }
          assert.deepEqual(
            concat(
              lines.flatMap((l) =>
                l.nul
                  ? [input.subarray(l.offset, l.offset + l.size)]
                  : [l.bytes, encoder.encode(terminator(l))]
              ),
            ),
            input,
          );
        }
        const backward = await collect(
          readLinesBackward(shortReaderAt(input), {
            chunkBytes: chunk,
            maxLineBytes: max,
          }),
        );
        const expected = referenceLines(input, max);
        assertLines(backward.reverse(), expected, "readLinesBackward");
      },
    );
  }
});

Deno.test("readLines(), readLinesFromReader() and readLinesBackward() skip lines past maxLineBytes", async (t) => {
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
  ].join("\n") + "\r\n" + "abcd";
  const input = encoder.encode(text);
  for (const max of [0, 3, 4, 99_999]) {
    await t.step(`at maxLineBytes ${max}`, async () => {
      const expected = referenceLines(input, max);
      assert.ok(
        expected.some((l) => l.oversized) && expected.some((l) => !l.oversized),
      );
      for (const [way, lines] of await everyWay(input, { maxLineBytes: max })) {
        assertLines(lines, expected, way);
      }
    });
  }
  await t.step("counts a CR of CRLF out of the limit", async () => {
    const lines = await collect(
      readLines(chunkedStream(encoder.encode("abc\r\nabcd\r\n"), 1), {
        maxLineBytes: 3,
      }),
    );
    assert.deepEqual(lines.map((l) => [l.bytes.length, l.oversized]), [[
      3,
      false,
    ], [0, true]]);
  });
});

Deno.test("readLines(), readLinesFromReader() and readLinesBackward() reject a bad limit", () => {
  const source = shortReaderAt(new Uint8Array(0));
  for (const maxLineBytes of [-1, 1.5, NaN, -Infinity]) {
    assert.throws(
      () => readLines(chunkedStream(new Uint8Array(0), 1), { maxLineBytes }),
      RangeError,
    );
    assert.throws(
      () =>
        readLinesFromReader(shortReader(new Uint8Array(0)), { maxLineBytes }),
      RangeError,
    );
    assert.throws(
      () => readLinesBackward(source, { maxLineBytes }),
      RangeError,
    );
  }
  for (const chunkBytes of [0, -1, 2.5, Infinity]) {
    assert.throws(() => readLinesBackward(source, { chunkBytes }), RangeError);
  }
});

Deno.test("readLines() cancels the stream when the loop stops early", async () => {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull: (controller) => controller.enqueue(encoder.encode("line\n")),
    cancel: () => {
      cancelled = true;
    },
  });
  for await (const line of readLines(stream)) {
    assert.equal(line.index, 0);
    break;
  }
  assert.equal(cancelled, true);
});

Deno.test("readLinesFromReader() rejects a read that claims more bytes than asked", async () => {
  const reader = { read: (p: Uint8Array) => Promise.resolve(p.length + 1) };
  await assert.rejects(collect(readLinesFromReader(reader)), RangeError);
});

Deno.test("readLinesBackward() reads only as far back as the lines taken", async () => {
  const input = encoder.encode(`${'{"n":1234567}\n'.repeat(100_000)}`); // 1.4 MB
  const reads: number[] = [];
  const lines: Seen[] = [];
  for await (
    const line of readLinesBackward(shortReaderAt(input, reads), {
      chunkBytes: 4096,
    })
  ) {
    lines.push({
      ...line,
      bytes: line.bytes.slice(),
      oversized: line.oversized ?? false,
      nul: line.nul ?? false,
    });
    if (lines.length === 3) break;
  }
  assert.deepEqual(lines.map((l) => l.offset), [
    input.length - 14,
    input.length - 28,
    input.length - 42,
  ]);
  assert.equal(reads.reduce((a, b) => a + b, 0), 4096);
});

Deno.test("readLinesBackward() throws when the source ends before its size", async () => {
  const input = encoder.encode("a\nb\n");
  const source: ReaderAt = {
    size: 10,
    readAt: (p, position) => shortReaderAt(input).readAt(p, position),
  };
  await assert.rejects(
    collect(readLinesBackward(source)),
    Deno.errors.UnexpectedEof,
  );
});

Deno.test("readLinesFromReader() and readLinesBackward() read a file and leave it open", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/session.jsonl`;
    const text = Object.values(INPUTS).join("\n");
    const input = encoder.encode(text);
    await Deno.writeFile(path, input);
    using file = await Deno.open(path);
    const expected = referenceLines(input);
    const lines = await collect(readLinesFromReader(file));
    assertLines(lines, expected, "readLinesFromReader");
    const source = fileReaderAt(file, (await file.stat()).size);
    const backward = await collect(
      readLinesBackward(source, { chunkBytes: 4096 }),
    );
    assertLines(backward.reverse(), expected, "readLinesBackward");
    assert.equal(await source.readAt(new Uint8Array(1), input.length), 0); // still open
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("isNulFill() is true only for empty or all-zero bytes", async (t) => {
  await t.step("true for empty and zero bytes at any alignment", () => {
    assert.equal(isNulFill(new Uint8Array(0)), true);
    const zeros = new Uint8Array(64);
    for (let start = 0; start < 8; start++) {
      for (let end = start; end <= 64; end++) {
        assert.equal(isNulFill(zeros.subarray(start, end)), true);
      }
    }
  });
  await t.step("false when any one byte is not zero, at any alignment", () => {
    for (let start = 0; start < 8; start++) {
      for (let at = start; at < 40; at++) {
        const bytes = new Uint8Array(40);
        bytes[at] = 1;
        assert.equal(
          isNulFill(bytes.subarray(start)),
          false,
          `byte ${at} from ${start}`,
        );
      }
    }
  });
  await t.step("true for the tail line of a NUL-filled file", async () => {
    const lines = await collect(
      readLines(chunkedStream(encoder.encode(INPUTS["a NUL-filled tail"]!), 7)),
    );
    assert.deepEqual(lines.map((l) => isNulFill(l.bytes)), [false, true]);
  });
});

function concat(pieces: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** A small seeded PRNG, so random rounds repeat. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
