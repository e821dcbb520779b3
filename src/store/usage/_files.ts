/**
 * A usage pass over the files themselves (no index): each file is read
 * once, in chunks into one reused buffer, and only the lines holding
 * `"usage"` are parsed; a line longer than a chunk is read again by itself
 * only when it holds them. Memory: the buffer (1 MiB), the longest such
 * line, and a key per counted call (to count a copied entry once).
 *
 * @module
 */

import { SessionSyntaxError } from "../../format/errors.ts";
import type { RequestUsage } from "../../format/usage.ts";
import { type FsHandle, seam } from "../../fs/_seam.ts";
import { parseHead } from "../../read/_head.ts";
import { CR, DEFAULT_MAX_LINE_BYTES, LF } from "../../read/_line.ts";
import { HEAD_BYTES, sessionFiles } from "../_session_files.ts";
import { type UsageFinder, usageFinder } from "./_finder.ts";
import { compareRank, createdOf, type FileRank, lineRequest } from "./_line.ts";
import type { CountedIn, UsageTally } from "./_tally.ts";

/** Bytes read at a time. */
const _CHUNK = 1 << 20;

/** Options of {@linkcode tallyFiles}. */
export interface FilesPassOptions {
  /** Files last modified before this moment (ms) are not opened. */
  since?: number | undefined;
  /** Bytes done of bytes to read. */
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** A file that is not read, and why. */
  onSkip?: ((path: string, reason: string) => void) | undefined;
}

interface _File extends FileRank {
  size: number;
}

/**
 * Count every model call of a data dir's session files (subagents
 * included) into `tally`: the files in {@linkcode compareRank} order, an
 * entry id and time already counted in an earlier file passed over (a
 * fork's copy), an id seen earlier in the same file passed over.
 *
 * @param dataDir The data dir.
 * @param tally Where calls are counted.
 * @param options The first day; progress; skipped files.
 * @returns How many files were read.
 */
export async function tallyFiles(
  dataDir: string,
  tally: UsageTally,
  options: FilesPassOptions,
): Promise<number> {
  const fs = seam();
  const files: _File[] = [];
  for (
    const { path } of await sessionFiles(dataDir, { includeSubagents: true })
  ) {
    let info: Deno.FileInfo;
    try {
      info = fs.statSync(path);
    } catch (err) {
      options.onSkip?.(path, `cannot read it: ${_why(err)}`);
      continue;
    }
    const mtime = info.mtime?.getTime();
    if (
      options.since !== undefined && mtime !== undefined &&
      mtime < options.since
    ) continue; // unopened: nothing in it is that recent
    files.push({ path, created: createdOf(path), size: info.size });
  }
  files.sort(compareRank);
  const total = files.reduce((n, f) => n + f.size, 0);
  const seen = new Set<string>();
  const finder = usageFinder(_CHUNK);
  const scratch = new Uint8Array(_CHUNK);
  let done = 0;
  for (const file of files) {
    const ids = new Set<string>();
    let where: CountedIn = { sessionId: "", cwd: "" };
    const count = (u: RequestUsage): void => {
      if (ids.has(u.entryId)) return;
      ids.add(u.entryId);
      const key = `${u.entryId}\u0000${u.timestamp}`;
      if (seen.has(key)) return;
      seen.add(key);
      tally.add(u, where);
    };
    try {
      using handle = await fs.openHandle(file.path, { read: true });
      const reason = await _passFile(handle, file.path, finder, scratch, {
        head: (w) => where = w,
        request: count,
        progress: (n) => options.onProgress?.(done + n, total),
      });
      if (reason !== undefined) options.onSkip?.(file.path, reason);
    } catch (err) {
      options.onSkip?.(file.path, `cannot read it: ${_why(err)}`);
    }
    done += file.size;
    options.onProgress?.(done, total);
  }
  return files.length;
}

interface _Sink {
  head(where: CountedIn): void;
  request(u: RequestUsage): void;
  progress(bytes: number): void;
}

/** One file: its head, then every line holding `"usage"`; why it was skipped, if it was. */
async function _passFile(
  handle: FsHandle,
  path: string,
  finder: UsageFinder,
  scratch: Uint8Array,
  sink: _Sink,
): Promise<string | undefined> {
  const size = (handle.statSync?.() ?? await handle.stat()).size;
  const buf = finder.bytes;
  const reader = _readerAt(handle);
  let chunkStart = 0;
  let n = await reader.fill(buf.subarray(0, finder.capacity), 0);
  const headLength = Math.min(n, HEAD_BYTES);
  let bodyStart: number;
  try {
    const head = parseHead(buf.subarray(0, headLength), {
      name: path,
      complete: headLength === size,
    });
    const cwd = head.header.cwd;
    sink.head({
      sessionId: head.header.id,
      cwd: typeof cwd === "string" ? cwd : "",
    });
    bodyStart = head.bodyStart;
  } catch (err) {
    if (err instanceof SessionSyntaxError) return err.reason;
    throw err;
  }
  let lineStart = bodyStart; // where the line at the chunk's start began
  let from = bodyStart;
  for (;;) {
    let p = finder.find(from - chunkStart, n);
    let jump: number | undefined;
    while (p !== -1) {
      const before = buf.lastIndexOf(LF, p);
      const start = before === -1 ? lineStart : chunkStart + before + 1;
      const after = buf.subarray(0, n).indexOf(LF, p);
      if (start >= chunkStart && after !== -1) {
        _take(buf.subarray(start - chunkStart, after), sink);
        p = finder.find(after + 1, n);
        continue;
      }
      const line = await _lineAt(reader, start, scratch);
      if (line.bytes !== undefined) _take(line.bytes, sink);
      if (line.next === undefined) return undefined; // an unfinished last line
      jump = line.next;
      break;
    }
    sink.progress(chunkStart + n);
    if (jump === undefined && n < finder.capacity) return undefined; // the end
    if (jump !== undefined) {
      chunkStart = lineStart = from = jump;
    } else {
      const last = buf.lastIndexOf(LF, n - 1);
      if (last !== -1) lineStart = Math.max(lineStart, chunkStart + last + 1);
      // keep 6 bytes: a "usage" may straddle the two chunks
      from = chunkStart = Math.max(from, chunkStart + n - 6);
    }
    n = await reader.fill(buf.subarray(0, finder.capacity), chunkStart);
    if (n === 0) return undefined;
  }
}

/** Count the call a whole line records (its bytes without `\n`). */
function _take(line: Uint8Array, sink: _Sink): void {
  const bytes = line.length > 0 && line[line.length - 1] === CR
    ? line.subarray(0, line.length - 1)
    : line;
  if (bytes.length > DEFAULT_MAX_LINE_BYTES) return; // as the line readers skip it
  const u = lineRequest(bytes, true);
  if (u !== undefined) sink.request(u);
}

interface _ReaderAt {
  /** Fill `p` from `position` (short only at the end); the bytes read. */
  fill(p: Uint8Array, position: number): Promise<number>;
}

function _readerAt(file: FsHandle): _ReaderAt {
  return {
    async fill(p: Uint8Array, position: number): Promise<number> {
      // Synchronous where the file offers it: a page-cache read takes less
      // than an asynchronous round trip (~40 µs).
      if (file.seekSync !== undefined && file.readSync !== undefined) {
        file.seekSync(position, Deno.SeekMode.Start);
        let got = 0;
        while (got < p.length) {
          const k = file.readSync(p.subarray(got));
          if (k === null || k === 0) break;
          got += k;
        }
        return got;
      }
      await file.seek(position, Deno.SeekMode.Start);
      let got = 0;
      while (got < p.length) {
        const k = await file.read(p.subarray(got));
        if (k === null || k === 0) break;
        got += k;
      }
      return got;
    },
  };
}

/**
 * The line that starts at `start`, read by itself: its bytes (unless longer
 * than the line readers take), and where the next line starts (undefined
 * when the file ends first).
 */
async function _lineAt(
  reader: _ReaderAt,
  start: number,
  scratch: Uint8Array,
): Promise<{ bytes?: Uint8Array; next?: number }> {
  let parts: Uint8Array[] | undefined = [];
  let length = 0;
  for (let pos = start;;) {
    const k = await reader.fill(scratch, pos);
    if (k === 0) return {};
    const i = scratch.subarray(0, k).indexOf(LF);
    const piece = scratch.subarray(0, i === -1 ? k : i);
    length += piece.length;
    if (parts !== undefined && length <= DEFAULT_MAX_LINE_BYTES + 1) {
      parts.push(piece.slice());
    } else parts = undefined; // too long to parse: skipped, as the readers do
    if (i !== -1) {
      if (parts === undefined) return { next: pos + i + 1 };
      const bytes = new Uint8Array(length);
      let at = 0;
      for (const part of parts) {
        bytes.set(part, at);
        at += part.length;
      }
      return { bytes, next: pos + i + 1 };
    }
    pos += k;
  }
}

function _why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
