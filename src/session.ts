/**
 * `Session`: an open session file.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { BLOB_REF_PREFIX, parseBlobRef } from "./blob_ref.ts";
import { BlobStore } from "./blob_store.ts";
import {
  buildSessionContext,
  type ResetRule,
  type SessionContext,
} from "./context.ts";
import {
  branchMarkerTarget,
  type ContentBlock,
  type SessionEntry,
} from "./entries.ts";
import {
  headerVersion,
  SESSION_VERSION,
  type SessionHeader,
} from "./header.ts";
import { fileReaderAt, readLines, readLinesFromReader } from "./line_reader.ts";
import {
  IssueLog,
  loadAll,
  type LoadedSession,
  PrefixReader,
} from "./loader.ts";
import { loadWindow } from "./window.ts";
import type { LoadIssue } from "./load_issue.ts";
import { resolveLeaf } from "./tree.ts";
import type { TitleSlot, TitleSource } from "./title_slot.ts";

/** Options for {@linkcode Session.open}. */
export interface SessionOpenOptions {
  /**
   * The data dir whose `blobs/` holds the blobs the session references.
   * Default: the nearest ancestor of the file that holds a `blobs/` folder.
   */
  dataDir?: string;
  /** Resolve blob references in image blocks when the context is built. Default true. */
  resolveBlobs?: boolean;
  /** Called with each piece of damage as the loader reads around it. */
  onIssue?: (issue: LoadIssue) => void;
  /**
   * Keep only the window (default true): the file is read backwards from
   * the end and only the active path back to the governing reset or
   * compaction window is parsed and kept. False reads and keeps every line.
   */
  window?: boolean;
}

/** Options for {@linkcode Session.fromStream}. */
export interface SessionFromStreamOptions extends SessionOpenOptions {
  /** A name for the stream in errors and issues. Default `"<stream>"`. */
  name?: string;
}

/** Options for {@linkcode Session.buildContext}. */
export interface SessionBuildContextOptions {
  /** Another leaf than the session's. */
  leafId?: string | null;
  /** How a compaction reaching back past a reset is settled; default `xdev`. */
  resetRule?: ResetRule;
}

/** What the loader kept and looked at. */
export interface WindowStats {
  /** Entries kept in memory. */
  retained: number;
  /** Lines the loader looked at (the title slot and header included). */
  seen: number;
  /** Whether the loader skipped part of the file (the windowed path). */
  windowed: boolean;
  /** Bytes read from the file or stream. */
  bytesRead: number;
}

/** Ancestors searched for a `blobs/` folder when no data dir is given. */
const _DATA_DIR_SEARCH_DEPTH = 8;

/**
 * An open session. Opening never modifies the file.
 *
 * @example Open a session and rebuild its context
 * ```ts
 * import { Session } from "@xdev/session";
 * const url = new URL("../fixtures/omp/s1-main.jsonl", import.meta.url);
 * await using session = await Session.open(url.pathname);
 * const ctx = session.buildContext();
 * console.assert(ctx.leafId === session.leafId);
 * console.log(session.title, ctx.messages.length);
 * ```
 */
export class Session implements AsyncDisposable {
  readonly #path: string | undefined;
  readonly #loaded: LoadedSession;
  readonly #leafId: string | null;
  readonly #blobs: Map<string, string>;
  #closed = false;

  private constructor(
    path: string | undefined,
    loaded: LoadedSession,
    blobs: Map<string, string>,
  ) {
    this.#path = path;
    this.#loaded = loaded;
    this.#blobs = blobs;
    this.#leafId = loaded.leafId !== undefined
      ? loaded.leafId
      : resolveLeaf(loaded.entries, loaded.byId);
  }

  /**
   * Open a session file.
   *
   * @param path The `.jsonl` file.
   * @param options Blob resolution and damage reporting.
   * @returns The open session.
   * @throws {SessionSyntaxError} When the header is missing or malformed.
   * @throws {Deno.errors.NotFound} When the file does not exist.
   */
  static async open(
    path: string,
    options: SessionOpenOptions = {},
  ): Promise<Session> {
    const file = await Deno.open(path, { read: true });
    let loaded: LoadedSession | undefined;
    try {
      if (options.window !== false) {
        loaded = await _openWindowed(file, path, options.onIssue);
      }
      if (loaded === undefined) {
        await file.seek(0, Deno.SeekMode.Start);
        loaded = await loadAll(
          readLinesFromReader(file),
          path,
          options.onIssue,
        );
      }
    } finally {
      file.close();
    }
    const dataDir = options.dataDir ?? await findDataDir(path);
    const blobs = options.resolveBlobs === false || dataDir === undefined
      ? new Map<string, string>()
      : await _readBlobs(loaded, join(dataDir, "blobs"), options.onIssue);
    _checkLeaf(loaded, options.onIssue);
    return new Session(resolve(path), loaded, blobs);
  }

  /**
   * Load a session from a byte stream (a file's `readable`, a network body,
   * a test stream). The stream is read to its end.
   *
   * @param stream The bytes of a session file.
   * @param options A name for errors, the data dir for blobs, damage reporting.
   * @returns The session; it has no path, so it cannot be appended to.
   * @throws {SessionSyntaxError} When the header is missing or malformed.
   */
  static async fromStream(
    stream: ReadableStream<Uint8Array>,
    options: SessionFromStreamOptions = {},
  ): Promise<Session> {
    const name = options.name ?? "<stream>";
    const loaded = await loadAll(readLines(stream), name, options.onIssue);
    const blobs =
      options.resolveBlobs === false || options.dataDir === undefined
        ? new Map<string, string>()
        : await _readBlobs(
          loaded,
          join(options.dataDir, "blobs"),
          options.onIssue,
        );
    _checkLeaf(loaded, options.onIssue);
    return new Session(undefined, loaded, blobs);
  }

  /** The file's absolute path, or undefined for a session read from a stream. */
  get path(): string | undefined {
    return this.#path;
  }

  /** The header as on disk (unknown fields kept; older versions not rewritten). */
  get header(): SessionHeader {
    return this.#loaded.header;
  }

  /** The title slot, when line 1 holds a valid one. */
  get titleSlot(): TitleSlot | undefined {
    return this.#loaded.slot;
  }

  /**
   * The title: the slot's when there is a slot (an empty slot title means
   * none), else the header's.
   */
  get title(): string | undefined {
    const slot = this.#loaded.slot;
    if (slot !== undefined) {
      return slot.title.length > 0 ? slot.title : undefined;
    }
    const t = this.#loaded.header.title;
    return typeof t === "string" && t.length > 0 ? t : undefined;
  }

  /** Who set the title, from the slot (else the header). */
  get titleSource(): TitleSource | undefined {
    const slot = this.#loaded.slot;
    if (slot !== undefined) return slot.source;
    const s = this.#loaded.header.titleSource;
    if (s === "user" || s === "manual") return "manual";
    return s === "auto" || s === "subagent" ? s : undefined;
  }

  /** The active leaf (DESIGN §3.6), or null for a session without entries. */
  get leafId(): string | null {
    return this.#leafId;
  }

  /** Whether the file was version 1 or 2 and migrated in memory. */
  get migrated(): boolean {
    return this.#loaded.migrated;
  }

  /** Damage the loader read around, in file order. */
  get issues(): readonly LoadIssue[] {
    return this.#loaded.issues;
  }

  /** The entries in memory, in file order. */
  get entries(): readonly SessionEntry[] {
    return this.#loaded.entries;
  }

  /**
   * An entry by id.
   *
   * @param id The entry's id.
   * @returns The entry, if it is in memory.
   */
  getEntry(id: string): SessionEntry | undefined {
    return this.#loaded.byId.get(id);
  }

  /**
   * Rebuild what the model sees on resume (DESIGN §3.7).
   *
   * @param options Another leaf, or omp's reset rule for comparison.
   * @returns The context.
   */
  buildContext(options: SessionBuildContextOptions = {}): SessionContext {
    const blobs = this.#blobs;
    return buildSessionContext(
      this.#loaded.entries,
      this.#loaded.byId,
      options.leafId === undefined ? this.#leafId : options.leafId,
      {
        resolveBlob: (hex) => blobs.get(hex),
        resetRule: options.resetRule ?? "xdev",
        ...(this.#loaded.window === undefined
          ? {}
          : { window: this.#loaded.window }),
      },
    );
  }

  /**
   * What the loader kept and looked at.
   *
   * @returns The figures.
   */
  windowStats(): WindowStats {
    return {
      retained: this.#loaded.entries.length,
      seen: this.#loaded.seen,
      windowed: this.#loaded.windowed,
      bytesRead: this.#loaded.bytes,
    };
  }

  /** Whether {@linkcode Session.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Release the session. Reading after close still works; writing does not. */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  /** Same as {@linkcode Session.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * The nearest ancestor of `file` that holds a `blobs/` folder (the data dir),
 * searching up to 8 levels.
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
): Promise<LoadedSession | undefined> {
  const size = (await file.stat()).size;
  const prefixLog = new IssueLog();
  const prefix = new PrefixReader(path, prefixLog);
  let prefixBytes = 0;
  let bodyStart = 0;
  let lines = 0;
  const reader = {
    read: async (p: Uint8Array): Promise<number | null> => {
      const n = await file.read(p.subarray(0, _PREFIX_READ_BYTES));
      if (n !== null) prefixBytes += n;
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
  const w = await loadWindow(fileReaderAt(file, size), bodyStart, windowLog);
  if (w === undefined) return undefined;
  const log = new IssueLog(onIssue);
  log.replay(prefixLog.issues);
  log.replay(windowLog.issues.sort((a, b) => a.offset - b.offset));
  return {
    slot: prefix.slot,
    header,
    entries: w.entries,
    byId: new Map(w.entries.map((e) => [e.id, e])),
    issues: log.issues,
    migrated: false,
    seen: lines + w.seen,
    bytes: prefixBytes + w.bytes,
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
  if (to !== undefined && !loaded.byId.has(to)) {
    const log = new IssueLog(onIssue);
    log.add(
      "bad-branch-marker",
      0,
      -1,
      "the last entry is a branch marker whose target is not in the session; the marker is the leaf",
    );
    loaded.issues.push(...log.issues);
  }
}

/** The image blocks' blob references in the loaded entries. */
function* _imageRefs(entries: readonly SessionEntry[]): Generator<string> {
  for (const e of entries) {
    let content: unknown;
    if (e.type === "message") {
      content = (e.message as { content?: unknown } | null)?.content;
    } else if (e.type === "custom_message") content = e.content;
    if (!Array.isArray(content)) continue;
    for (const b of content as ContentBlock[]) {
      if (
        b?.type === "image" && typeof b.data === "string" &&
        b.data.startsWith(BLOB_REF_PREFIX)
      ) {
        yield b.data;
      }
    }
  }
}

async function _readBlobs(
  loaded: LoadedSession,
  blobsDir: string,
  onIssue: ((issue: LoadIssue) => void) | undefined,
): Promise<Map<string, string>> {
  const log = new IssueLog(onIssue);
  const store = new BlobStore(blobsDir);
  const blobs = new Map<string, string>();
  const refused = new Set<string>();
  for (const ref of _imageRefs(loaded.entries)) {
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
    if (blobs.has(hex) || refused.has(hex)) continue;
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
    if (bytes !== undefined) blobs.set(hex, bytes.toBase64());
    else {
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
  return blobs;
}
