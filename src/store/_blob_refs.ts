/**
 * The blobs a file names, as gc counts them: every `blob:sha256:<64 hex>` a
 * session's bytes hold, and every one its JSON strings mean. Two passes over
 * one read of the file, in bounded memory:
 *
 * 1. The bytes, chunk by chunk: a reference written out (any case, as omp's
 *    gc matches it) counts wherever it sits, in a torn, glued, NUL-led or
 *    unparsable line too. This is omp's rule (it keeps "raw-text matching:
 *    recoverable malformed records can still own blobs").
 * 2. The lines (through the one line splitter, `read/lines.ts`): a line
 *    holding a `\u` escape is decoded as the loader decodes it
 *    (`read/_decode.ts`: a glued line gives its first value) and every string
 *    in it, keys too, is searched. `"blob:sha256:\u0030…"` is the same string
 *    as `"blob:sha256:0…"`, which the loader and omp follow; no other JSON
 *    escape can spell a character of a reference, so a line without `\u`
 *    needs no decoding.
 *
 * A gzip file (omp's archive, `*.jsonl.gz`) is known by its first two bytes
 * and read through the platform's `DecompressionStream`. A line longer than
 * the loader's limit cannot be decoded in bounded memory, so it is an error:
 * gc then deletes nothing rather than miss what the line may name.
 *
 * @module
 */

import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";
import { decodeLine, IssueLog } from "../read/_decode.ts";
import { openRegular } from "../read/_open.ts";
import { type Line, LineSplitter, READ_BYTES } from "../read/lines.ts";
import type { FileHandle } from "../_fs.ts";

/**
 * A reference as gc counts it: the prefix in any case (omp's gc matches
 * `/\bblob:sha256:([a-f0-9]{64})\b/gi`), then 64 hex digits, whatever
 * follows (a reference whose hex runs on counts too: never fewer than omp).
 */
const _REF = /blob:sha256:([0-9a-f]{64})/gi;
/** Characters kept from one chunk for the next, so a reference split across two is found. */
const _CARRY = "blob:sha256:".length + 63;
const _BACKSLASH = 0x5c;
const _U = 0x75;
const _latin1 = new TextDecoder("latin1");

/** Limits of {@linkcode scanBlobRefs}. */
export interface ScanBlobRefsOptions {
  /** The longest line decoded; a longer one holding anything is an error. Default: the loader's, 64 MiB. */
  maxLineBytes?: number;
}

/**
 * Add the digest (lowercase) of every blob a file names to `found`.
 *
 * @param path A session file, plain or gzip.
 * @param found Where the digests go.
 * @param options The line bound.
 * @throws {Error} When the file cannot be read (not a regular file, a bad
 * gzip stream, a read error) or holds a line longer than the bound.
 *
 * @example A reference spelled with an escape
 * ```ts
 * import { scanBlobRefs } from "./_blob_refs.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, `{"data":"blob:sha256:\\u0061${"a".repeat(63)}"}\n`);
 * const found = new Set<string>();
 * await scanBlobRefs(path, found);
 * deepEqual([...found], ["a".repeat(64)]);
 * await Deno.remove(path);
 * ```
 */
export async function scanBlobRefs(
  path: string,
  found: Set<string>,
  options: ScanBlobRefsOptions = {},
): Promise<void> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const file = await openRegular(path, `Cannot read "${path}"`);
  try {
    const magic = new Uint8Array(2);
    const gzip = await file.read(magic, 0) === 2 && magic[0] === 0x1f &&
      magic[1] === 0x8b;
    const splitter = new LineSplitter({ maxLineBytes });
    let carry = "";
    try {
      for await (const chunk of gzip ? _gunzipped(file) : _chunks(file)) {
        const text = carry + _latin1.decode(chunk);
        _match(text, found);
        carry = text.slice(-_CARRY);
        for (const line of splitter.push(chunk)) {
          _decoded(line, maxLineBytes, found);
        }
      }
      const last = splitter.end();
      if (last !== undefined) _decoded(last, maxLineBytes, found);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(`Cannot read "${path}"${gzip ? " (gzip)" : ""}: ${why}`, {
        cause: err,
      });
    }
  } finally {
    await file[Symbol.asyncDispose]();
  }
}

/** The digests of the references in `text`, lowercased, into `found`. */
function _match(text: string, found: Set<string>): void {
  for (const m of text.matchAll(_REF)) found.add(m[1]!.toLowerCase());
}

/** A line holding a `\u` escape: the references its strings mean, into `found`. */
function _decoded(line: Line, max: number, found: Set<string>): void {
  if (line.oversized) {
    throw new RangeError(
      `line ${
        line.index + 1
      } is ${line.length} bytes, more than the ${max} gc decodes (the loader's bound), so what it names cannot all be found`,
    );
  }
  const bytes = line.bytes;
  if (bytes === undefined || !_hasUnicodeEscape(bytes)) return;
  // Damage is the loader's to report; here only the meaning counts.
  _walkStrings(decodeLine(line, new IssueLog()), (s) => _match(s, found));
}

function _hasUnicodeEscape(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(_BACKSLASH); i !== -1;) {
    if (bytes[i + 1] === _U) return true;
    i = bytes.indexOf(_BACKSLASH, i + 2); // `\\` is one escape
  }
  return false;
}

/** Every string in a JSON value, member names too; a stack, not recursion, so no nesting overflows it. */
function _walkStrings(value: unknown, visit: (s: string) => void): void {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") visit(v);
    else if (Array.isArray(v)) stack.push(...v);
    else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        visit(k);
        stack.push(x);
      }
    }
  }
}

/** A file's bytes by positional reads into one buffer (each chunk valid until the next is asked for). */
async function* _chunks(file: FileHandle): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(READ_BYTES);
  for (let at = 0, n; (n = await file.read(buffer, at)) > 0; at += n) {
    yield buffer.subarray(0, n);
  }
}

/** A gzip file's bytes, decompressed by the platform's web stream. */
function _gunzipped(file: FileHandle): AsyncIterable<Uint8Array> {
  let at = 0;
  const compressed = new ReadableStream<BufferSource>({
    async pull(controller) {
      const chunk = new Uint8Array(READ_BYTES);
      const n = await file.read(chunk, at);
      if (n === 0) controller.close();
      else {
        at += n;
        controller.enqueue(chunk.subarray(0, n));
      }
    },
  }, { highWaterMark: 0 });
  return compressed.pipeThrough<Uint8Array>(new DecompressionStream("gzip"));
}
