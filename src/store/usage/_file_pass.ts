/**
 * One file of a usage pass, or a part of it (the lines that start in a
 * range, as threads read a large file): its head, then every line holding
 * `"usage"`, read in chunks into the finder's buffer. A line across a
 * chunk's end is kept whole into the next chunk when it is short (a
 * quarter of a chunk); a longer one is read again by itself only when it
 * holds them. A large file is read ahead: the finder's buffer has two
 * regions, and the next chunk is read into one (on the runtime's I/O
 * thread: `readAheadAt` in `fs/_read.ts`) while the other is searched.
 *
 * @module
 */

import { SessionSyntaxError } from "../../format/errors.ts";
import type { RequestUsage } from "../../format/usage.ts";
import { readAheadAt, readFullAt, readFullSync } from "../../fs/_read.ts";
import type { Fs, FsHandle, FsSyncFile } from "../../fs/_seam.ts";
import { parseHead } from "../../read/_head.ts";
import { CR, DEFAULT_MAX_LINE_BYTES, LF } from "../../read/_line.ts";
import { concatBytes } from "../../read/_pieces.ts";
import { HEAD_BYTES } from "../_session_files.ts";
import type { UsageFinder } from "./_finder.ts";
import { chunkLineRequest, lineRequest } from "./_line.ts";
import type { CountedIn } from "./_tally.ts";

/** Where a file's pass reports. */
export interface FileSink {
  /** The session, once its head is read. */
  head(where: CountedIn): void;
  /** A call. */
  request(u: RequestUsage): void;
  /** Bytes of the file done. */
  progress(bytes: number): void;
}

/**
 * A part of a file: the lines that start in `[from, to)` (the last one
 * read to its end, past `to`). A part from 0 reads the head; a later one
 * does not (its session is the first part's).
 */
export interface FileRange {
  /** Where the part starts. */
  from: number;
  /** Where the next part starts (Infinity: the file's end). */
  to: number;
}

const _WHOLE: FileRange = { from: 0, to: Infinity };

/** What one pass over a file (or a part of it) works with. */
interface _PassOf {
  /** The open file. */
  reader: _ReaderAt;
  /** Its path, for errors. */
  path: string;
  /** The buffer and the search. */
  finder: UsageFinder;
  /** A buffer for lines longer than a chunk. */
  scratch: Uint8Array;
  /** Where the session and its calls go. */
  sink: FileSink;
  /** The part. */
  range: FileRange;
}

/**
 * One file, or a part of it: its head (from the start), then every line
 * holding `"usage"`.
 *
 * @returns Why the file was skipped (it is no session), if it was.
 */
async function _passFile(
  { reader, path, finder: home, scratch, sink, range }: _PassOf,
): Promise<string | undefined> {
  const capacity = home.capacity;
  // Every read goes after a region's reserve, where the end of the chunk
  // before is copied: in the other region when reading ahead.
  const place = (r: number) =>
    home.at(r, home.reserve).bytes.subarray(0, capacity);
  let region = 0;
  let finder = home.at(0, home.reserve);
  let chunkStart = 0;
  if (range.from > 0) {
    const start = await _lineFrom(reader, range.from, finder, scratch);
    if (start === undefined || start >= range.to) return undefined;
    chunkStart = start;
  }
  let got = await reader.fill(place(0), chunkStart);
  let n = got;
  let bodyStart = chunkStart;
  if (range.from === 0) {
    const why = _head(finder.bytes, n, capacity, path, sink);
    if (typeof why === "string") return why;
    bodyStart = why;
  }
  const end = range.to;
  // A whole file is read ahead when it is large. A part is not: parts
  // are read by helpers too, which keep the cores busy already (reading
  // ahead made a 2.6 GB session read in parts ~10 % slower).
  const whole = range.from === 0 && end === Infinity;
  const ahead = reader.ahead !== undefined && whole && got === capacity &&
    (await reader.size()) - chunkStart >= _AHEAD_READS * capacity;
  let lineStart = bodyStart; // where the line at the chunk's start began
  let from = bodyStart;
  for (;;) {
    // The next chunk is read while this one is searched.
    if (ahead && got === capacity && chunkStart + n < end) {
      reader.ahead!(place(region ^ 1), chunkStart + n);
    }
    // The search stops at the end of the last line that starts before
    // `end`, once this chunk holds it.
    let limit = n;
    let last = false;
    if (chunkStart + n >= end) {
      const e = finder.lf(Math.max(0, end - 1 - chunkStart), n);
      if (e !== -1) [limit, last] = [e + 1, true];
    }
    let p = finder.find(from - chunkStart, limit);
    let jump: number | undefined;
    while (p !== -1) {
      const before = finder.lfBack(0, p);
      const start = before === -1 ? lineStart : chunkStart + before + 1;
      if (start >= end) return undefined; // the next part's
      const after = finder.lf(p, n);
      if (start >= chunkStart && after !== -1) {
        _take(finder, start - chunkStart, after, sink);
        p = finder.find(after + 1, limit);
        continue;
      }
      const line = await _lineAt(reader, start, scratch);
      if (line.bytes !== undefined) _takeLine(line.bytes, sink);
      if (line.next === undefined) return undefined; // the last line, without "\n"
      jump = line.next;
      break;
    }
    sink.progress(Math.max(0, chunkStart + n - range.from));
    if (last && jump === undefined) return undefined; // the part's end
    if (jump === undefined && got < capacity) return undefined; // the end
    if (jump !== undefined) {
      if (jump >= end) return undefined; // the next line is the next part's
      chunkStart = lineStart = from = jump;
      finder = home.at(region, home.reserve);
      got = n = await reader.fill(place(region), chunkStart);
    } else {
      const lf = finder.lfBack(0, n);
      if (lf !== -1) lineStart = Math.max(lineStart, chunkStart + lf + 1);
      // Keep the last bytes not yet passed (6 at most: a "usage" may
      // straddle the two chunks) and read on after them; keep the whole
      // unfinished last line when it is short, so that a call in it is
      // taken from the next chunk, not read again by itself.
      const next = Math.max(from, chunkStart + n - 6);
      const line = chunkStart + n - lineStart;
      const kept = lineStart >= chunkStart && line <= home.reserve
        ? Math.min(lineStart, next)
        : next;
      const keep = chunkStart + n - kept;
      const to = ahead ? region ^ 1 : region;
      const into = home.at(to, home.reserve - keep);
      home.memory.copyWithin(
        into.offset,
        finder.offset + n - keep,
        finder.offset + n,
      );
      got = await reader.fill(place(to), chunkStart + n);
      if (got === 0) return undefined;
      region = to;
      finder = into;
      chunkStart = kept;
      from = next;
      n = keep + got;
    }
    if (n === 0) return undefined;
  }
}

/** Parse the head at the buffer's start: where the body starts, or why the file is no session. */
function _head(
  buf: Uint8Array,
  n: number,
  capacity: number,
  path: string,
  sink: FileSink,
): number | string {
  const headLength = Math.min(n, HEAD_BYTES);
  try {
    const head = parseHead(buf.subarray(0, headLength), {
      name: path,
      complete: n < capacity && headLength === n,
    });
    const cwd = head.header.cwd;
    sink.head({
      sessionId: head.header.id,
      cwd: typeof cwd === "string" ? cwd : "",
    });
    return head.bodyStart;
  } catch (err) {
    if (err instanceof SessionSyntaxError) return err.reason;
    throw err;
  }
}

/**
 * Where the first line starting at or after `at` (> 0) starts: after the
 * first line feed at or after `at - 1`; undefined when the file ends first.
 */
async function _lineFrom(
  reader: _ReaderAt,
  at: number,
  finder: UsageFinder,
  scratch: Uint8Array,
): Promise<number | undefined> {
  const buf = finder.bytes;
  const n = await reader.fill(buf.subarray(0, finder.capacity), at - 1);
  const e = finder.lf(0, n);
  if (e !== -1) return at + e;
  if (n < finder.capacity) return undefined;
  return (await _lineAt(reader, at - 1, scratch, false)).next;
}

/**
 * One file (or a part of it) by its path: opened, read (its head from the
 * start, then every line holding `"usage"`) and closed.
 *
 * @param fs The filesystem.
 * @param path The file.
 * @param finder The buffer and the search.
 * @param scratch A buffer for lines longer than a chunk.
 * @param sink Where the session and its calls go.
 * @param range The part: the whole file by default.
 * @returns Why the file was skipped (no session, or it cannot be read), if it was.
 */
export async function passPath(
  fs: Fs,
  path: string,
  finder: UsageFinder,
  scratch: Uint8Array,
  sink: FileSink,
  range: FileRange = _WHOLE,
): Promise<string | undefined> {
  try {
    using handle = await _open(fs, path);
    const reader = _readerAt(handle);
    try {
      return await _passFile({ reader, path, finder, scratch, sink, range });
    } finally {
      await reader.settle(); // no read left under way as the file closes
    }
  } catch (err) {
    return `cannot read it: ${
      err instanceof Error ? err.message : String(err)
    }`;
  }
}

/**
 * A file opened for reading: synchronously where the filesystem can read
 * so (an asynchronous open is a round trip to another thread, ~40 µs, the
 * most a small session costs), else as a handle.
 */
async function _open(fs: Fs, path: string): Promise<FsHandle | FsSyncFile> {
  const file = fs.openSync(path, { read: true });
  if (file.readSync !== undefined && file.seekSync !== undefined) return file;
  file.close();
  return await fs.openHandle(path, { read: true });
}

/** Count the call a whole line of the chunk records (`[start, end)`, without `\n`). */
function _take(
  finder: UsageFinder,
  start: number,
  end: number,
  sink: FileSink,
): void {
  if (end > start && finder.bytes[end - 1] === CR) end--;
  if (end - start > DEFAULT_MAX_LINE_BYTES) return; // as the line readers skip it
  const u = chunkLineRequest(finder, start, end);
  if (u !== undefined) sink.request(u);
}

/** Count the call a line read by itself records (its bytes without `\n`). */
function _takeLine(line: Uint8Array, sink: FileSink): void {
  const bytes = line.length > 0 && line[line.length - 1] === CR
    ? line.subarray(0, line.length - 1)
    : line;
  if (bytes.length > DEFAULT_MAX_LINE_BYTES) return; // as the line readers skip it
  const u = lineRequest(bytes, true);
  if (u !== undefined) sink.request(u);
}

/** Bytes of a line read by itself taken at first. */
const _FIRST_READ = 1 << 16;

/**
 * Reads left in a file for the pass to read ahead: a 512 MB session went
 * from ~130 to ~80 ms. Fewer do not repay the round trips of asynchronous
 * reads (~40 µs each).
 */
const _AHEAD_READS = 3;

interface _ReaderAt {
  /** The file's size (a `stat`, made only for a file as large as a read). */
  size(): Promise<number>;
  /** Fill `p` from `position` (short only at the end); the bytes read. */
  fill(p: Uint8Array, position: number): Promise<number>;
  /** Start reading `p` at `position`, for the `fill` of the same; where the file reads asynchronously. */
  readonly ahead: ((p: Uint8Array, position: number) => void) | undefined;
  /** Wait for a read ahead still under way. */
  settle(): Promise<void>;
}

function _readerAt(file: FsHandle | FsSyncFile): _ReaderAt {
  const size = async () =>
    file.statSync?.().size ?? (await (file as FsHandle).stat()).size;
  if (typeof (file as Partial<FsHandle>).read === "function") {
    // Synchronous reads where the file offers them (a page-cache read
    // takes less than an asynchronous round trip), and reads ahead. The
    // file was just opened: its cursor is at 0 (a seek and a stat of each
    // of 10,000 small sessions cost ~25 ms).
    const source = readAheadAt(file as FsHandle, Infinity, {
      turns: false,
      position: 0,
    });
    return {
      size,
      fill: (p, position) => readFullAt(source, p, position),
      ahead: (p, position) => source.readAhead(p, position),
      settle: () => source.settle(),
    };
  }
  const sync = file as FsSyncFile;
  let at = 0; // the file's position
  return {
    size,
    fill(p: Uint8Array, position: number): Promise<number> {
      if (position !== at) sync.seekSync!(position, Deno.SeekMode.Start);
      const got = readFullSync(sync.readSync!.bind(sync), p);
      at = position + got;
      return Promise.resolve(got);
    },
    ahead: undefined,
    settle: () => Promise.resolve(),
  };
}

/**
 * The line that starts at `start`, read by itself: its bytes (unless longer
 * than the line readers take), and where the next line starts (undefined
 * when the file ends first). A last line without "\n" comes with its bytes:
 * omp counts its call when it is whole JSON (a torn one does not parse),
 * and the session's reader keeps it. With `keep` false, only where the
 * next line starts (no bytes copied).
 */
async function _lineAt(
  reader: _ReaderAt,
  start: number,
  scratch: Uint8Array,
  keep = true,
): Promise<{ bytes?: Uint8Array; next?: number }> {
  let parts: Uint8Array[] | undefined = keep ? [] : undefined;
  let length = 0;
  for (let pos = start;;) {
    // A line is read by itself where it crosses a chunk's end: most are
    // a few KiB, so the first read takes 64 KiB, not the whole scratch.
    const k = await reader.fill(
      pos === start ? scratch.subarray(0, _FIRST_READ) : scratch,
      pos,
    );
    if (k === 0) {
      return parts === undefined || length === 0
        ? {}
        : { bytes: concatBytes(parts, length) };
    }
    const i = scratch.subarray(0, k).indexOf(LF);
    const piece = scratch.subarray(0, i === -1 ? k : i);
    length += piece.length;
    if (parts !== undefined && length <= DEFAULT_MAX_LINE_BYTES + 1) {
      parts.push(piece.slice());
    } else parts = undefined; // too long to parse: skipped, as the readers do
    if (i !== -1) {
      if (parts === undefined) return { next: pos + i + 1 };
      return { bytes: concatBytes(parts, length), next: pos + i + 1 };
    }
    pos += k;
  }
}
