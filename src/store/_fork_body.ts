/**
 * A fork's entries: the source's lines as they stood at one moment, whole
 * lines only, copied byte for byte (version 3 and later) or migrated to
 * version 3 one record at a time (versions 1 and 2), in bounded memory.
 * Both read the source through the one line source (`read/lines.ts`).
 *
 * @module
 */

import type { FileHandle } from "../_fs.ts";
import type { SessionEntry } from "../format/entries.ts";
import { readFull } from "../read/_open.ts";
import { decodeLine, type IssueLog } from "../read/_decode.ts";
import { type Line, readLines } from "../read/lines.ts";
import { sessionRecords } from "../read/_records.ts";

/**
 * The longest last line without its "\n" that a fork reads to see whether
 * it is whole (a complete JSON value); a longer one is left out and
 * reported (`oversized-line`). Such a line is either an append in progress
 * or one cut by a crash; a whole entry this long that lacks only its "\n"
 * is the one case a fork loses, and it is reported.
 */
const _TAIL_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The copy buffer, and the longest line held in memory: a longer one is
 * copied from the file a buffer at a time, so a fork of a file with a
 * 1 GB line holds no more than of any other.
 */
export const FORK_BUFFER_BYTES = 1 << 20;

/** A line's terminator as it stood: its `size - length` bytes. */
const _TERMINATORS = [
  new Uint8Array(0),
  new Uint8Array([0x0a]),
  new Uint8Array([0x0d, 0x0a]),
];

const _enc = new TextEncoder();

/** Writes all of `bytes` to the fork, or throws. */
export type ForkSink = (bytes: Uint8Array) => Promise<void>;

/** The source of a fork's entries, as it stood when the fork began. */
export interface ForkSource {
  /** The open source file. */
  file: FileHandle;
  /** Its path, for errors and issues. */
  name: string;
  /** Its size when the fork began: nothing after it is copied. */
  size: number;
  /** What could not be done, for errors: `Cannot fork "a.jsonl"`. */
  action: string;
  /** Where damage read around goes. */
  log: IssueLog;
}

/**
 * Copy the source's entry lines byte for byte, terminators as they stand
 * ("\n" or "\r\n"), from `start` up to the source's size; then the last
 * line, when it lacks its "\n": given one when it parses as JSON (an entry
 * missing only its newline), or else left out and reported (a torn line).
 *
 * @param from The source.
 * @param start Offset of the first entry line.
 * @param lines Lines before it (the head's 1 or 2).
 * @param write Where the bytes go.
 * @returns Bytes written.
 * @throws {Error} When the source shrinks while it is copied.
 */
export async function copyWholeLines(
  from: ForkSource,
  start: number,
  lines: number,
  write: ForkSink,
): Promise<number> {
  const out = new _Batch(write);
  let end = start;
  let index = lines;
  const source = readLines(from.file, {
    start,
    end: from.size,
    maxLineBytes: FORK_BUFFER_BYTES,
  });
  for await (const line of source) {
    end = line.offset + line.size;
    if (!line.terminated) {
      await _copyLast(from, { ...line, index }, out);
    } else if (line.bytes !== undefined) {
      const terminator = _TERMINATORS[line.size - line.length]!;
      if (!out.put(line.bytes, terminator)) {
        await out.add(line.bytes, terminator);
      }
    } else {
      await out.copy(from, line.offset, line.size); // longer than the buffer, or NUL
    }
    index++;
  }
  if (end < from.size) _shrank(from, end);
  await out.flush();
  return out.written;
}

/** The last line, without its "\n": kept (with one) when it parses. */
async function _copyLast(
  from: ForkSource,
  line: Line,
  out: _Batch,
): Promise<void> {
  if (
    line.bytes === undefined && !line.nul && line.length <= _TAIL_MAX_BYTES
  ) {
    const bytes = new Uint8Array(line.length);
    const n = await readFull(from.file, bytes, line.offset);
    if (n < line.length) _shrank(from, line.offset + n);
    line = { ...line, bytes, oversized: false };
  }
  // Torn, NUL-filled, or too long to check: left out, and reported.
  if (decodeLine(line, from.log) === undefined) return;
  await out.add(line.bytes!, _TERMINATORS[1]!);
}

/**
 * Copy the given lines of the source byte for byte, in the order given
 * (what a fork at an entry keeps); a last line without its "\n" (one the
 * record reader took as whole) is given one.
 *
 * @param from The source.
 * @param ranges Each line's offset and size, terminator included.
 * @param write Where the bytes go.
 * @returns Bytes written.
 * @throws {Error} When the source shrinks while it is copied.
 */
export async function copyRanges(
  from: ForkSource,
  ranges: readonly { offset: number; size: number }[],
  write: ForkSink,
): Promise<number> {
  const out = new _Batch(write);
  const last = new Uint8Array(1);
  for (const { offset, size } of ranges) {
    await out.copy(from, offset, size);
    if (size === 0) continue;
    if (await readFull(from.file, last, offset + size - 1) < 1) {
      _shrank(from, offset + size - 1);
    }
    if (last[0] !== 0x0a) await out.add(_TERMINATORS[1]!);
  }
  await out.flush();
  return out.written;
}

/**
 * Write the source's entries migrated to version 3, as the reader migrates
 * them in memory (`read/_records.ts`): ids minted in file order, parent
 * links, `firstKeptEntryId`, role `custom`; the envelope first. Lines the
 * reader skips (torn, not JSON, not an entry) are left out and reported.
 *
 * @param from The source; read again from its start.
 * @param write Where the bytes go.
 * @param keep The ids to keep (a fork at an entry); default every entry.
 * @returns Bytes written.
 * @throws {Error} When the source shrinks while it is copied.
 */
export async function copyMigrated(
  from: ForkSource,
  write: ForkSink,
  keep?: ReadonlySet<string>,
): Promise<number> {
  const out = new _Batch(write);
  let end = 0;
  const lines = async function* (): AsyncGenerator<Line> {
    for await (const line of readLines(from.file, { end: from.size })) {
      end = line.offset + line.size;
      yield line;
    }
  };
  for await (const r of sessionRecords(lines(), from.name, from.log)) {
    if (r.kind !== "entry" || keep?.has(r.value.id) === false) continue;
    const bytes = _enc.encode(_envelopeFirst(r.value));
    if (!out.put(bytes)) await out.add(bytes);
  }
  if (end < from.size) _shrank(from, end);
  await out.flush();
  return out.written;
}

/**
 * Write parsed entries, one line each, envelope first (a fork at an entry:
 * the path to it, and what its labels need).
 *
 * @param entries The entries, in the order to write.
 * @param write Where the bytes go.
 * @returns Bytes written.
 */
export async function writeEntries(
  entries: Iterable<SessionEntry>,
  write: ForkSink,
): Promise<number> {
  const out = new _Batch(write);
  for (const e of entries) {
    const bytes = _enc.encode(_envelopeFirst(e));
    if (!out.put(bytes)) await out.add(bytes);
  }
  await out.flush();
  return out.written;
}

/** The entry as one line of JSON, `type, id, parentId, timestamp` first. */
function _envelopeFirst(e: SessionEntry): string {
  const { type, id, parentId, timestamp, ...rest } = e;
  return `${
    JSON.stringify({ type, id, parentId: parentId ?? null, timestamp, ...rest })
  }\n`;
}

/**
 * The fork's bytes gathered into one buffer and written when it is full,
 * so that many short lines cost few writes, and a line that fits costs no
 * await ({@linkcode _Batch.put}).
 */
class _Batch {
  readonly #write: ForkSink;
  readonly #buffer = new Uint8Array(FORK_BUFFER_BYTES);
  #used = 0;
  /** Bytes handed to the sink so far. */
  written = 0;

  constructor(write: ForkSink) {
    this.#write = write;
  }

  /** Gather `bytes` then `end` when both fit; false when they do not. */
  put(bytes: Uint8Array, end: Uint8Array = _TERMINATORS[0]!): boolean {
    const used = this.#used;
    if (used + bytes.length + end.length > this.#buffer.length) return false;
    this.#buffer.set(bytes, used);
    this.#buffer.set(end, used + bytes.length);
    this.#used = used + bytes.length + end.length;
    return true;
  }

  /** Gather `bytes` then `end`, flushing first; written at once when longer than the buffer. */
  async add(bytes: Uint8Array, end?: Uint8Array): Promise<void> {
    if (this.put(bytes, end)) return;
    await this.flush();
    if (this.put(bytes, end)) return;
    await this.#out(bytes);
    if (end !== undefined) await this.#out(end);
  }

  /** Copy `size` bytes of the source at `offset`, a buffer at a time. */
  async copy(from: ForkSource, offset: number, size: number): Promise<void> {
    await this.flush();
    for (let at = offset; at < offset + size;) {
      const want = Math.min(this.#buffer.length, offset + size - at);
      const n = await readFull(from.file, this.#buffer.subarray(0, want), at);
      if (n < want) _shrank(from, at + n);
      await this.#out(this.#buffer.subarray(0, n));
      at += n;
    }
  }

  /** Write what is gathered. */
  async flush(): Promise<void> {
    if (this.#used === 0) return;
    const used = this.#used;
    this.#used = 0;
    await this.#out(this.#buffer.subarray(0, used));
  }

  async #out(bytes: Uint8Array): Promise<void> {
    await this.#write(bytes);
    this.written += bytes.length;
  }
}

function _shrank(from: ForkSource, at: number): never {
  throw new Error(
    `${from.action}: the file shrank from ${from.size} to ${at} bytes while it was copied`,
  );
}
