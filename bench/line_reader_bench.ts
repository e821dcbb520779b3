/**
 * Line splitting of a ~20 MB synthetic transcript (realistic JSON lines,
 * mostly non-ASCII, tool outputs up to 200 KB): the naive way (a
 * `TextDecoderStream` and a string `split`) against the byte splitters of
 * `src/line_reader.ts`, in memory and from a file.
 *
 * Run: `deno bench --allow-read --allow-write bench/line_reader_bench.ts`
 *
 * @module
 */

import assert from "node:assert/strict";
import { generateBytes } from "../src/gen/generate.ts";
import { fileReaderAt } from "../src/fs/_read.ts";
import type { Line } from "../src/read/_line.ts";
import { readLinesBackward } from "../src/read/_lines_backward.ts";
import { readLines, readLinesFromReader } from "../src/read/_lines_forward.ts";

const SIZE = 20 * 1024 * 1024;
/** Chunk size of the in-memory streams, that of a typical byte stream. */
const CHUNK = 64 * 1024;
/** Lines taken by the "last lines" scenario. */
const TAIL_LINES = 10;

const input = await generate(SIZE);
const chunks: Uint8Array[] = [];
for (let at = 0; at < input.length; at += CHUNK) {
  chunks.push(input.subarray(at, at + CHUNK));
}
const dir = await Deno.makeTempDir({ prefix: "line_reader_bench_" });
const path = `${dir}/session.jsonl`;
await Deno.writeFile(path, input);
globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});

// Every way must see the same lines before it is timed.
const lineCount = await countLines(readLines(ReadableStream.from(chunks)));
assert.equal(await naiveCount(ReadableStream.from(chunks)), lineCount);
console.log(`${input.length} bytes, ${lineCount} lines`);

/** The naive way: decode the stream to text, then split strings. */
async function naiveCount(stream: ReadableStream<Uint8Array>): Promise<number> {
  let count = 0;
  let rest = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    const lines = (rest + text).split("\n");
    rest = lines.pop() ?? "";
    count += lines.length;
  }
  return rest.length > 0 ? count + 1 : count;
}

/** The naive way to the last `n` lines: split everything, keep the tail. */
async function naiveTail(
  stream: ReadableStream<Uint8Array>,
  n: number,
): Promise<string[]> {
  let last: string[] = [];
  let rest = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    const lines = (rest + text).split("\n");
    rest = lines.pop() ?? "";
    last = [...last, ...lines].slice(-n);
  }
  return rest.length > 0 ? [...last, rest].slice(-n) : last;
}

/** Count lines, touching each one's bytes so the work cannot be skipped. */
async function countLines(lines: AsyncIterable<Line>): Promise<number> {
  let count = 0;
  let bytes = 0;
  for await (const line of lines) {
    count++;
    bytes += line.bytes.length;
  }
  assert.ok(bytes > 0 || count === 0);
  return count;
}

function generate(size: number): Promise<Uint8Array> {
  return generateBytes({ size });
}

const memory = "split 20 MB in memory (64 KiB chunks)";

Deno.bench(
  "TextDecoderStream + split",
  { group: memory, baseline: true },
  async (b) => {
    const stream = ReadableStream.from(chunks);
    b.start();
    assert.equal(await naiveCount(stream), lineCount);
    b.end();
  },
);

Deno.bench("readLines", { group: memory }, async (b) => {
  const stream = ReadableStream.from(chunks);
  b.start();
  assert.equal(await countLines(readLines(stream)), lineCount);
  b.end();
});

Deno.bench("readLines + decode every line", { group: memory }, async (b) => {
  const stream = ReadableStream.from(chunks);
  const decoder = new TextDecoder();
  b.start();
  let count = 0;
  for await (const line of readLines(stream)) {
    if (decoder.decode(line.bytes).length >= 0) count++;
  }
  b.end();
  assert.equal(count, lineCount);
});

const file = "split a 20 MB file";

Deno.bench("file.readable + TextDecoderStream + split", {
  group: file,
  baseline: true,
}, async (b) => {
  const handle = await Deno.open(path);
  b.start();
  assert.equal(await naiveCount(handle.readable), lineCount); // closes handle
  b.end();
});

Deno.bench("readLines(file.readable)", { group: file }, async (b) => {
  const handle = await Deno.open(path);
  b.start();
  assert.equal(await countLines(readLines(handle.readable)), lineCount);
  b.end();
});

Deno.bench("readLinesFromReader(file)", { group: file }, async (b) => {
  using handle = await Deno.open(path);
  b.start();
  assert.equal(await countLines(readLinesFromReader(handle)), lineCount);
  b.end();
});

Deno.bench(
  "readLinesBackward(fileReaderAt(file))",
  { group: file },
  async (b) => {
    using handle = await Deno.open(path);
    const source = fileReaderAt(handle, input.length);
    b.start();
    assert.equal(await countLines(readLinesBackward(source)), lineCount);
    b.end();
  },
);

const tail = `last ${TAIL_LINES} lines of a 20 MB file`;

Deno.bench("file.readable + TextDecoderStream + split, keep the last lines", {
  group: tail,
  baseline: true,
}, async (b) => {
  const handle = await Deno.open(path);
  b.start();
  const last = await naiveTail(handle.readable, TAIL_LINES); // closes handle
  b.end();
  assert.equal(last.length, TAIL_LINES);
});

Deno.bench(
  "readLinesFromReader, keep the last lines",
  { group: tail },
  async (b) => {
    using handle = await Deno.open(path);
    b.start();
    const last: Uint8Array[] = [];
    for await (const line of readLinesFromReader(handle)) {
      last.push(line.bytes.slice());
      if (last.length > TAIL_LINES) last.shift();
    }
    b.end();
    assert.equal(last.length, TAIL_LINES);
  },
);

Deno.bench(
  "readLinesBackward, stop after the last lines",
  { group: tail },
  async (b) => {
    using handle = await Deno.open(path);
    const source = fileReaderAt(handle, input.length);
    b.start();
    const last: Uint8Array[] = [];
    for await (
      const line of readLinesBackward(source, { chunkBytes: 64 * 1024 })
    ) {
      last.push(line.bytes.slice());
      if (last.length === TAIL_LINES) break;
    }
    b.end();
    assert.equal(last.length, TAIL_LINES);
  },
);
