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

import { SETTINGS_CHECKPOINT_TYPE } from "../src/window.ts";
import {
  type AssistantMessage,
  type ContentBlock,
  encodeEntry,
  type MessageEntry,
  type SessionEntry,
  type Usage,
} from "../src/entries.ts";
import { SESSION_VERSION, type SessionHeader } from "../src/header.ts";
import { marshalTitleSlot } from "../src/title_slot.ts";

/** Options of {@linkcode generateTranscript} and {@linkcode generateFile}. */
export interface GenerateOptions {
  /** Target size in bytes; the file ends at the first entry boundary at or past it. */
  size: number;
  /** PRNG seed (default 1): the same options give the same bytes. */
  seed?: number;
  /**
   * Bytes between compactions (default 5 MiB). None falls within half of
   * this before the last compaction.
   */
  compactionEvery?: number;
  /** Fractions of the file at which a reset_boundary is written (default [0.3, 0.7]). */
  resetsAt?: number[];
  /**
   * Where the last compaction falls, in bytes before the end (default
   * 3.5 MiB, so the final window is ~4 MB whatever the size). Set it larger
   * (e.g. 30 MB) to make a big window. Counted back from `size`: the
   * compaction is written at the first tool-round or turn boundary at or
   * past `size - lastCompactionBeforeEnd`. A file no larger than this gets
   * no compaction at all.
   */
  lastCompactionBeforeEnd?: number;
  /** Called with bytes written so far (for a progress bar) after each chunk is written; the last call has the final size. */
  onProgress?: (written: number, total: number) => void;
  /**
   * Branch back before the last compaction at the end (the user branched to
   * an earlier entry): writes a branch_summary whose parentId is an entry
   * before the last compaction (the turn that ended just before its first
   * kept entry), then turns under it for the last min(512 KiB,
   * lastCompactionBeforeEnd / 2) bytes. Default false.
   */
  branchBackAtEnd?: boolean;
  /**
   * Write a settings checkpoint (a `custom` entry of type `xdev.settings`)
   * after every compaction and reset, as this library's writer does, so the
   * windowed loader can stop there. Default true; false gives what omp
   * writes.
   */
  checkpoints?: boolean;
}

/** What {@linkcode generateTranscript} wrote. */
export interface GenerateResult {
  /** File size in bytes. */
  bytes: number;
  /** Entry lines (every line after the title slot and the header). */
  entries: number;
  /** `compaction` entries written. */
  compactions: number;
  /** `reset_boundary` entries written. */
  resets: number;
  /** Byte offset of the last compaction's line, or -1 when there is none. */
  lastCompactionOffset: number;
  /** Id of the last entry: the session's leaf. */
  leafId: string;
}

/** A byte sink: a web stream, or a writer that may accept short counts (`Deno.FsFile`). */
export type TranscriptSink =
  | WritableStream<Uint8Array>
  | { write(p: Uint8Array): Promise<number> };

/** Bytes handed to the sink at a time. */
const CHUNK_BYTES = 1 << 20;
/** Default distance between compactions. */
const DEFAULT_COMPACTION_EVERY = 5 * 1024 * 1024;
/** Default distance of the last compaction from the end: a ~4 MB final window. */
const DEFAULT_LAST_COMPACTION_BEFORE_END = 3.5 * 1024 * 1024;
/** Default places of the `reset_boundary` entries, as fractions of the file. */
const DEFAULT_RESETS_AT: readonly number[] = [0.3, 0.7];
/** Tool outputs are drawn between these sizes, skewed to the small end. */
const TOOL_OUTPUT_MIN = 1024;
const TOOL_OUTPUT_MAX = 200 * 1024;
/** Longest tail written under the branch_summary of `branchBackAtEnd`. */
const BRANCH_TAIL_MAX = 512 * 1024;
/** Every timestamp counts up from here (2026-01-05T09:00:00.000Z). */
const BASE_MS = Date.UTC(2026, 0, 5, 9, 0, 0);
const CWD = "/home/dev/src/app";

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
 * import { generateTranscript } from "./generate.ts";
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
 * import { generateFile } from "./generate.ts";
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
 * import { parseSize } from "./generate.ts";
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

// ---------------------------------------------------------------------------
// Options

interface _Config {
  size: number;
  seed: number;
  compactionEvery: number;
  resetsAt: number[];
  lastCompactionBeforeEnd: number;
  onProgress: ((written: number, total: number) => void) | undefined;
  branchBackAtEnd: boolean;
  checkpoints: boolean;
}

function _config(options: GenerateOptions): _Config {
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      "Cannot generate a transcript: options is not an object",
    );
  }
  const number = (name: string, value: unknown, min: number): number => {
    if (typeof value !== "number") {
      throw new TypeError(
        `Cannot generate a transcript: ${name} is not a number`,
      );
    }
    if (!Number.isFinite(value) || value < min) {
      throw new RangeError(
        `Cannot generate a transcript: ${name} is ${value}, not a finite number ≥ ${min}`,
      );
    }
    return value;
  };
  const resetsAt = options.resetsAt ?? DEFAULT_RESETS_AT;
  if (!Array.isArray(resetsAt)) {
    throw new TypeError(
      "Cannot generate a transcript: resetsAt is not an array",
    );
  }
  for (const f of resetsAt) {
    if (number("a resetsAt fraction", f, 0) > 1) {
      throw new RangeError(
        `Cannot generate a transcript: resetsAt holds ${f}, outside 0–1`,
      );
    }
  }
  const compactionEvery = number(
    "compactionEvery",
    options.compactionEvery ?? DEFAULT_COMPACTION_EVERY,
    0,
  );
  if (compactionEvery === 0) {
    throw new RangeError("Cannot generate a transcript: compactionEvery is 0");
  }
  if (
    options.onProgress !== undefined && typeof options.onProgress !== "function"
  ) {
    throw new TypeError(
      "Cannot generate a transcript: onProgress is not a function",
    );
  }
  return {
    size: number("size", options.size, 0),
    seed: number("seed", options.seed ?? 1, -Infinity),
    compactionEvery,
    resetsAt: [...resetsAt].sort((a, b) => a - b),
    lastCompactionBeforeEnd: number(
      "lastCompactionBeforeEnd",
      options.lastCompactionBeforeEnd ?? DEFAULT_LAST_COMPACTION_BEFORE_END,
      0,
    ),
    onProgress: options.onProgress,
    branchBackAtEnd: options.branchBackAtEnd === true,
    checkpoints: options.checkpoints !== false,
  };
}

// ---------------------------------------------------------------------------
// Bytes out

interface _Port {
  /**
   * Whether the sink may keep a chunk after its write settles: a stream's
   * chunks are handed over, while a writer must not keep `p` (the
   * `Deno.Writer` contract), so its two buffers can be reused.
   */
  keepsChunks: boolean;
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
  abort(reason: unknown): Promise<void>;
}

function _port(sink: TranscriptSink): _Port {
  if (sink instanceof WritableStream) {
    const writer = sink.getWriter();
    return {
      keepsChunks: true,
      write: (chunk) => writer.write(chunk),
      close: () => writer.close(),
      abort: async (reason) => {
        // The generation error is what the caller needs; a failing abort
        // (a stream already errored) adds nothing to it.
        await writer.abort(reason).catch(() => undefined);
      },
    };
  }
  return {
    keepsChunks: false,
    async write(chunk) {
      // FsFile.write may accept fewer bytes than given: loop on the rest.
      for (let at = 0; at < chunk.length;) {
        const n = await sink.write(chunk.subarray(at));
        if (!(n > 0)) {
          throw new Error(
            `Cannot write the transcript: the sink accepted ${n} bytes`,
          );
        }
        at += n;
      }
    },
    close: () => Promise.resolve(),
    abort: () => Promise.resolve(),
  };
}

/** Encodes lines straight into ~1 MiB chunks with one TextEncoder. */
class _ChunkWriter {
  readonly #port: _Port;
  readonly #config: _Config;
  readonly #encoder = new TextEncoder();
  #buf = new Uint8Array(CHUNK_BYTES);
  /** The buffer of the write in flight, reused next when the sink keeps no chunk. */
  #spare: Uint8Array<ArrayBuffer> | undefined;
  #pos = 0;
  #flushed = 0;
  #pending: Promise<void> = Promise.resolve();

  constructor(port: _Port, config: _Config) {
    this.#port = port;
    this.#config = config;
  }

  /** Bytes written so far, including those not yet handed to the sink. */
  get bytes(): number {
    return this.#flushed + this.#pos;
  }

  /** Append `text` and a `"\n"`. */
  async line(text: string): Promise<void> {
    await this.text(text);
    if (this.#pos === this.#buf.length) await this.flush();
    this.#buf[this.#pos++] = 0x0a;
    if (this.#pos >= CHUNK_BYTES - 64) await this.flush();
  }

  /** Append the pieces of a tool output as the inside of a JSON string, joined by an escaped `"\n"`. */
  async body(pieces: _Body): Promise<void> {
    for (let i = 0; i < pieces.length; i++) {
      if (i > 0) await this.#bytes(_ESCAPED_NEWLINE);
      const piece = pieces[i]!;
      if (typeof piece === "string") {
        await this.text(JSON.stringify(piece).slice(1, -1));
      } else {
        await this.#bytes(piece);
      }
    }
  }

  /** Append `text` as UTF-8. */
  async text(text: string): Promise<void> {
    let rest = text;
    for (;;) {
      const { read, written } = this.#encoder.encodeInto(
        rest,
        this.#buf.subarray(this.#pos),
      );
      this.#pos += written;
      if (read === rest.length) break;
      // encodeInto stops on a code point boundary, so the slice is whole.
      rest = rest.slice(read);
      await this.flush();
    }
  }

  async #bytes(bytes: Uint8Array): Promise<void> {
    let rest = bytes;
    while (rest.length > this.#buf.length - this.#pos) {
      const room = this.#buf.length - this.#pos;
      this.#buf.set(rest.subarray(0, room), this.#pos);
      this.#pos += room;
      rest = rest.subarray(room);
      await this.flush();
    }
    this.#buf.set(rest, this.#pos);
    this.#pos += rest.length;
  }

  /**
   * Hand the buffered bytes to the sink and go on encoding while they are
   * written: one write is in flight at most. The next buffer is the one
   * whose write just settled, or a fresh one when the sink may keep chunks
   * (reusing buffers also spares the page faults of fresh memory).
   */
  async flush(): Promise<void> {
    if (this.#pos === 0) return;
    const full = this.#buf;
    const chunk = full.subarray(0, this.#pos);
    this.#flushed += this.#pos;
    this.#pos = 0;
    await this.#pending;
    this.#buf = this.#spare ?? new Uint8Array(CHUNK_BYTES);
    this.#spare = this.#port.keepsChunks ? undefined : full;
    const written = this.#flushed;
    const { onProgress, size } = this.#config;
    this.#pending = this.#port.write(chunk).then(() =>
      onProgress?.(written, size)
    );
    // Marks the rejection as handled until the next flush or drain awaits
    // #pending, which rethrows it: a failed write is never lost.
    this.#pending.catch(() => undefined);
  }

  /** Flush, then wait for the last write. */
  async drain(): Promise<void> {
    await this.flush();
    await this.#pending;
  }
}

// ---------------------------------------------------------------------------
// Randomness and text pools

/** `"\n"` inside a JSON string. */
const _ESCAPED_NEWLINE = new TextEncoder().encode("\\n");

/** `text` as it sits inside a JSON string, in UTF-8. */
function _escape(text: string, encoder: TextEncoder): Uint8Array {
  return encoder.encode(JSON.stringify(text).slice(1, -1));
}

/** mulberry32: small, fast, and the same sequence on every engine. */
function _mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class _Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = _mulberry32(seed);
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  hex(digits: number): string {
    let s = "";
    while (s.length < digits) {
      s += ((this.next() * 4294967296) >>> 0).toString(16).padStart(8, "0");
    }
    return s.slice(0, digits);
  }
}

const _EN = (
  "the session store entry leaf parent slot blob title header append fsync " +
  "branch compaction window reader buffer offset line chunk parse encode " +
  "decode stream file test cache index tree path context model token usage " +
  "cost error retry lock rename atomic write read scan backwards boundary " +
  "reset summary kept first last newline UTF-8 JSON Deno Bun omp ok fast " +
  "slow bytes heap memory then and so but because now check fix add remove " +
  "keep move we it this that should must can will not only every each one " +
  "two three half before after when while"
).split(" ");
const _INTL = (
  "数据 文件 会话 压缩 分支 读取 写入 测试 修复 缓存 保持行为一致 ファイル " +
  "セッション ストリーム 確認 テスト 세션 파일 café déjà naïve über façade " +
  "résumé Ångström crème jalapeño Straße → ✓ — … 🙂 🎉 🧪 🚀 📦 🔥 🐛 ✨ 🛠️ 😅 👍"
).split(" ");
const _FNS = (
  "readSlot appendEntry parseLine loadBlobs resolveLeaf slugForCwd " +
  "rebuildContext scanBackwards openSession writeHeader compactWindow " +
  "hashBlob listSessions forkSession truncateTail"
).split(" ");
const _FILES = (
  "src/session.ts src/line_reader.ts src/window.ts src/context.ts " +
  "src/blob_store.ts src/title_slot.ts src/header.ts src/entries.ts " +
  "tests/session_test.ts tests/window_test.ts cli.ts mod.ts README.md deno.json"
).split(" ");
/** Paths named by failing tool calls. */
const _MISSING = [
  "docs/设计.md",
  "src/セッション.ts",
  "notes/résumé.txt",
  "src/session/store.ts",
];
const _VARS =
  "line entry offset chunk buf ids leaf parent count result text bytes cursor"
    .split(" ");
const _TYPES = [
  "string",
  "number",
  "Uint8Array",
  "SessionEntry",
  "boolean",
  "readonly string[]",
  "Map<string, number>",
];
const _TITLES = [
  "Stream the session loader — 流式读取大文件 🚀",
  "Fix the flaky compaction test (テスト) 🐛",
  "Refactor the blob store: déjà-vu hashing ✨",
  "Open 1 GB sessions in 50 ms — 後ろから読む 📦",
  "Make readSlot handle CRLF (Windows ファイル) 🛠️",
  "Rebuild the context after a reset — 세션 정리 🧪",
];
const _MODELS = [
  {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    api: "anthropic-messages",
  },
  { provider: "openai", model: "gpt-5.1-codex", api: "openai-responses" },
] as const;
/** Prices in USD per million tokens: input, output, cache read, cache write. */
const _PRICES = [[3, 15, 0.3, 3.75], [1.25, 10, 0.125, 0]] as const;
const _TOOLS = ["read", "bash", "grep", "edit", "find"] as const;
type _Tool = typeof _TOOLS[number];
const _PROMPTS = [
  "Refactor {file} to remove the global state, keep behaviour identical.",
  "Why does `{fn}` return undefined for empty input?",
  "Add a unit test for `{fn}` covering the unicode path.",
  "Make `{fn}` handle CRLF line endings.",
  "Run the tests and fix what fails.",
  "Explain what {file} does and list its exports.",
  "Rename `{fn}` to `{fn}V2` everywhere and update the docs.",
];

/** Pre-generated text blocks: tool outputs are stitched from these. */
interface _Pool {
  /** Each block as it sits inside a JSON string: escaped, then UTF-8. */
  escaped: Uint8Array[];
  /** Each block's UTF-8 length unescaped, plus 1 for the joining `"\n"`. */
  bytes: number[];
}

/**
 * A tool output kept as pieces joined by `"\n"`: strings, and pool blocks
 * already escaped and encoded, so the bulk of a file is copied, not
 * re-serialised.
 */
type _Body = (string | Uint8Array)[];

/**
 * Stands for a tool output in the line `encodeEntry` produces; the body is
 * spliced in its place. JSON escaping works character by character, so the
 * spliced line is byte for byte what `encodeEntry` gives for the whole text.
 */
const _BODY_MARK = "<<generate:body>>";
type _Style = "code" | "log" | "grep";
const _BLOCKS_PER_POOL = 96;

class _Text {
  readonly #rng: _Rng;
  readonly #pools = new Map<string, _Pool>();
  readonly #encoder = new TextEncoder();

  constructor(rng: _Rng) {
    this.#rng = rng;
    for (const style of ["code", "log", "grep"] as const) {
      for (const ascii of [false, true]) {
        const texts = Array.from(
          { length: _BLOCKS_PER_POOL },
          () => this.#block(style, ascii),
        );
        this.#pools.set(`${style}${ascii}`, {
          escaped: texts.map((t) => _escape(t, this.#encoder)),
          bytes: texts.map((t) => this.#encoder.encode(t).length + 1),
        });
      }
    }
  }

  /** `n` words; unless `ascii`, at least one of them non-ASCII. */
  words(n: number, ascii: boolean): string {
    const r = this.#rng;
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      parts.push(!ascii && r.chance(0.18) ? r.pick(_INTL) : r.pick(_EN));
    }
    if (!ascii) parts[r.int(n)] = r.pick(_INTL);
    return parts.join(" ");
  }

  /** `{file}` and `{fn}` filled in. */
  fill(template: string): string {
    return template.replaceAll("{file}", this.#rng.pick(_FILES))
      .replaceAll("{fn}", this.#rng.pick(_FNS));
  }

  /** Code-like text of 1–200 KB (UTF-8, before JSON escaping), `head` first. */
  toolOutput(tool: _Tool, ascii: boolean, head: string): _Body {
    const style: _Style = tool === "bash"
      ? "log"
      : tool === "grep" || tool === "find"
      ? "grep"
      : "code";
    const pool = this.#pools.get(`${style}${ascii}`)!;
    const r = this.#rng;
    // Skewed to small outputs: mean ~21 KB, so ~400 entries make 4 MB.
    const target = TOOL_OUTPUT_MIN *
      (TOOL_OUTPUT_MAX / TOOL_OUTPUT_MIN) ** (r.next() ** 2);
    const parts: _Body = [head];
    let bytes = head.length + 1;
    while (bytes < target) {
      const i = r.int(pool.escaped.length);
      if (bytes + pool.bytes[i]! > TOOL_OUTPUT_MAX) break;
      parts.push(pool.escaped[i]!);
      bytes += pool.bytes[i]!;
    }
    if (!ascii && r.chance(0.01)) {
      // A raw U+2028 inside a string: valid JSON, a line break to some readers.
      parts.push(`const SEP = "${r.pick(_INTL)}\u2028${r.pick(_INTL)}";`);
    }
    return parts;
  }

  #block(style: _Style, ascii: boolean): string {
    const r = this.#rng;
    const lines: string[] = [];
    const count = r.range(6, 32);
    if (style === "log") {
      const file = r.pick(_FILES);
      lines.push(`running ${count} tests from ./${file}`);
      for (let i = 0; i < count; i++) {
        lines.push(
          `${r.pick(_FNS)} ${this.words(r.range(1, 4), ascii)} ... ok (${
            r.range(1, 90)
          }ms)`,
        );
      }
      lines.push(`ok | ${count} passed | 0 failed (${r.range(20, 900)}ms)`);
    } else if (style === "grep") {
      for (let i = 0; i < count; i++) {
        lines.push(
          `${r.pick(_FILES)}:${r.range(1, 900)}:  ${this.#codeLine(ascii)}`,
        );
      }
    } else {
      const v = r.pick(_VARS);
      const type = r.pick(_TYPES);
      lines.push(`// ${this.words(r.range(4, 12), ascii)}`);
      lines.push(`export function ${r.pick(_FNS)}(${v}: ${type}): ${type} {`);
      for (let i = 0; i < count; i++) lines.push(`  ${this.#codeLine(ascii)}`);
      lines.push(`  return ${v};`, "}");
    }
    return lines.join("\n");
  }

  #codeLine(ascii: boolean): string {
    const r = this.#rng;
    const v = r.pick(_VARS);
    const w = r.pick(_VARS);
    switch (r.int(6)) {
      case 0:
        return `const ${v} = ${w}.subarray(${r.range(0, 4096)});`;
      case 1:
        return `if (${v}.length > ${r.range(1, 1 << 20)}) return ${
          r.pick(_FNS)
        }(${v}, "${this.words(3, ascii)}");`;
      case 2:
        return `// ${this.words(r.range(3, 10), ascii)}`;
      case 3:
        return `for (const item of ${v}) total += item.${w} ?? ${
          r.range(0, 99)
        };`;
      case 4:
        return `await ${r.pick(_FNS)}(${v}, { signal, offset: ${
          r.range(0, 1e6)
        } });`;
      default:
        return `throw new RangeError(\`Cannot read "${r.pick(_FILES)}": ${
          this.words(r.range(2, 6), ascii)
        }\`);`;
    }
  }
}

// ---------------------------------------------------------------------------
// The transcript

/** What a recent chain entry was, for picking compaction and branch targets. */
interface _Recent {
  id: string;
  kind: "user" | "turnEnd" | "other";
  model: number;
}
const _RECENT_KEPT = 64;

type _Payload = Record<string, unknown>;

class _Transcript {
  readonly #w: _ChunkWriter;
  readonly #c: _Config;
  readonly #r: _Rng;
  readonly #text: _Text;
  readonly #ids = new Set<number>();
  #clock = BASE_MS;
  #leaf: string | null = null;
  #model = 0;
  #entries = 0;
  #compactions = 0;
  #resets = 0;
  #lastCompactionOffset = -1;
  #recent: _Recent[] = [];
  /** Rounds of tool calls left in the turn; -1 between turns. */
  #roundsLeft = -1;
  #afterUser = false;
  #modelChangeDue = false;
  #nextCompaction: number;
  readonly #finalAt: number | undefined;
  #finalDone = false;
  readonly #branchAt: number | undefined;
  #branched = false;
  /** Where `branchBackAtEnd` goes back to: an entry before the last compaction. */
  #branchPoint: _Recent | undefined;
  #resetIndex = 0;

  constructor(writer: _ChunkWriter, config: _Config) {
    this.#w = writer;
    this.#c = config;
    this.#r = new _Rng(config.seed);
    this.#text = new _Text(this.#r);
    const { size, lastCompactionBeforeEnd: last, compactionEvery } = config;
    this.#finalAt = size > last ? size - last : undefined;
    this.#nextCompaction = compactionEvery;
    this.#branchAt = config.branchBackAtEnd
      ? size - Math.min(BRANCH_TAIL_MAX, last / 2)
      : undefined;
  }

  async run(): Promise<GenerateResult> {
    const idRng = new _Rng(this.#c.seed ^ 0x5eed1d);
    const title = idRng.pick(_TITLES);
    const opening = this.#opening(title);
    const titleChange = opening[opening.length - 1]!;
    const slot = marshalTitleSlot({
      title,
      source: "auto",
      updatedAt: titleChange.entry.timestamp,
    });
    const header: SessionHeader = {
      type: "session",
      version: SESSION_VERSION,
      id: _uuidV7(BASE_MS, idRng),
      timestamp: new Date(BASE_MS).toISOString(),
      cwd: CWD,
    };
    await this.#w.line(new TextDecoder().decode(slot.subarray(0, -1)));
    await this.#w.line(JSON.stringify(header));
    let done = false;
    for (const { entry, kind } of opening) {
      done = await this.#write(entry, kind);
      if (done) break;
    }
    while (!done) done = await this.#step();
    await this.#w.drain();
    return {
      bytes: this.#w.bytes,
      entries: this.#entries,
      compactions: this.#compactions,
      resets: this.#resets,
      lastCompactionOffset: this.#lastCompactionOffset,
      leafId: this.#leaf!,
    };
  }

  /** Model and thinking level, then a short first turn the title came from. */
  #opening(title: string): { entry: SessionEntry; kind: _Recent["kind"] }[] {
    const out: { entry: SessionEntry; kind: _Recent["kind"] }[] = [];
    const add = (entry: SessionEntry, kind: _Recent["kind"]): void => {
      out.push({ entry, kind });
      this.#leaf = entry.id; // chain the next envelope; #write sets it again
    };
    add(this.#modelChange(), "other");
    add({
      ...this.#envelope("thinking_level_change", 0),
      thinkingLevel: "medium",
      configured: "medium",
    }, "other");
    add(this.#user(false), "user");
    add(this.#assistant(false, 0), "turnEnd");
    add({
      ...this.#envelope("title_change", 0),
      title,
      source: "auto",
      trigger: "auto-title",
    }, "other");
    this.#leaf = null;
    return out;
  }

  /** One step: events due at this point, then a user turn, a tool round or a reply. */
  async #step(): Promise<boolean> {
    if (!this.#afterUser && await this.#events()) return true;
    const ascii = this.#r.chance(0.04);
    if (this.#roundsLeft < 0) {
      const r = this.#r;
      this.#roundsLeft = r.chance(0.2) ? 0 : r.range(1, 5);
      this.#afterUser = true;
      return await this.#write(this.#user(ascii), "user");
    }
    this.#afterUser = false;
    if (this.#roundsLeft === 0) {
      this.#roundsLeft = -1;
      return await this.#write(this.#assistant(ascii, 0), "turnEnd");
    }
    this.#roundsLeft--;
    const r = this.#r;
    const calls = r.chance(0.75) ? 1 : r.chance(0.7) ? 2 : 3;
    const turn = this.#assistant(ascii, calls);
    if (await this.#write(turn, "other")) return true;
    for (const block of turn.message.content) {
      if (block.type !== "toolCall") continue;
      const { entry, body } = this.#toolResult(
        block as { id: string; name: _Tool; arguments: _Payload },
        r.chance(0.05),
      );
      if (await this.#write(entry, "other", body)) return true;
    }
    return false;
  }

  /** Compactions, the branch, resets and model changes due now. */
  async #events(): Promise<boolean> {
    const bytes = this.#w.bytes;
    const every = this.#c.compactionEvery;
    const final = this.#finalAt;
    if (final !== undefined && !this.#finalDone) {
      if (bytes >= final) {
        this.#finalDone = true;
        if (await this.#compaction(true)) return true;
      } else if (bytes >= this.#nextCompaction && bytes < final - every / 2) {
        if (await this.#compaction(false)) return true;
      }
    }
    if (
      this.#branchAt !== undefined && !this.#branched && bytes >= this.#branchAt
    ) {
      this.#branched = true;
      if (await this.#branch()) return true;
    }
    if (this.#roundsLeft >= 0) return false; // mid-turn: the rest waits
    const resetAt = this.#c.resetsAt[this.#resetIndex];
    if (resetAt !== undefined && bytes >= resetAt * this.#c.size) {
      this.#resetIndex++;
      this.#resets++;
      if (await this.#write(this.#envelope("reset_boundary", 30), "other")) {
        return true;
      }
      if (await this.#checkpoint()) return true;
    }
    if (this.#modelChangeDue || this.#r.chance(0.02)) {
      this.#modelChangeDue = false;
      this.#model ^= 1;
      return await this.#write(this.#modelChange(), "other");
    }
    return false;
  }

  async #compaction(final: boolean): Promise<boolean> {
    const r = this.#r;
    const kept = this.#firstKept();
    if (final) this.#branchPoint = this.#before(kept);
    const offset = this.#w.bytes;
    const entry = {
      ...this.#envelope("compaction", 40),
      summary: this.#summary(),
      shortSummary: this.#text.words(r.range(3, 6), false),
      firstKeptEntryId: this.#recent[kept]?.id ?? null,
      tokensBefore: Math.round((offset - this.#lastCompactionOffset) / 3.7) +
        r.range(2000, 9000),
      tokensAfter: r.range(3000, 12000),
      details: { readFiles: [r.pick(_FILES)], modifiedFiles: [r.pick(_FILES)] },
    };
    this.#compactions++;
    this.#lastCompactionOffset = offset;
    this.#nextCompaction = offset + this.#c.compactionEvery;
    this.#modelChangeDue = r.chance(0.5);
    if (await this.#write(entry, "other")) return true;
    return await this.#checkpoint();
  }

  /** The settings checkpoint after a boundary (see the `checkpoints` option). */
  async #checkpoint(): Promise<boolean> {
    if (!this.#c.checkpoints) return false;
    const { provider, model } = _MODELS[this.#model]!;
    return await this.#write({
      ...this.#envelope("custom", 0),
      customType: SETTINGS_CHECKPOINT_TYPE,
      data: {
        v: 1,
        models: { default: `${provider}/${model}` },
        explicitDefaultModel: true,
        thinkingLevel: "medium",
        configuredThinkingLevel: "medium",
        labels: {},
      },
    }, "other");
  }

  /** Index in #recent of the first kept entry: the latest user message a few entries back. */
  #firstKept(): number {
    const recent = this.#recent;
    for (let i = recent.length - 3; i >= 0; i--) {
      if (recent[i]!.kind === "user") return i;
    }
    return Math.max(0, recent.length - 3);
  }

  /** The latest turn end before index `kept` (else the entry just before it). */
  #before(kept: number): _Recent | undefined {
    for (let i = kept - 1; i >= 0; i--) {
      if (this.#recent[i]!.kind === "turnEnd") return this.#recent[i];
    }
    return this.#recent[kept - 1] ?? this.#recent[this.#recent.length - 1];
  }

  async #branch(): Promise<boolean> {
    const point = this.#branchPoint ?? this.#before(this.#firstKept());
    if (point === undefined) return false;
    this.#leaf = point.id;
    this.#model = point.model;
    this.#roundsLeft = -1;
    this.#recent = [point];
    return await this.#write({
      ...this.#envelope("branch_summary", 5),
      fromId: point.id,
      summary: `Abandoned approach: ${
        this.#text.words(this.#r.range(12, 40), false)
      }`,
      details: { readFiles: [this.#r.pick(_FILES)] },
    }, "other");
  }

  #summary(): string {
    const t = this.#text;
    const r = this.#r;
    const bullets = Array.from(
      { length: r.range(3, 8) },
      () => `- ${t.words(r.range(6, 20), false)}`,
    );
    return `## Goal\n${t.words(r.range(10, 30), false)}\n\n## Progress\n${
      bullets.join("\n")
    }\n\n## Files\n- ${r.pick(_FILES)}\n- ${r.pick(_FILES)}\n\n## Next steps\n${
      t.words(r.range(8, 24), false)
    }`;
  }

  #user(ascii: boolean): SessionEntry {
    const r = this.#r;
    let text = `${this.#text.fill(r.pick(_PROMPTS))} ${
      this.#text.words(r.range(3, 60), ascii)
    }`;
    if (!ascii && r.chance(0.02)) text += `\u2028${this.#text.words(4, false)}`;
    const envelope = this.#envelope("message", 60);
    return {
      ...envelope,
      message: {
        role: "user",
        content: [{ type: "text", text }],
        timestamp: Date.parse(envelope.timestamp) - 1,
      },
    };
  }

  #assistant(
    ascii: boolean,
    calls: number,
  ): MessageEntry & { message: AssistantMessage } {
    const r = this.#r;
    const t = this.#text;
    const { provider, model, api } = _MODELS[this.#model]!;
    const content: ContentBlock[] = [];
    if (r.chance(0.7)) {
      content.push({
        type: "thinking",
        thinking: t.words(r.range(15, 200), ascii),
        thinkingSignature: provider === "anthropic"
          ? btoa(r.hex(64))
          : JSON.stringify({
            type: "reasoning",
            id: `rs_${r.hex(32)}`,
            summary: [],
          }),
      });
    }
    if (content.length === 0 || calls === 0 || r.chance(0.5)) {
      content.push({ type: "text", text: t.words(r.range(4, 160), ascii) });
    }
    for (let i = 0; i < calls; i++) {
      const name = r.pick(_TOOLS);
      const id = provider === "anthropic"
        ? `toolu_01${r.hex(22)}`
        : `call_${r.hex(24)}|fc_${r.hex(32)}`;
      content.push({
        type: "toolCall",
        id,
        name,
        arguments: this.#arguments(name),
      });
    }
    const envelope = this.#envelope("message", 25);
    const message: AssistantMessage = {
      role: "assistant",
      content,
      api,
      provider,
      model,
      usage: this.#usage(),
      stopReason: calls > 0 ? "toolUse" : "stop",
      timestamp: Date.parse(envelope.timestamp) - 1,
      duration: r.range(400, 9000),
    };
    return { ...envelope, message };
  }

  #arguments(name: _Tool): _Payload {
    const r = this.#r;
    switch (name) {
      case "read":
        return { path: r.pick(_FILES) };
      case "bash":
        return { command: `deno test --filter ${r.pick(_FNS)}`, timeout: 120 };
      case "grep":
        return { pattern: r.pick(_FNS), path: "src" };
      case "edit":
        return {
          path: r.pick(_FILES),
          oldText: r.pick(_FNS),
          newText: `${r.pick(_FNS)}V2`,
        };
      case "find":
        return { pattern: "**/*.ts" };
    }
  }

  #usage(): Usage {
    const r = this.#r;
    const [pIn, pOut, pRead, pWrite] = _PRICES[this.#model]!;
    const input = r.range(800, 60000);
    const output = r.range(40, 4000);
    const cacheRead = r.range(0, 120000);
    const cacheWrite = r.range(0, 4000);
    const usd = (tokens: number, price: number): number =>
      Math.round(tokens * price) / 1e6;
    const cost = {
      input: usd(input, pIn),
      output: usd(output, pOut),
      cacheRead: usd(cacheRead, pRead),
      cacheWrite: usd(cacheWrite, pWrite),
      total: 0,
    };
    cost.total = Math.round(
      (cost.input + cost.output + cost.cacheRead + cost.cacheWrite) * 1e6,
    ) / 1e6;
    const totalTokens = input + output + cacheRead + cacheWrite;
    return { input, output, cacheRead, cacheWrite, totalTokens, cost };
  }

  #toolResult(
    call: { id: string; name: _Tool; arguments: _Payload },
    isError: boolean,
  ): { entry: SessionEntry; body: _Body | undefined } {
    const r = this.#r;
    const ascii = r.chance(0.04);
    const head = `${call.name} ${JSON.stringify(call.arguments)} #${r.hex(6)}`;
    const body = isError
      ? undefined
      : this.#text.toolOutput(call.name, ascii, head);
    const text = body === undefined
      ? `Error: ENOENT: no such file or directory, open '${r.pick(_MISSING)}'`
      : _BODY_MARK;
    const envelope = this.#envelope("message", 3);
    const entry: SessionEntry = {
      ...envelope,
      message: {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text }],
        isError,
        timestamp: Date.parse(envelope.timestamp) - 1,
      },
    };
    return { entry, body };
  }

  #modelChange(): SessionEntry {
    const { provider, model } = _MODELS[this.#model]!;
    return {
      ...this.#envelope("model_change", 0),
      model: `${provider}/${model}`,
      resolvedModelIsFallback: false,
    };
  }

  /** The envelope of the next entry: a fresh id, the leaf as parent, the clock moved on. */
  #envelope<T extends string>(type: T, maxSeconds: number): {
    type: T;
    id: string;
    parentId: string | null;
    timestamp: string;
  } {
    const r = this.#r;
    this.#clock += 1000 * r.range(1, Math.max(1, maxSeconds)) + r.int(1000);
    let n: number;
    do n = (r.next() * 4294967296) >>> 0; while (this.#ids.has(n));
    this.#ids.add(n);
    return {
      type,
      id: n.toString(16).padStart(8, "0"),
      parentId: this.#leaf,
      timestamp: new Date(this.#clock).toISOString(),
    };
  }

  /** Write one entry; true once the target size is reached. */
  async #write(
    entry: SessionEntry,
    kind: _Recent["kind"],
    body?: _Body,
  ): Promise<boolean> {
    const line = encodeEntry(entry);
    if (body === undefined) {
      await this.#w.line(line);
    } else {
      const at = line.indexOf(_BODY_MARK);
      await this.#w.text(line.slice(0, at));
      await this.#w.body(body);
      await this.#w.line(line.slice(at + _BODY_MARK.length));
    }
    this.#entries++;
    this.#leaf = entry.id;
    this.#recent.push({ id: entry.id, kind, model: this.#model });
    if (this.#recent.length > _RECENT_KEPT) this.#recent.shift();
    // With branchBackAtEnd the file does not end before the branch is written.
    return this.#w.bytes >= this.#c.size &&
      (this.#branchAt === undefined || this.#branched);
  }
}

/** A UUIDv7-looking id: `ms` in the first 48 bits, the rest from `rng`. */
function _uuidV7(ms: number, rng: _Rng): string {
  const h = ms.toString(16).padStart(12, "0") + rng.hex(20);
  const variant = (8 | (parseInt(h[16]!, 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-${variant}${
    h.slice(17, 20)
  }-${h.slice(20, 32)}`;
}
