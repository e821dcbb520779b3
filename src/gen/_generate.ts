/**
 * Deterministic synthetic session transcripts, for benchmarks and the CLI's
 * `gen` command.
 *
 * The file looks like a long omp session: a 256-byte title slot, a version 3
 * header, then one parent chain of user turns, assistant turns (thinking with
 * a signature, text, tool calls, a `usage` with `cost`) and tool results of
 * 1–200 KB of code-like text, with model changes, a compaction every few MB,
 * `reset_boundary` entries at fixed fractions of the file and the last
 * compaction a fixed distance before the end, so the window a resume has to
 * read stays the same size whatever the file size. About 94 % of the lines
 * hold non-ASCII text (CJK, accents, 4-byte emoji, now and then a raw
 * U+2028). Text comes from word pools and pre-generated blocks drawn with a
 * seeded PRNG: the same options always give the same bytes.
 *
 * @module
 */

import type {
  GenerateOptions,
  GenerateResult,
  TranscriptSink,
} from "./_options.ts";

export type { GenerateOptions, GenerateResult, TranscriptSink };

import { _config } from "./_config.ts";
import { _Transcript } from "./_transcript.ts";
import { _ChunkWriter, _port } from "./_writer.ts";

/**
 * Write a synthetic transcript to a byte sink, in chunks of about 1 MiB
 * (memory stays bounded whatever the size).
 *
 * A `WritableStream` is closed when done (as `pipeTo` does) and aborted on
 * failure; a writer object is left open for its owner to close.
 *
 * @param sink Where the bytes go.
 * @param options Size, seed and shape of the transcript.
 * @returns What was written.
 * @throws {TypeError} If an option has the wrong type.
 * @throws {RangeError} If an option is out of range (a negative size, a
 * reset fraction outside 0–1, a non-positive `compactionEvery`).
 *
 * @example Generating into memory
 * ```ts
 * import { generateTranscript } from "./_generate.ts";
 * import assert from "node:assert/strict";
 *
 * const chunks: Uint8Array[] = [];
 * const sink = new WritableStream<Uint8Array>({ write(c) { chunks.push(c); } });
 * const result = await generateTranscript(sink, { size: 64 * 1024 });
 * assert.ok(result.bytes >= 64 * 1024);
 * assert.equal(chunks.reduce((n, c) => n + c.length, 0), result.bytes);
 * ```
 */
export async function generateTranscript(
  sink: TranscriptSink,
  options: GenerateOptions,
): Promise<GenerateResult> {
  const config = _config(options);
  const port = _port(sink);
  try {
    const writer = new _ChunkWriter(port, config);
    const result = await new _Transcript(writer, config).run();
    await port.close();
    return result;
  } catch (error) {
    await port.abort(error);
    throw error;
  }
}

/**
 * A transcript generated into memory: its bytes, whole (for tests and
 * benchmarks that write it many times or read it as text).
 *
 * @param options Size, seed and shape of the transcript.
 * @returns Its bytes.
 * @throws {TypeError} If an option has the wrong type.
 * @throws {RangeError} If an option is out of range.
 *
 * @example A small transcript's lines
 * ```ts
 * import { generateBytes } from "./_generate.ts";
 * import assert from "node:assert/strict";
 *
 * const bytes = await generateBytes({ size: 16 * 1024, seed: 1 });
 * const lines = new TextDecoder().decode(bytes).trimEnd().split("\n");
 * assert.equal(JSON.parse(lines[1]!).type, "session");
 * ```
 */
export async function generateBytes(
  options: GenerateOptions,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const { bytes } = await generateTranscript({
    write: (p: Uint8Array) => {
      parts.push(p.slice()); // the writer reuses its buffer
      return Promise.resolve(p.length);
    },
  }, options);
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Create (or truncate) `path` with mode 0600 and generate a transcript into it.
 *
 * @param path The file to write.
 * @param options Size, seed and shape of the transcript.
 * @returns What was written.
 * @throws {TypeError} If an option has the wrong type.
 * @throws {RangeError} If an option is out of range.
 * @throws {Deno.errors.PermissionDenied} Without write permission to `path`.
 *
 * @example Writing a small transcript
 * ```ts
 * import { generateFile } from "./_generate.ts";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile({ suffix: ".jsonl" });
 * const result = await generateFile(path, { size: 100_000, seed: 7 });
 * assert.equal((await Deno.stat(path)).size, result.bytes);
 * await Deno.remove(path);
 * ```
 */
export async function generateFile(
  path: string,
  options: GenerateOptions,
): Promise<GenerateResult> {
  _config(options); // fail before touching the file
  using file = await Deno.open(path, {
    write: true,
    create: true,
    truncate: true,
    mode: 0o600,
  });
  // `mode` only applies to a new file; an existing one keeps its bits.
  if (Deno.build.os !== "windows") await Deno.chmod(path, 0o600);
  return await generateTranscript(file, options);
}

/** Multipliers of {@linkcode parseSize}'s units (binary: K = 1024). */
const _UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
};

/**
 * Parse a size: a number with an optional binary unit, case-insensitive:
 * `K`, `KB`, `KiB` are 1024 bytes, `M…` 1024², `G…` 1024³, `T…` 1024⁴; a
 * plain number or a `B` suffix is bytes. Fractions are allowed before a unit
 * (`1.5G`) and rounded to whole bytes.
 *
 * @param text The size, e.g. `"100M"`, `"1.5G"`, `"512K"`, `"10MB"`, `"4096"`.
 * @returns The size in bytes.
 * @throws {TypeError} If `text` is not a string.
 * @throws {RangeError} If `text` is not a size (empty, negative, an unknown
 * unit, fractional bytes, beyond 2⁵³).
 *
 * @example Sizes for `gen --size`
 * ```ts
 * import { parseSize } from "./_generate.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(parseSize("100M"), 100 * 1024 * 1024);
 * assert.equal(parseSize("1.5G"), 1.5 * 1024 ** 3);
 * assert.throws(() => parseSize("lots"), RangeError);
 * ```
 */
export function parseSize(text: string): number {
  if (typeof text !== "string") {
    throw new TypeError("Cannot parse the size: it is not a string");
  }
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:([kmgt])(?:i?b)?|(b))?\s*$/i
    .exec(text);
  if (match === null) {
    throw new RangeError(
      `Cannot parse the size "${text}": expected a number with an optional unit K, M, G or T`,
    );
  }
  const unit = (match[2] ?? match[3] ?? "").toLowerCase();
  const bytes = Number(match[1]) * (_UNITS[unit] ?? 1);
  const rounded = Math.round(bytes);
  if (unit === "" || unit === "b") {
    if (!Number.isInteger(bytes)) {
      throw new RangeError(
        `Cannot parse the size "${text}": a byte count must be whole`,
      );
    }
  }
  if (!Number.isSafeInteger(rounded)) {
    throw new RangeError(`Cannot parse the size "${text}": it is too large`);
  }
  return rounded;
}
