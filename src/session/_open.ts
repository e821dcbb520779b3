/**
 * Reading a session file or stream into memory: the windowed open, the full
 * read, and the blobs its entries reference.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { BLOB_REF_PREFIX, parseBlobRef } from "../format/blob_ref.ts";
import { BlobStore } from "../store/blob_store.ts";
import {
  branchMarkerTarget,
  type ContentBlock,
  type SessionEntry,
} from "../format/entries.ts";
import { headerVersion, SESSION_VERSION } from "../format/header.ts";
import { fileReaderAt, type Line, readLinesFromReader } from "../read/lines.ts";
import {
  IssueLog,
  loadAll,
  type LoadedSession,
  PrefixReader,
} from "../read/_records.ts";
import type { LoadIssue } from "../format/issues.ts";
import type { ResolvedBlobs } from "./_persist.ts";
import { loadWindow } from "../read/_window.ts";
import { pathTo, resolveLeaf } from "../context/tree.ts";

/** Ancestors searched for a `blobs/` folder when no data dir is given. */
const _DATA_DIR_SEARCH_DEPTH = 8;

/** How to read a session. */
export interface ReadOptions {
  /** Where `blobs/` lives; undefined: no blob is resolved. */
  dataDir?: string | undefined;
  /** Resolve blob references. */
  resolveBlobs: boolean;
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
 * @returns What was read, and the blobs its window references.
 */
export async function readSessionFile(
  path: string,
  options: ReadOptions,
): Promise<{ loaded: LoadedSession; blobs: ResolvedBlobs }> {
  const file = await Deno.open(path, { read: true });
  let loaded: LoadedSession | undefined;
  try {
    if (options.window) {
      loaded = await _openWindowed(
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
  return { loaded, blobs: await _finish(loaded, options) };
}

/**
 * Read a session from lines (a stream), whole.
 *
 * @param lines The lines.
 * @param name A name for errors.
 * @param options How to read it.
 * @returns What was read, and the blobs it references.
 */
export async function readSessionLines(
  lines: AsyncIterable<Line>,
  name: string,
  options: ReadOptions,
): Promise<{ loaded: LoadedSession; blobs: ResolvedBlobs }> {
  const loaded = await loadAll(lines, name, options.onIssue);
  return { loaded, blobs: await _finish(loaded, options) };
}

async function _finish(
  loaded: LoadedSession,
  options: ReadOptions,
): Promise<ResolvedBlobs> {
  const blobs = options.resolveBlobs && options.dataDir !== undefined
    ? await _readBlobs(loaded, join(options.dataDir, "blobs"), options.onIssue)
    : { images: new Map<string, string>(), texts: new Map<string, string>() };
  _checkLeaf(loaded, options.onIssue);
  return blobs;
}

/**
 * The nearest ancestor of `file` that holds a `blobs/` folder (the data dir),
 * searching up to 8 levels.
 *
 * @example Finding the blobs of a fixture
 * ```ts
 * import { findDataDir } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const file = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
 * const dataDir = new URL("../../fixtures/omp", import.meta.url);
 * equal(await findDataDir(file.pathname), dataDir.pathname);
 * ```
 *
 * @param file A session file.
 * @returns The data dir, or undefined.
 */
export async function findDataDir(file: string): Promise<string | undefined> {
  let dir = dirname(resolve(file));
  for (let i = 0; i < _DATA_DIR_SEARCH_DEPTH; i++) {
    try {
      const info = await Deno.stat(join(dir, "blobs"));
      if (info.isDirectory) return dir;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** Bytes read per call while looking for the header. */
const _PREFIX_READ_BYTES = 64 * 1024;

/**
 * The windowed open: the title slot and header forward, then the window
 * backwards. Undefined when the file needs a full read (version 1 or 2, or a
 * path the backward walk cannot complete).
 */
async function _openWindowed(
  file: Deno.FsFile,
  path: string,
  onIssue: ((issue: LoadIssue) => void) | undefined,
  checkpoints: boolean,
): Promise<LoadedSession | undefined> {
  const size = (await file.stat()).size;
  const prefixLog = new IssueLog();
  const prefix = new PrefixReader(path, prefixLog);
  let bytesRead = 0;
  let bodyStart = 0;
  let lines = 0;
  // The first read is kept: a small file's backward walk is served from it.
  let head = new Uint8Array(0);
  const reader = {
    read: async (p: Uint8Array): Promise<number | null> => {
      const n = await file.read(p.subarray(0, _PREFIX_READ_BYTES));
      if (n !== null) {
        if (bytesRead === 0) head = p.slice(0, n);
        bytesRead += n;
      }
      return n;
    },
  };
  for await (const line of readLinesFromReader(reader)) {
    lines++;
    bodyStart = line.offset + line.size;
    if (prefix.take(line)) break;
  }
  const header = prefix.finish(lines, bodyStart);
  if (headerVersion(header) < SESSION_VERSION) return undefined;
  const windowLog = new IssueLog();
  const disk = fileReaderAt(file, size);
  const source = {
    size,
    readAt: async (p: Uint8Array, position: number): Promise<number> => {
      if (position + p.length <= head.length) {
        p.set(head.subarray(position, position + p.length));
        return p.length;
      }
      const n = await disk.readAt(p, position);
      bytesRead += n;
      return n;
    },
  };
  const w = await loadWindow(source, bodyStart, windowLog, checkpoints);
  if (w === undefined) return undefined;
  const log = new IssueLog(onIssue);
  log.replay(prefixLog.issues);
  log.replay(windowLog.issues.sort((a, b) => a.offset - b.offset));
  return {
    slot: prefix.slot,
    slotState: prefix.line1,
    header,
    entries: w.entries,
    byId: new Map(w.entries.map((e) => [e.id, e])),
    issues: log.issues,
    migrated: false,
    seen: lines + w.seen,
    bytes: bytesRead,
    windowed: true,
    leafId: w.leafId,
    window: {
      carried: w.carried,
      labels: w.labels,
      pathPrefix: w.pathPrefix,
      pathEnd: w.pathEnd,
    },
  };
}

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
  const end = loaded.window?.pathEnd ??
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

/** Blob references in the loaded entries: image data, and tool-result text that is exactly a reference. */
function* _blobRefs(
  entries: readonly SessionEntry[],
): Generator<{ ref: string; text: boolean }> {
  for (const e of entries) {
    let content: unknown;
    let toolResult = false;
    if (e.type === "message") {
      const m = e.message as { content?: unknown; role?: unknown } | null;
      content = m?.content;
      toolResult = m?.role === "toolResult";
    } else if (e.type === "custom_message") content = e.content;
    if (!Array.isArray(content)) continue;
    for (const b of content as ContentBlock[]) {
      if (
        b?.type === "image" && typeof b.data === "string" &&
        b.data.startsWith(BLOB_REF_PREFIX)
      ) {
        yield { ref: b.data, text: false };
      } else if (
        toolResult && b?.type === "text" && typeof b.text === "string" &&
        parseBlobRef(b.text) !== undefined
      ) {
        yield { ref: b.text, text: true };
      }
    }
  }
}

const _utf8 = new TextDecoder();

async function _readBlobs(
  loaded: LoadedSession,
  blobsDir: string,
  onIssue: ((issue: LoadIssue) => void) | undefined,
): Promise<ResolvedBlobs> {
  const log = new IssueLog(onIssue);
  const store = new BlobStore(blobsDir);
  const out: ResolvedBlobs = { images: new Map(), texts: new Map() };
  const refused = new Set<string>();
  for (const { ref, text } of _blobRefs(loaded.entries)) {
    const hex = parseBlobRef(ref);
    if (hex === undefined) {
      if (!refused.has(ref)) {
        refused.add(ref);
        log.add(
          "bad-blob-ref",
          0,
          -1,
          "a blob reference is not blob:sha256:<64 lowercase hex> and was not followed",
        );
      }
      continue;
    }
    const into = text ? out.texts : out.images;
    if (into.has(hex) || refused.has(hex)) continue;
    let bytes: Uint8Array | undefined;
    let why = "is missing";
    try {
      bytes = await store.get(ref);
    } catch (err) {
      // A symlinked blob folder or blob, or another thing in its place: a
      // hostile data dir is reported, never followed.
      if (!(err instanceof Error) || err instanceof TypeError) throw err;
      why = `cannot be used (${err.message})`;
    }
    if (bytes !== undefined) {
      into.set(hex, text ? _utf8.decode(bytes) : bytes.toBase64());
    } else {
      refused.add(hex);
      log.add(
        "missing-blob",
        0,
        -1,
        `blob ${hex} ${why}; the reference stays in place`,
      );
    }
  }
  loaded.issues.push(...log.issues);
  return out;
}
