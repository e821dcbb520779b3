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

import { fs } from "../_fs.ts";
import { type _Shape, _Transcript } from "./_transcript.ts";
import type { GenerateOptions, GenerateResult } from "./_transcript.ts";

export type { GenerateOptions, GenerateResult } from "./_transcript.ts";

/** Where a transcript goes: a writer that may accept fewer bytes than given, as a file does. */
export interface TranscriptSink {
  /** Write some of `p`; resolves to the count written (more than 0). */
  write(p: Uint8Array): Promise<number>;
}

/**
 * Write a synthetic transcript to `sink`, in chunks of at most 1 MiB: one is
 * written while the next is made, so memory stays bounded whatever the size.
 * The sink is left open for its owner to close; each chunk has its own
 * buffer, so the sink may keep it.
 *
 * @param sink Where the bytes go.
 * @param options Size, seed and shape of the transcript.
 * @returns What was written.
 * @throws {TypeError} If an option has the wrong type.
 * @throws {RangeError} If an option is out of range (a negative size, a
 * reset fraction outside 0–1, a non-positive `compactionEvery`).
 * @throws {Error} What the sink throws, or if it accepts no bytes.
 */
export async function generateTranscript(
  sink: TranscriptSink,
  options: GenerateOptions,
): Promise<GenerateResult> {
  const shape = _shape(options);
  const transcript = new _Transcript(shape);
  let pending = Promise.resolve();
  let written = 0;
  for (const chunk of transcript.chunks()) {
    await pending;
    const at = written += chunk.length;
    // No turn of the event loop before the next `await pending`: a failed
    // write is always awaited, never an unhandled rejection.
    pending = _writeAll(sink, chunk).then(() =>
      options.onProgress?.(at, shape.size)
    );
  }
  await pending;
  return transcript.result();
}

/**
 * A transcript generated into memory: its bytes, whole (for tests and
 * benchmarks that write it many times or read it as text).
 *
 * @param options Size, seed and shape of the transcript.
 * @returns Its bytes.
 * @throws {TypeError} If an option has the wrong type.
 * @throws {RangeError} If an option is out of range.
 */
export async function generateBytes(
  options: GenerateOptions,
): Promise<Uint8Array> {
  const chunks = [...new _Transcript(_shape(options)).chunks()];
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

/**
 * Create (or truncate) `path` with mode 0600 and generate a transcript into
 * it, one chunk at a time.
 *
 * @param path The file to write.
 * @param options Size, seed and shape of the transcript.
 * @returns What was written.
 * @throws {TypeError} If an option has the wrong type.
 * @throws {RangeError} If an option is out of range.
 * @throws {Deno.errors.PermissionDenied} Without write permission to `path`.
 */
export async function generateFile(
  path: string,
  options: GenerateOptions,
): Promise<GenerateResult> {
  _shape(options); // fail before touching the file
  const file = await fs().open(path, {
    write: true,
    create: true,
    truncate: true,
    mode: 0o600,
  });
  try {
    // `mode` only applies to a new file; an existing one keeps its bits.
    if (!fs().windows) await fs().chmod(path, 0o600);
    return await generateTranscript(file, options);
  } finally {
    await file.close();
  }
}

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
 */
export function parseSize(text: string): number {
  if (typeof text !== "string") {
    throw new TypeError("Cannot parse the size: it is not a string");
  }
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:([kmgt])(?:i?b)?|b)?\s*$/i
    .exec(text);
  if (match === null) {
    throw new RangeError(
      `Cannot parse the size "${text}": expected a number with an optional unit K, M, G or T`,
    );
  }
  const unit = (match[2] ?? "b").toLowerCase(); // a plain number is bytes
  const bytes = Number(match[1]) * 1024 ** "bkmgt".indexOf(unit);
  if (unit === "b" && !Number.isInteger(bytes)) {
    throw new RangeError(
      `Cannot parse the size "${text}": a byte count must be whole`,
    );
  }
  const rounded = Math.round(bytes);
  if (!Number.isSafeInteger(rounded)) {
    throw new RangeError(`Cannot parse the size "${text}": it is too large`);
  }
  return rounded;
}

/** Write all of `chunk` to a writer that may accept fewer bytes than given. */
async function _writeAll(
  sink: TranscriptSink,
  chunk: Uint8Array,
): Promise<void> {
  for (let at = 0; at < chunk.length;) {
    const n = await sink.write(chunk.subarray(at));
    if (!(n > 0)) {
      throw new Error(
        `Cannot write the transcript: the sink accepted ${n} bytes`,
      );
    }
    at += n;
  }
}

/** Checks `options` and fills in the defaults (see {@linkcode GenerateOptions}). */
function _shape(options: GenerateOptions): _Shape {
  if (options === null || typeof options !== "object") {
    throw _bad(TypeError, "options is not an object");
  }
  const resetsAt = options.resetsAt ?? [0.3, 0.7];
  if (!Array.isArray(resetsAt)) {
    throw _bad(TypeError, "resetsAt is not an array");
  }
  for (const f of resetsAt) {
    if (_number("a resetsAt fraction", f, 0) > 1) {
      throw _bad(RangeError, `resetsAt holds ${f}, outside 0–1`);
    }
  }
  const compactionEvery = _number(
    "compactionEvery",
    options.compactionEvery ?? 5 * 1024 * 1024,
    0,
  );
  if (compactionEvery === 0) throw _bad(RangeError, "compactionEvery is 0");
  const { onProgress, lastCompactionBeforeEnd: last } = options;
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw _bad(TypeError, "onProgress is not a function");
  }
  return {
    size: _number("size", options.size, 0),
    seed: _number("seed", options.seed ?? 1, -Infinity),
    compactionEvery,
    resetsAt: [...resetsAt].sort((a, b) => a - b),
    lastCompactionBeforeEnd: _number(
      "lastCompactionBeforeEnd",
      last ?? 3.5 * 1024 * 1024,
      0,
    ),
    branchBackAtEnd: options.branchBackAtEnd === true,
    checkpoints: options.checkpoints !== false,
  };
}

/** `value` if it is a finite number ≥ `min`. */
function _number(name: string, value: unknown, min: number): number {
  if (typeof value !== "number") {
    throw _bad(TypeError, `${name} is not a number`);
  }
  if (!Number.isFinite(value) || value < min) {
    throw _bad(RangeError, `${name} is ${value}, not a finite number ≥ ${min}`);
  }
  return value;
}

/** An error of the options, its message in the house form. */
function _bad(type: typeof TypeError, state: string): Error {
  return new type(`Cannot generate a transcript: ${state}`);
}
