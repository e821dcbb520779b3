/**
 * A fork's entries: the source's lines as they stood at one moment, whole
 * lines only, copied byte for byte (version 3 and later) or migrated to
 * version 3 one record at a time (versions 1 and 2), in bounded memory.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import {
  fileReaderAt,
  type Reader,
  type ReaderAt,
  readFullAt,
} from "../fs/_read.ts";
import type { FileHandle } from "../_fs.ts";
import type { FsHandle } from "../fs/_seam.ts";
import { decodeLine, type IssueLog } from "../read/_decode.ts";
import { LF, makeLine } from "../read/_line.ts";
import { readLinesFromReader } from "../read/_lines_forward.ts";
import { sessionRecords } from "../read/_records.ts";
import { writeAll } from "../write/_files.ts";

/**
 * The longest last line without its "\n" that a fork reads to see whether
 * it is whole (a complete JSON value); a longer one is left out and
 * reported (`oversized-line`). Such a line is either an append in progress
 * or one cut by a crash; a whole entry this long that lacks only its "\n"
 * is the one case a fork loses, and it is reported.
 */
export const FORK_TAIL_MAX_BYTES = 64 * 1024 * 1024;

/** Bytes read per step of the backward search for the last "\n". */
const _SCAN_BYTES = 64 * 1024;

/**
 * Migrated lines are written in batches of about this many characters:
 * small enough that a batch dies young. Each write is awaited, so a batch
 * outlives a turn of the event loop; a large one would be promoted to the
 * old generation and grow the heap by many batches before it is collected.
 */
const _BATCH_CHARS = 1 << 16;

const _enc = new TextEncoder();

/** The source of a fork's entries, as it stood when the fork began. */
export interface ForkSource {
  /** The open source file. */
  file: FsHandle;
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
 * Copy the source's entry lines byte for byte: from `start` (line index
 * `index`, 0-based) up to the last "\n" before `size`; then the bytes after
 * it, given a "\n", when they parse as JSON (an entry missing only its
 * newline), or else left out and reported (a torn line).
 *
 * @param out The fork's file.
 * @param from The source.
 * @param start Offset of the first entry line.
 * @param index That line's 0-based number.
 * @param buffer The copy buffer.
 * @returns Bytes written.
 * @throws {Error} When the source shrinks while it is copied.
 */
export async function copyWholeLines(
  out: FileHandle,
  from: ForkSource,
  start: number,
  index: number,
  buffer: Uint8Array,
): Promise<number> {
  const reader = fileReaderAt(from.file, from.size);
  const end = await _afterLastLf(reader, start, buffer);
  let lines = index;
  for (let at = start; at < end;) {
    const n = await reader.readAt(
      buffer.subarray(0, Math.min(buffer.length, end - at)),
      at,
    );
    if (n === 0) _shrank(from, at);
    const chunk = buffer.subarray(0, n);
    for (let i = chunk.indexOf(LF); i !== -1; i = chunk.indexOf(LF, i + 1)) {
      lines++;
    }
    await writeAll(out, chunk);
    at += n;
  }
  const tail = from.size - end;
  if (tail === 0) return end - start;
  if (tail > FORK_TAIL_MAX_BYTES) {
    decodeLine(makeLine(null, end, lines, tail, false), from.log);
    return end - start;
  }
  const bytes = new Uint8Array(tail + 1);
  const n = await readFullAt(reader, bytes.subarray(0, tail), end);
  if (n < tail) _shrank(from, end + n);
  const value = decodeLine(
    makeLine(bytes.subarray(0, tail), end, lines, tail, false),
    from.log,
  );
  if (value === undefined) return end - start; // torn, NUL-filled: left out
  bytes[tail] = LF;
  await writeAll(out, bytes);
  return end - start + bytes.length;
}

/**
 * Write the source's entries migrated to version 3, as the reader migrates
 * them in memory (`read/_records.ts`): ids minted in file order, parent
 * links, `firstKeptEntryId`, role `custom`; the envelope first. Lines the
 * reader skips (torn, not JSON, not an entry) are left out and reported.
 *
 * @param out The fork's file.
 * @param from The source; read again from its start.
 * @returns Bytes written.
 * @throws {Error} When the source shrinks while it is copied.
 */
export async function copyMigrated(
  out: FileHandle,
  from: ForkSource,
): Promise<number> {
  await from.file.seek(0, Deno.SeekMode.Start);
  const source = _upTo(from.file, from.size);
  let bytes = 0;
  let batch = "";
  const flush = async () => {
    const encoded = _enc.encode(batch);
    await writeAll(out, encoded);
    bytes += encoded.length;
    batch = "";
  };
  const records = sessionRecords(
    readLinesFromReader(source),
    from.name,
    from.log,
  );
  for await (const r of records) {
    if (r.kind !== "entry") continue;
    batch += `${_envelopeFirst(r.value)}\n`;
    if (batch.length >= _BATCH_CHARS) await flush();
  }
  if (source.left > 0) _shrank(from, from.size - source.left);
  await flush();
  return bytes;
}

/** The entry as one line of JSON, `type, id, parentId, timestamp` first. */
function _envelopeFirst(e: SessionEntry): string {
  const { type, id, parentId, timestamp, ...rest } = e;
  return JSON.stringify({
    type,
    id,
    parentId: parentId ?? null,
    timestamp,
    ...rest,
  });
}

/** Offset just past the last "\n" in [start, end), or `start` when there is none. */
async function _afterLastLf(
  reader: ReaderAt,
  start: number,
  buffer: Uint8Array,
): Promise<number> {
  const scan = buffer.subarray(0, _SCAN_BYTES);
  for (let hi = reader.size; hi > start;) {
    const lo = Math.max(start, hi - scan.length);
    const n = await readFullAt(reader, scan.subarray(0, hi - lo), lo);
    const at = scan.subarray(0, n).lastIndexOf(LF);
    if (at !== -1) return lo + at + 1;
    hi = lo;
  }
  return start;
}

/** A reader that stops after `size` bytes, and says how many it missed. */
function _upTo(file: FsHandle, size: number): Reader & { left: number } {
  const source = {
    left: size,
    async read(p: Uint8Array): Promise<number | null> {
      if (source.left <= 0) return null;
      const n = await file.read(
        source.left < p.length ? p.subarray(0, source.left) : p,
      );
      if (n === null || n === 0) return null;
      source.left -= n;
      return n;
    },
  };
  return source;
}

function _shrank(from: ForkSource, at: number): never {
  throw new Error(
    `${from.action}: the file shrank from ${from.size} to ${at} bytes while it was copied`,
  );
}
