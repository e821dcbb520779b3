/**
 * Reading a session file or stream into memory: the windowed read where it
 * can settle the path, the whole read where it cannot.
 *
 * @module
 */

import { pathTo, resolveLeaf } from "../context/tree.ts";
import { branchMarkerTarget } from "../format/entries.ts";
import { headerVersion, SESSION_VERSION } from "../format/header.ts";
import type { LoadIssue } from "../format/issues.ts";
import { quote } from "../fs/_errors.ts";
import { fileReaderAt, openRegular, type ReaderAt } from "../fs/_read.ts";
import type { FsHandle } from "../fs/_seam.ts";
import { IssueLog } from "./_decode.ts";
import { HeadReader } from "./_head.ts";
import type { Line } from "./_line.ts";
import { readLinesFromReader } from "./_lines_forward.ts";
import { loadAll, type LoadedSession } from "./_records.ts";
import { loadWindow } from "./_window.ts";

/** How to read a session file. */
export interface ReadSessionOptions {
  /** Called with each piece of damage. */
  onIssue?: ((issue: LoadIssue) => void) | undefined;
  /** Keep only the window. */
  window: boolean;
  /** Let a settings checkpoint end the backward walk. Default true. */
  checkpoints?: boolean;
}

/**
 * Read a session file: windowed when possible, else whole.
 *
 * @param path The file.
 * @param options How to read it.
 * @returns What was read.
 * @throws {SessionSyntaxError} When the header is missing or malformed.
 */
export async function readSessionFile(
  path: string,
  options: ReadSessionOptions,
): Promise<LoadedSession> {
  const file = await openRegular(path, `Cannot open ${quote(path)}`);
  let loaded: LoadedSession | undefined;
  try {
    if (options.window) {
      loaded = await _readWindowed(
        file,
        path,
        options.onIssue,
        options.checkpoints !== false,
      );
    }
    if (loaded === undefined) {
      await file.seek(0, Deno.SeekMode.Start);
      loaded = await loadAll(readLinesFromReader(file), path, options.onIssue);
    }
  } finally {
    file.close();
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

/** Bytes read per call while looking for the header. */
const _HEAD_READ_BYTES = 64 * 1024;

/**
 * The windowed read: the head forwards, then the window backwards.
 * Undefined when the file needs a whole read (version 1 or 2, or a path the
 * backward walk cannot complete).
 */
async function _readWindowed(
  file: FsHandle,
  path: string,
  onIssue: ((issue: LoadIssue) => void) | undefined,
  checkpoints: boolean,
): Promise<LoadedSession | undefined> {
  const size = (await file.stat()).size;
  const headLog = new IssueLog();
  const reader = new HeadReader(path, headLog);
  let bytesRead = 0;
  let lines = 0;
  let end = 0;
  // The first read is kept: a small file's backward walk is served from it.
  let first = new Uint8Array(0);
  const counted = {
    read: async (p: Uint8Array): Promise<number | null> => {
      const n = await file.read(p.subarray(0, _HEAD_READ_BYTES));
      if (n !== null) {
        if (bytesRead === 0) first = p.slice(0, n);
        bytesRead += n;
      }
      return n;
    },
  };
  for await (const line of readLinesFromReader(counted)) {
    lines++;
    end = line.offset + line.size;
    if (reader.take(line)) break;
  }
  const head = reader.finish(lines, end);
  if (headerVersion(head.header) < SESSION_VERSION) return undefined;
  const windowLog = new IssueLog();
  const w = await loadWindow(
    _servedFrom(first, fileReaderAt(file, size), (n) => bytesRead += n),
    head.bodyStart,
    windowLog,
    checkpoints,
  );
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
    seen: lines + w.seen,
    bytes: bytesRead,
    windowed: true,
    leafId: w.leafId,
    base: w.base,
  };
}

/** Positional reads served from `first` (the file's first bytes) where they fit. */
function _servedFrom(
  first: Uint8Array,
  disk: ReaderAt,
  onRead: (n: number) => void,
): ReaderAt {
  return {
    size: disk.size,
    readAt: async (p: Uint8Array, position: number): Promise<number> => {
      if (position + p.length <= first.length) {
        p.set(first.subarray(position, position + p.length));
        return p.length;
      }
      const n = await disk.readAt(p, position);
      onRead(n);
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
