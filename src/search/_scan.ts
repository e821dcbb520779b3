/**
 * The scan of one session file, in bounded memory: 4 MiB at a time through
 * the byte kernel, which finds the newlines and the places the query's
 * byte needle may be. A large file is read ahead: the next 4 MiB are read
 * into the kernel's second region (on the runtime's I/O thread:
 * `readAheadAt` in `fs/_read.ts`) while this one is scanned. A line is
 * decoded only when the needle (or an escape that may hide it) is in it,
 * or when its envelope is not at its start and the tree needs its id. A
 * line with the needle is held back, judged while the next read is under
 * way, and taken once the file is scanned, the last first
 * (`_later_lines.ts`).
 * The tree (ids and parents), walked for `onActivePath`, is needed only by
 * a file with hits: it is built from the first line that may match on,
 * after the lines before it are read again for it (`_tree_before.ts`); a
 * file where no line may match costs no envelope read at all (~7 % of a
 * 100 MB scan for a word in no line, ~14 % of a scan of 10,000 small
 * sessions).
 *
 * @module
 */

import { branchMarkerTarget, type SessionEntry } from "../format/entries.ts";
import { type ReadAheadAt, readAheadAt } from "../fs/_read.ts";
import type { FsHandle } from "../fs/_seam.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/_line.ts";
import type { HitList } from "./_hits.ts";
import type { LaterLines, LaterSink } from "./_later_lines.ts";
import {
  CANDIDATE,
  ESCAPE,
  type Kernel,
  type KernelScan,
  NEWLINE,
  READ_BYTES,
  readPlace,
  readSpan,
  SPAN_BYTES,
} from "../read/_kernel.ts";
import {
  entryLineText,
  type LineText,
  parseEntryLine,
  SEARCH_LINE_BYTES,
  textlessType,
} from "./_line.ts";
import type { ByteNeedle } from "./_needle.ts";
import { SEARCH_TEXT_CHARS } from "./_text.ts";
import { EntryTree } from "./_tree.ts";
import { bytesAt, ENVELOPE_BYTES, treeBefore } from "./_tree_before.ts";

/** Bytes of a line's start kept while the line spans reads: an envelope's worth. */
const _HEAD = ENVELOPE_BYTES;
/** Bytes kept before the part scanned, so a line's last bytes are at hand. */
const _HISTORY = 2;
/**
 * Files with this many bytes left to scan are read ahead: a 100 MB scan
 * for a word in no line went from ~13 to ~10 ms. Under it, the round trips
 * of asynchronous reads (~40 µs each) cost more than they hide.
 */
const _AHEAD_BYTES = 3 * READ_BYTES;
const _CLOSE_BRACE = 0x7d;
/** A guess at an entry's bytes, to size the tree for a file up front. */
const _BYTES_PER_ENTRY = 4096;

/** What a scan needs besides the file. */
export interface ScanContext {
  /** The kernel (and its buffer). */
  kernel: Kernel;
  /** The byte filter, or undefined to decode every line that may hold text. */
  needle: ByteNeedle | undefined;
  /** Where matches go. */
  hits: HitList;
  /** Matching lines held back until the file is scanned. */
  later: LaterLines;
  /** Where a small file is read whole (reused from file to file). */
  small: Uint8Array;
}

/**
 * The last entry seen, for the leaf: where its line is (its envelope is
 * read again at the end, so no line's id is made into a string meanwhile),
 * or, for a line that had to be parsed, its id and branch marker target.
 */
type _Last =
  | { offset: number; size: number }
  | { offset?: undefined; id: string; target: string | undefined };

/** Finds the active path, once asked: only a file with hits is asked. */
export type ActivePath = () => Promise<{ has(id: string): boolean }>;

const _CUSTOM = new TextEncoder().encode("custom");

/**
 * Scan a version 3 file's entries for the query.
 *
 * @param file The open file.
 * @param path Its path (for the hits).
 * @param bodyStart Where its entries start.
 * @param ctx Kernel, needle, hits.
 * @returns What finds its active path (while the file is open).
 */
export async function scanFile(
  file: FsHandle,
  path: string,
  bodyStart: number,
  ctx: ScanContext,
): Promise<ActivePath> {
  const size = (await file.stat()).size;
  const source = readAheadAt(file, size); // the scan's own handle
  const s = new _FileScan(source, path, bodyStart, ctx);
  try {
    await s.run();
  } finally {
    await source.settle(); // no read left under way as the file closes
  }
  return async () => s.activePath(await s.lastLeaf());
}

class _FileScan {
  readonly #source: ReadAheadAt;
  readonly #path: string;
  /** Where the lines held back go. */
  readonly #sink: LaterSink;
  readonly #ctx: ScanContext;
  /** The tree, once a line may match (see {@linkcode #catchUp}). */
  #tree: EntryTree | undefined;
  readonly #bodyStart: number;
  readonly #env = new EnvelopeAt();
  readonly #head = new Uint8Array(_HEAD);
  #headLength = 0;
  /** Absolute offset of `buffer[0]`. */
  #base = 0;
  /** Absolute offset of the first byte the buffer holds of the file. */
  #kept = 0;
  #lineStart: number;
  #flagged = false;
  #last: _Last | undefined;

  constructor(
    source: ReadAheadAt,
    path: string,
    bodyStart: number,
    ctx: ScanContext,
  ) {
    this.#source = source;
    this.#bodyStart = bodyStart;
    // Without a needle every line may match: the tree from the start.
    if (ctx.needle === undefined) this.#tree = this.#newTree();
    this.#path = path;
    this.#sink = { hits: ctx.hits, path };
    this.#ctx = ctx;
    this.#lineStart = bodyStart;
  }

  async run(): Promise<void> {
    const { kernel, needle, later } = this.#ctx;
    later.clear();
    const buffer = kernel.buffer;
    const source = this.#source;
    const keep = Math.max(needle === undefined ? 0 : needle.length - 1, 5);
    let position = this.#lineStart;
    // A large file is read ahead: the next chunk goes into the other
    // region while this one is scanned.
    const ahead = source.size - position >= _AHEAD_BYTES;
    let region = 0;
    let at = readPlace(region, position); // aligned as the file is (mod 64)
    buffer[at - 2] = buffer[at - 1] = 0x0a;
    this.#base = position - at;
    this.#kept = position;
    const spec: KernelScan = {
      start: at,
      end: 0,
      first: needle?.anchors?.first ?? -1,
      second: needle?.anchors?.second ?? 0,
      firstBytes: needle?.anchors?.firstBytes ?? [0, 0],
      secondBytes: needle?.anchors?.secondBytes ?? [0, 0],
      escapes: needle !== undefined && needle.escapes.size > 0,
    };
    for (;;) {
      const n = await source.readAt(readSpan(buffer, at, position), position);
      position += n;
      const total = at + n;
      const eof = n === 0 || position >= source.size;
      if (ahead && !eof) {
        region ^= 1;
        source.readAhead(
          readSpan(buffer, readPlace(region, position), position),
          position,
        );
      }
      const end = eof ? total : Math.max(spec.start, total - keep);
      for (let from = spec.start;;) {
        spec.start = from;
        spec.end = Math.min(end, from + SPAN_BYTES);
        await this.#events(kernel, kernel.scan(spec), total);
        if (spec.end === end) break;
        from = spec.end;
      }
      if (eof) {
        if (this.#lineStart < this.#base + total) {
          await this.#lastLine(buffer, total);
        }
        later.takeAll(this.#sink);
        return;
      }
      // The lines held back are judged (decoded, parsed, matched) while
      // the next chunk is read: the scan's end is left with choosing.
      if (ahead) later.prepare(this.#ctx.hits);
      this.#keepHead(buffer, total);
      // The bytes not examined yet, and two before them, go just before
      // where the next read goes (in the other region when reading ahead).
      const from = spec.end - _HISTORY;
      at = readPlace(region, position);
      const to = at - (total - from);
      buffer.copyWithin(to, from, total);
      this.#base += from - to;
      this.#kept = this.#base + to;
      spec.start = to + _HISTORY;
    }
  }

  /** Take the events of one scan of the kernel. */
  async #events(kernel: Kernel, count: number, total: number): Promise<void> {
    const { needle } = this.#ctx;
    const buffer = kernel.buffer;
    const events = kernel.events;
    for (let i = 0; i < count; i++) {
      const event = events[i]!;
      const at = event & 0x0fffffff;
      const kind = event >>> 28;
      if (kind === NEWLINE) {
        const reading = this.#lineEnd(buffer, at); // a promise only when it reads
        if (reading !== undefined) await reading;
      } else if (this.#flagged) continue;
      else if (kind === CANDIDATE) {
        this.#flagged = needle!.at(buffer, at, total);
      } else if (kind === ESCAPE) {
        this.#flagged = needle!.escapeAt(buffer, at, total);
      }
    }
  }

  /** The last entry's id and the target of its branch marker, if it is one. */
  async lastLeaf(): Promise<{ id: string; target: string | undefined }> {
    const last = this.#last;
    if (last === undefined) return { id: "", target: undefined };
    if (last.offset === undefined) return last;
    const head = await bytesAt(
      this.#source,
      last.offset,
      Math.min(last.size, _HEAD),
    );
    const env = this.#env;
    if (!readEnvelope(head, 0, head.length, env)) {
      return { id: "", target: undefined }; // changed since it was read
    }
    const id = env.id();
    if (!env.typeIs(_CUSTOM) || last.size > SEARCH_LINE_BYTES) {
      return { id, target: undefined };
    }
    const entry = parseEntryLine(
      await bytesAt(this.#source, last.offset, last.size),
    );
    const target = entry === undefined ? undefined : branchMarkerTarget(entry);
    return { id, target };
  }

  /** The ids on the active path, given the last entry (and marker target). */
  activePath(
    leaf: { id: string; target: string | undefined },
  ): { has(id: string): boolean } {
    const tree = this.#tree ?? this.#newTree();
    if (this.#last === undefined) return tree.path(null);
    const { id, target } = leaf;
    return tree.path(target !== undefined && tree.has(target) ? target : id);
  }

  /** Save the start of the line under way before the buffer moves on. */
  #keepHead(buffer: Uint8Array, total: number): void {
    const from = this.#lineStart + this.#headLength;
    if (this.#headLength >= _HEAD || from >= this.#base + total) return;
    const start = from - this.#base;
    const end = Math.min(total, this.#lineStart + _HEAD - this.#base);
    this.#head.set(buffer.subarray(start, end), this.#headLength);
    this.#headLength += end - start;
  }

  /** A line ends at `buffer[at]` ("\n"); a promise when its bytes must be read. */
  #lineEnd(buffer: Uint8Array, at: number): Promise<void> | undefined {
    const start = this.#lineStart;
    const flagged = this.#flagged || this.#ctx.needle === undefined;
    let end = this.#base + at;
    let last = at - 1;
    if (end > start && buffer[last] === 0x0d) {
      end--;
      last--;
    }
    this.#lineStart = this.#base + at + 1;
    this.#flagged = false;
    const headLength = this.#headLength;
    this.#headLength = 0;
    const size = end - start;
    if (size === 0 || size > DEFAULT_MAX_LINE_BYTES) return; // blank; or skipped by the reader
    if (this.#tree === undefined) {
      if (!flagged) return; // no tree yet, and this line cannot match
      return this.#catchUp(start).then(() =>
        this.#entryLine(buffer, at, start, end, last, headLength, flagged)
      );
    }
    return this.#entryLine(buffer, at, start, end, last, headLength, flagged);
  }

  /** The line `[start, end)` ended at `buffer[at]`, into the tree, and held back when flagged. */
  #entryLine(
    buffer: Uint8Array,
    at: number,
    start: number,
    end: number,
    last: number,
    headLength: number,
    flagged: boolean,
  ): Promise<void> | undefined {
    const size = end - start;
    const tree = this.#tree!;
    const inBuffer = start >= this.#kept;
    // The line's first bytes: in the buffer, or kept while it spanned reads.
    const hb = inBuffer ? buffer : this.#head;
    const h0 = inBuffer ? start - this.#base : 0;
    const h1 = inBuffer ? Math.min(at, h0 + _HEAD) : Math.min(headLength, size);
    if (hb[h0] === 0) return; // NUL fill
    const env = this.#env;
    if (
      buffer[last] === _CLOSE_BRACE && readEnvelope(hb, h0, h1, env)
    ) {
      tree.addBytes(
        hb,
        env.idStart,
        env.idEnd,
        env.parentStart,
        env.parentEnd,
      );
      this.#last = { offset: start, size };
      if (!flagged || textlessType(hb.subarray(h0, h1))) return;
      return _then(
        this.#bytes(buffer, start, end, inBuffer, size),
        (bytes) => this.#ctx.later.add(start, size, bytes, this.#sink),
      );
    }
    const head = hb.subarray(h0, h1);
    if (size > SEARCH_LINE_BYTES) {
      // Too long to parse: left out of the tree; searched by its first bytes.
      if (!flagged || textlessType(head)) return;
      return _then(
        this.#bytes(buffer, start, end, inBuffer, size),
        (bytes) => this.#ctx.later.add(start, size, bytes, this.#sink),
      );
    }
    return _then(this.#bytes(buffer, start, end, inBuffer, size), (bytes) => {
      const entry = parseEntryLine(bytes);
      if (entry !== undefined) this.#noteEntry(entry);
      if (flagged && !textlessType(head)) {
        this.#take(start, entryLineText(bytes, entry));
      }
    });
  }

  /**
   * The last line when it has no "\n" (`buffer[total]` is where one would
   * be): an entry when it is whole JSON, as the session's reader keeps it
   * and omp reads it; a torn one (a write under way, or cut by a crash) is
   * passed over, as a line cannot be told from damage before it ends.
   */
  async #lastLine(buffer: Uint8Array, total: number): Promise<void> {
    const start = this.#lineStart;
    const end = this.#base + total;
    const size = end - start;
    if (size > SEARCH_LINE_BYTES) return; // too long to parse: not searched
    const flagged = this.#flagged || this.#ctx.needle === undefined;
    if (this.#tree === undefined) {
      if (!flagged) return;
      await this.#catchUp(start);
    }
    const bytes = await this.#bytes(
      buffer,
      start,
      end,
      start >= this.#kept,
      size,
    );
    if (bytes.length === 0 || bytes[0] === 0) return; // NUL fill
    const entry = parseEntryLine(bytes);
    if (entry === undefined) return;
    this.#noteEntry(entry);
    if (flagged && !textlessType(bytes.subarray(0, _HEAD))) {
      this.#take(start, entryLineText(bytes, entry));
    }
  }

  #noteEntry(entry: SessionEntry): void {
    this.#tree!.add(entry.id, entry.parentId ?? null);
    const target = branchMarkerTarget(entry);
    this.#last = { id: entry.id, target };
  }

  #newTree(): EntryTree {
    return new EntryTree(this.#source.size / _BYTES_PER_ENTRY);
  }

  /** Start the tree at the first line that may match (at `to`), from the lines before it. */
  async #catchUp(to: number): Promise<void> {
    this.#tree = this.#newTree();
    await treeBefore(this.#source, this.#bodyStart, to, this.#tree, {
      env: this.#env,
      envelope: (offset, size) => {
        this.#last = { offset, size };
      },
      entry: (entry) => this.#noteEntry(entry),
    });
  }

  #take(offset: number, found: LineText | undefined): void {
    if (found !== undefined) this.#ctx.hits.take(this.#path, offset, found);
  }

  /** A line's bytes (the first ones only, past {@linkcode SEARCH_LINE_BYTES}). */
  #bytes(
    buffer: Uint8Array,
    start: number,
    end: number,
    inBuffer: boolean,
    size: number,
  ): Uint8Array | Promise<Uint8Array> {
    const want = size > SEARCH_LINE_BYTES ? SEARCH_TEXT_CHARS * 3 : size;
    if (inBuffer) {
      const from = start - this.#base;
      return buffer.subarray(from, Math.min(from + want, end - this.#base));
    }
    return bytesAt(this.#source, start, want);
  }
}

/** `use(value)`, now or once the promise settles. */
function _then<T>(
  value: T | Promise<T>,
  use: (value: T) => void,
): Promise<void> | undefined {
  if (value instanceof Promise) return value.then(use);
  use(value);
  return undefined;
}
