/**
 * The calls one session file records: its head, then the call of each line
 * after it ({@linkcode lineCall}; for a version 1 file, each line decoded
 * and migrated, {@linkcode MigratedCalls}). A small file is read whole, in
 * one call, and split in memory; a large one is read through the line
 * source, a large chunk at a time.
 *
 * @module
 */

import { type FileHandle, fs } from "../_fs.ts";
import { SessionSyntaxError } from "../format/errors.ts";
import { headerVersion } from "../format/header.ts";
import type { RequestUsage } from "../format/usage.ts";
import { readFull } from "../read/_open.ts";
import { IssueLog } from "../read/_decode.ts";
import { type Head, HeadReader } from "../read/_head.ts";
import {
  type Line,
  LineSplitter,
  READ_BYTES,
  readLines,
} from "../read/lines.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";
import { HEAD_BYTES } from "../store/_session_files.ts";
import {
  lineCall,
  mayHoldCall,
  MigratedCalls,
  mintsIds,
} from "./_line_call.ts";

/** Where {@linkcode fileCalls} gives what it reads. */
export interface CallSink {
  /** The file's head, once read (before its calls). */
  head(head: Head): void;
  /** A call, in the file's order. */
  call(u: RequestUsage): void;
  /** The bytes read so far, about once a read. */
  bytes(done: number): void;
  /** A line after the head longer than the loader's limit: not read, its offset and length given. */
  oversized(offset: number, length: number): void;
}

/**
 * Lines of a large file longer than this are not kept by the line source,
 * only their head: a long line that may hold a call is read again by
 * itself, and the rest (an image a user pasted, a large tool result) pass
 * by without a copy, so a pass holds no more than a read and one line (the
 * line source copies a line cut by the end of a read, into a buffer of its
 * own, as long as it is kept whole).
 */
const _KEPT_BYTES = 64 << 10;

/**
 * The calls of a session file, given to `sink` as they are read. The head
 * must lie within the file's first {@linkcode HEAD_BYTES}, as the list and
 * the index read heads, so that every source agrees on which files are
 * sessions. A line longer than the loader's limit is passed over, as the
 * loader passes it over, and given to `sink.oversized`; a last line without
 * its `"\n"` counts when it is whole JSON (omp counts it), except in a
 * version 1 file, where it counts once it ends (the index, which cannot mint
 * its id alone, waits for it too).
 *
 * @param path The file (a regular file, as a stat found it).
 * @param size Its size then: the bytes read.
 * @param sink Where the head and the calls go.
 * @returns Why the file is no session, if it is not.
 * @throws {Error} When a read fails (the calls before it were given).
 */
export async function fileCalls(
  path: string,
  size: number,
  sink: CallSink,
): Promise<string | undefined> {
  if (size <= READ_BYTES) {
    // One call where a file is small (most sessions): no handle, no read
    // buffer of its own, no line after line through a generator.
    const bytes = await fs().readFile(path);
    const split = new LineSplitter({ maxLineBytes: DEFAULT_MAX_LINE_BYTES });
    const lines = split.push(bytes);
    const last = split.end();
    if (last !== undefined) lines.push(last);
    const file = new _FileLines(path, bytes.length, sink);
    for (const line of lines) {
      const why = file.take(line, line.bytes);
      if (why !== undefined) return why;
    }
    return file.end();
  }
  const handle = await fs().open(path, { read: true });
  try {
    const file = new _FileLines(path, size, sink);
    for await (
      const line of readLines(handle, { end: size, maxLineBytes: _KEPT_BYTES })
    ) {
      const bytes = line.bytes ??
        (file.inBody
          ? await _longLine(handle, line, file.migrated)
          : undefined);
      const why = file.take(line, bytes);
      if (why !== undefined) return why;
    }
    return file.end();
  } finally {
    await handle[Symbol.asyncDispose]();
  }
}

/** A file's lines taken in order: the head's first, then each line's call. */
class _FileLines {
  readonly #head: HeadReader;
  readonly #size: number;
  readonly #sink: CallSink;
  #lines = 0;
  #reported = 0;
  /** Whether the head is read: the lines now are entries. */
  inBody = false;
  /** A version 1 file's reader, once its head is read: every line goes through it. */
  migrated: MigratedCalls | undefined;

  constructor(path: string, size: number, sink: CallSink) {
    this.#head = new HeadReader(path, new IssueLog());
    this.#size = size;
    this.#sink = sink;
  }

  /** Take the next line (its bytes, where they are at hand): why the file is no session, if it shows it. */
  take(line: Line, bytes: Uint8Array | undefined): string | undefined {
    if (!this.inBody) return this.#headLine(line);
    if (line.length > DEFAULT_MAX_LINE_BYTES) {
      this.#sink.oversized(line.offset, line.length);
    }
    const u = this.migrated !== undefined
      ? this.#migratedCall(line, bytes)
      : bytes === undefined
      ? undefined
      : lineCall(bytes);
    if (u !== undefined) this.#sink.call(u);
    const done = line.offset + line.size;
    if (done - this.#reported >= READ_BYTES) {
      this.#sink.bytes(this.#reported = done);
    }
    return undefined;
  }

  /** A version 1 file's line, whole where its bytes were read again (a long line). */
  #migratedCall(line: Line, bytes: Uint8Array | undefined) {
    if (!line.terminated) return undefined; // counted once it ends
    const whole = bytes === undefined || bytes === line.bytes
      ? line
      : { ...line, bytes, oversized: false };
    return this.migrated!.call(whole);
  }

  /** The lines are over: why the file is no session, if no head was read. */
  end(): string | undefined {
    if (this.inBody) return undefined;
    try {
      this.#head.finish(this.#lines, this.#size); // throws: no header was read
      return undefined;
    } catch (err) {
      if (err instanceof SessionSyntaxError) return err.reason;
      throw err;
    }
  }

  #headLine(line: Line): string | undefined {
    // A line ending past the first bytes (of a file longer than them) is
    // not within them: no complete header there.
    if (line.offset + line.size > HEAD_BYTES && this.#size > HEAD_BYTES) {
      return `no complete header within the first ${HEAD_BYTES} bytes`;
    }
    this.#lines++;
    try {
      if (!this.#head.take(line)) return undefined;
    } catch (err) {
      if (err instanceof SessionSyntaxError) return err.reason;
      throw err;
    }
    this.inBody = true;
    const { header } = this.#head.head!;
    if (mintsIds(header)) {
      this.migrated = new MigratedCalls(headerVersion(header));
    }
    this.#sink.head(this.#head.head!);
    return undefined;
  }
}

/**
 * The bytes of a line too long to be kept, read by themselves when its
 * head says it may hold a call (or the file is a version 1 file, whose
 * every record takes an id) and the loader would read it (it is within
 * the loader's limit); else undefined.
 */
async function _longLine(
  file: FileHandle,
  line: Line,
  migrated: MigratedCalls | undefined,
): Promise<Uint8Array | undefined> {
  if (!line.oversized || line.length > DEFAULT_MAX_LINE_BYTES) return undefined;
  if (migrated === undefined && !mayHoldCall(line.head)) return undefined;
  const bytes = new Uint8Array(line.length);
  const n = await readFull(file, bytes, line.offset);
  return n === bytes.length ? bytes : undefined;
}
