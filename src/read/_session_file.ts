/**
 * Reading a session file or stream into memory: the windowed read where it
 * can settle the path, the whole read where it cannot.
 *
 * @module
 */

import type { FileHandle } from "../_fs.ts";
import { pathTo, resolveLeaf } from "../context/tree.ts";
import { branchMarkerTarget } from "../format/_branch_marker.ts";
import { quote } from "../format/errors.ts";
import { headerVersion, SESSION_VERSION } from "../format/header.ts";
import type { LoadIssue } from "../format/issues.ts";
import { IssueLog } from "./_decode.ts";
import { type Head, HEAD_LINE_MAX_BYTES, tryParseHead } from "./_head.ts";
import { DEFAULT_MAX_LINE_BYTES, type Line, readLines } from "./lines.ts";
import { openRegular, readFull } from "./_open.ts";
import { loadAll, type LoadedSession } from "./_records.ts";
import type { ResumeFrom, WindowOptions, WindowSource } from "./_resume.ts";
import { ReadRanges } from "./_read_ranges.ts";
import { loadWindow } from "./_window.ts";

/** How to read a session file. */
export interface ReadSessionOptions {
  /** Called with each piece of damage. */
  onIssue?: ((issue: LoadIssue) => void) | undefined;
  /** Keep only the window. */
  window: boolean;
  /** Let a settings checkpoint end the backward walk. Default true. */
  checkpoints?: boolean;
  /** Lines longer than this are reported and skipped unread. */
  maxLineBytes?: number | undefined;
  /** Walk to the file's start, to record it (for the session index). */
  record?: boolean | undefined;
  /**
   * Keep the record of a windowed read that saw every line (for the
   * session index, which stores it); without it only the file's ids are
   * kept. Implied by `record`.
   */
  keepRecord?: boolean | undefined;
  /**
   * What the session index recorded of the file's first bytes: the walk
   * stops there. Ignored when the file's entries no longer start where the
   * record says.
   */
  resume?: ResumeFrom | undefined;
}

/**
 * Read a session file: windowed when possible, else whole.
 *
 * @param path The file.
 * @param options How to read it.
 * @returns What was read.
 * @throws {SessionSyntaxError} When the header is missing or malformed.
 * @throws {Error} When the file cannot be opened or is not a regular file.
 */
export async function readSessionFile(
  path: string,
  options: ReadSessionOptions,
): Promise<LoadedSession> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const file = await openRegular(path, `Cannot open ${quote(path)}`);
  let loaded: LoadedSession | undefined;
  try {
    const size = (await file.stat()).size;
    if (options.window) {
      loaded = await _readWindowed(file, size, path, options.onIssue, {
        checkpoints: options.checkpoints !== false,
        maxLineBytes,
        ...(options.record === true ? { record: true } : {}),
        ...(options.keepRecord === true ? { keepRecord: true } : {}),
        ...(options.resume === undefined ? {} : { resume: options.resume }),
      });
    }
    loaded ??= {
      ...await loadAll(
        readLines(file, {
          end: size,
          maxLineBytes,
          maxFirstLineBytes: HEAD_LINE_MAX_BYTES,
        }),
        path,
        options.onIssue,
      ),
      size,
    };
  } finally {
    await file.close();
  }
  _checkLeaf(loaded, options.onIssue);
  return loaded;
}

/**
 * Read a session from lines (a stream), whole.
 *
 * @param lines The lines.
 * @param name A name for errors.
 * @param onIssue Called with each piece of damage.
 * @returns What was read.
 * @throws {SessionSyntaxError} When the header is missing or malformed.
 */
export async function readSessionLines(
  lines: AsyncIterable<Line>,
  name: string,
  onIssue: ((issue: LoadIssue) => void) | undefined,
): Promise<LoadedSession> {
  const loaded = await loadAll(lines, name, onIssue);
  _checkLeaf(loaded, onIssue);
  return loaded;
}

/** Bytes read at first while looking for the head; more as needed. */
const _HEAD_READ_BYTES = 64 * 1024;

/**
 * The windowed read: the head forwards, then the window backwards.
 * Undefined when the file needs a whole read (version 1 or 2, or a path the
 * backward walk cannot complete).
 */
async function _readWindowed(
  file: FileHandle,
  size: number,
  path: string,
  onIssue: ((issue: LoadIssue) => void) | undefined,
  options: WindowOptions,
): Promise<LoadedSession | undefined> {
  const headLog = new IssueLog();
  const headRead = await _readHead(file, size, path, headLog);
  if (headRead === undefined) return undefined;
  const { head, first } = headRead;
  if (headerVersion(head.header) < SESSION_VERSION) return undefined;
  if (
    options.resume !== undefined && options.resume.bodyStart !== head.bodyStart
  ) {
    const { resume: _, ...rest } = options;
    options = rest;
  }
  const windowLog = new IssueLog();
  const read = new ReadRanges();
  read.add(0, first.length);
  const source = _servedFrom(first, file, size, read);
  const w = await loadWindow(source, head.bodyStart, windowLog, options);
  if (w === undefined) return undefined;
  const log = new IssueLog(onIssue);
  log.replay(headLog.issues);
  log.replay(windowLog.issues.sort((a, b) => a.offset - b.offset));
  return {
    slot: head.slot,
    slotState: head.slotState,
    header: head.header,
    entries: w.entries,
    byId: new Map(w.entries.map((e) => [e.id, e])),
    issues: log.issues,
    migrated: false,
    seen: head.lines + w.seen,
    bytes: read.bytes,
    size,
    windowOnly: true,
    leafId: w.leafId,
    base: w.base,
    ...(w.fileIds === undefined ? {} : { fileIds: w.fileIds }),
    ...(w.record === undefined ? {} : { record: w.record, recordEnd: w.end }),
  };
}

/**
 * The head from the file's first bytes: 64 KiB, then more (up to two
 * lines' worth of {@linkcode HEAD_LINE_MAX_BYTES}) while a line is cut.
 * The bytes read are kept: a small file's backward walk is served from them.
 * Undefined when line 1 or 2 is longer than that: such a file is damaged,
 * and the whole read (which skips a long line 1) settles it.
 */
async function _readHead(
  file: FileHandle,
  size: number,
  path: string,
  log: IssueLog,
): Promise<{ head: Head; first: Uint8Array } | undefined> {
  const limit = Math.min(size, 2 * HEAD_LINE_MAX_BYTES);
  let first = new Uint8Array(Math.min(size, _HEAD_READ_BYTES));
  let n = await readFull(file, first, 0);
  for (;;) {
    first = first.subarray(0, n);
    const complete = n === size;
    const head = tryParseHead(first, { name: path, complete, log });
    if (head !== undefined) return { head, first };
    if (n >= limit || n < first.length) return undefined;
    const more = new Uint8Array(Math.min(limit, 4 * n));
    more.set(first);
    n += await readFull(file, more.subarray(n), n);
    first = more;
  }
}

/**
 * Positional reads served from `first` (the file's first bytes) where they
 * fit; each range read from disk goes into `read`, which counts every byte
 * once however many reads covered it.
 */
function _servedFrom(
  first: Uint8Array,
  file: FileHandle,
  size: number,
  read: ReadRanges,
): WindowSource {
  return {
    size,
    read: async (p: Uint8Array, position: number): Promise<number> => {
      if (position + p.length <= first.length) {
        p.set(first.subarray(position, position + p.length));
        return p.length;
      }
      const n = await file.read(p, position);
      if (n > 0) read.add(position, position + n);
      return n;
    },
  };
}

/** Report a branch marker pointing nowhere and a path cut short. */
function _checkLeaf(
  loaded: LoadedSession,
  onIssue: ((issue: LoadIssue) => void) | undefined,
): void {
  const last = loaded.entries.at(-1);
  if (last === undefined) return;
  const to = branchMarkerTarget(last);
  const log = new IssueLog(onIssue);
  if (to !== undefined && !loaded.byId.has(to)) {
    log.add(
      "bad-branch-marker",
      0,
      -1,
      "the last entry is a branch marker whose target is not in the session; the marker is the leaf",
    );
  }
  const end = loaded.base?.pathEnd ??
    pathTo(resolveLeaf(loaded.entries, loaded.byId), loaded.byId).end;
  if (end !== "root") {
    log.add(
      "path-cut",
      0,
      -1,
      end === "cycle"
        ? "the active path runs into a cycle; it stops at the first repeated entry"
        : "the active path reaches an entry whose parent is missing; history before it is not in the context",
    );
  }
  loaded.issues.push(...log.issues);
}
