/**
 * What a `Session` is made of, from each factory: a file read (windowed),
 * a stream read (whole), or a new session in memory.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { SESSION_VERSION, type SessionHeader } from "../format/header.ts";
import type { LoadIssue } from "../format/issues.ts";
import { cleanTitle, type TitleSlot } from "../format/title_slot.ts";
import { uuidv7 } from "../format/uuid.ts";
import { HEAD_LINE_MAX_BYTES } from "../read/_head.ts";
import { DEFAULT_MAX_LINE_BYTES, LineStream } from "../read/lines.ts";
import type { LoadedSession } from "../read/_records.ts";
import type { ResumeFrom } from "../read/_resume.ts";
import { readSessionFile, readSessionLines } from "../read/_session_file.ts";
import { findDataDir, resolveDataDir } from "../store/data_dir.ts";
import {
  canonicalCwdSlug,
  sessionFileName,
  sessionsDir,
} from "../store/places.ts";
import { noBlobs, readBlobs, type ResolvedBlobs } from "./_blobs.ts";
import type {
  SessionCreateOptions,
  SessionFromStreamOptions,
  SessionOpenOptions,
  SessionWriteOptions,
} from "./options.ts";

/** What a session is made of. */
export interface SessionParts {
  /** The file (absolute), or undefined for a stream. */
  path: string | undefined;
  /** Where `blobs/` lives, if known. */
  dataDir: string | undefined;
  /** What was read (or the new session's head). */
  loaded: LoadedSession;
  /** The blobs its entries reference. */
  blobs: ResolvedBlobs;
  /** Whether the file exists. */
  onDisk: boolean;
  /** How appends write. */
  options: SessionWriteOptions;
  /**
   * The line limit the file was read with, when not the default: the
   * migration of a version 1 or 2 file reads the same lines as records.
   */
  maxLineBytes?: number | undefined;
}

/**
 * The parts of a session file: read windowed (unless told otherwise), its
 * blobs resolved from the data dir.
 *
 * @param path The file.
 * @param options As `Session.open` takes them.
 * @param index Set by the session index's open: what it recorded of the
 * file (the walk stops where the record begins), and the read keeps what
 * it learns of the whole file (`loaded.record`) for the index to store. A
 * plain open keeps only the file's ids of it.
 * @returns The parts.
 */
export async function openParts(
  path: string,
  options: SessionOpenOptions,
  index?: { resume: ResumeFrom | undefined },
): Promise<SessionParts> {
  const absolute = resolve(path);
  // The file first: a path that is no session fails before the data dir is
  // looked for.
  const loaded = await readSessionFile(absolute, {
    onIssue: options.onIssue,
    maxLineBytes: options.maxLineBytes,
    window: options.window !== false,
    checkpoints: options.checkpoints !== false,
    keepRecord: index !== undefined,
    resume: index?.resume,
  });
  const dataDir = options.dataDir ?? await findDataDir(path);
  const blobs = await _blobsOf(loaded, dataDir, options);
  return {
    path: absolute,
    dataDir,
    loaded,
    blobs,
    onDisk: true,
    options,
    maxLineBytes: options.maxLineBytes,
  };
}

/**
 * The parts of a session read whole from a stream (no file: read only).
 *
 * @param stream The bytes of a session file.
 * @param options As `Session.fromStream` takes them.
 * @returns The parts.
 */
export async function streamParts(
  stream: ReadableStream<Uint8Array>,
  options: SessionFromStreamOptions,
): Promise<SessionParts> {
  const loaded = await readSessionLines(
    stream.pipeThrough(
      new LineStream({
        maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
        maxFirstLineBytes: HEAD_LINE_MAX_BYTES,
      }),
    ),
    options.name ?? "<stream>",
    options.onIssue,
  );
  const { dataDir } = options;
  const blobs = await _blobsOf(loaded, dataDir, options);
  return {
    path: undefined,
    dataDir,
    loaded,
    blobs,
    onDisk: false,
    options: {},
  };
}

/**
 * The parts of a new session in memory: its id, time, header and slot, and
 * the file it will be written to.
 *
 * @param options As `Session.create` takes them.
 * @returns The parts.
 * @throws {TypeError} When `cwd` is empty.
 */
export async function createParts(
  options: SessionCreateOptions,
): Promise<SessionParts> {
  if (typeof options.cwd !== "string" || options.cwd.length === 0) {
    throw new TypeError("Cannot create a session: cwd is empty");
  }
  const timestamp = (options.now ?? (() => new Date()))().toISOString();
  const id = options.id ?? uuidv7();
  const cwd = resolve(options.cwd);
  const dataDir = options.dataDir ?? await resolveDataDir();
  const path = options.path !== undefined ? resolve(options.path) : join(
    sessionsDir(dataDir),
    await canonicalCwdSlug(cwd),
    sessionFileName(timestamp, id),
  );
  const loaded = _newSession(options, { id, timestamp, cwd });
  return { path, dataDir, loaded, blobs: noBlobs(), onDisk: false, options };
}

/** The blobs a read session references, unless resolving is turned off. */
function _blobsOf(
  loaded: LoadedSession,
  dataDir: string | undefined,
  options: { resolveBlobs?: boolean; onIssue?: (issue: LoadIssue) => void },
): Promise<ResolvedBlobs> {
  if (options.resolveBlobs === false || dataDir === undefined) {
    return Promise.resolve(noBlobs());
  }
  return readBlobs(loaded, join(dataDir, "blobs"), options.onIssue);
}

/** Header fields a caller's extra fields never replace. */
const _HEADER_KEYS = new Set([
  "type",
  "version",
  "id",
  "timestamp",
  "cwd",
  "parentSession",
]);

/**
 * A session with no entries yet, as if read from a file.
 *
 * @param options What the caller asked for.
 * @param head The id, the creation time and the absolute cwd.
 * @returns The loaded state of the new session.
 */
function _newSession(
  options: SessionCreateOptions,
  head: { id: string; timestamp: string; cwd: string },
): LoadedSession {
  const { id, timestamp, cwd } = head;
  const header: SessionHeader = {
    type: "session",
    version: SESSION_VERSION,
    id,
    timestamp,
    cwd,
    ...(options.parentSession === undefined
      ? {}
      : { parentSession: options.parentSession }),
    // Extra fields come last in the line but never replace the ones above.
    ...Object.fromEntries(
      Object.entries(options.header ?? {}).filter(([k]) =>
        !_HEADER_KEYS.has(k)
      ),
    ),
  };
  const title = options.title === undefined ? "" : cleanTitle(options.title);
  const slot: TitleSlot = {
    title,
    updatedAt: timestamp,
    ...(options.titleSource === undefined
      ? {}
      : { source: options.titleSource }),
  };
  return {
    slot,
    slotState: "ok",
    header,
    entries: [],
    byId: new Map(),
    issues: [],
    migrated: false,
    seen: 0,
    bytes: 0,
    size: 0,
    windowOnly: false,
  };
}
