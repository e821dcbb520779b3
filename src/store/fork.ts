/**
 * Forking a session: a new file with a new id whose entries are the source's,
 * byte for byte, copied in bounded memory.
 *
 * @module
 */

import { dirname, isAbsolute, join } from "node:path";
import {
  _fs,
  type _FsFile,
  type _FsHandle,
  _IS_WINDOWS,
  _writeAll,
} from "../fs/_seam.ts";
import { SessionSyntaxError } from "../format/errors.ts";
import {
  _createTemp,
  _FILE_MODE,
  _named,
  _removeAfterFailure,
  _syncFolder,
} from "../write/_file_ops.ts";
import { _parsePrefix, _readFull } from "../read/_head.ts";
import { sessionFileName } from "./places.ts";
import { cleanTitle, marshalTitleSlot, type TitleSlot } from "../format/title_slot.ts";
import { uuidv7 } from "../format/uuid.ts";

/** Options for {@linkcode forkSession}. */
export interface ForkSessionOptions {
  /** Title of the fork (cleaned; source auto). Default: the source's title. */
  label?: string;
  /** Working directory recorded in the fork's header. Default: the source's. */
  cwd?: string;
  /** syncData before the rename. Default false. */
  sync?: boolean;
}

/** What {@linkcode forkSession} wrote. */
export interface ForkResult {
  /** The new file. */
  path: string;
  /** The fork's session id, a new UUIDv7. */
  id: string;
  /** The source's session id, recorded as the fork's `parentSession`. */
  parentSession: string;
  /** Bytes written. */
  bytes: number;
}

/**
 * The copy buffer, and the most of the source held at once: the header must
 * end within the first this-many bytes. Reads of 1 MiB run at the disk-cache
 * floor while holding little memory.
 */
const FORK_BUFFER_BYTES = 1 << 20;
const _LF = 0x0a;
const _encoder = new TextEncoder();

/**
 * Fork a session file: a new UUIDv7 id and timestamp, header
 * `parentSession` = the source's header id, every other header field kept
 * (unknown ones and `version` too), a fresh 256-byte title slot (the source's
 * title, or `options.label`; source `auto`: a fork is a user session, never a
 * subagent's), then every entry line copied verbatim through one 1 MiB buffer,
 * so a 1 GB source forks without being read into memory.
 *
 * The fork is written to `.<name>.<random>.tmp` (mode 0600) in the
 * destination folder, then hard-linked to its name, which fails rather than
 * replace an existing file, and the temp name removed (where the filesystem
 * has no hard links, the name is checked and the temp file renamed). Blobs are
 * shared by reference: nothing to copy. A source without a title slot (legacy,
 * header first) forks too. A torn last line is copied as is and followed by a
 * `"\n"`, so the fork's next append starts on a line of its own. With a
 * label, a `title`/`titleSource` the header already has is set to match.
 *
 * @example Forking a session
 * ```ts
 * import { forkSession, marshalTitleSlot, Session } from "@xdev/session";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const src = `${dir}/a.jsonl`;
 * const header = {
 *   type: "session", version: 3, id: "01a0f000-0000-7000-8000-00000000aaaa",
 *   timestamp: "2026-10-01T09:00:00.000Z", cwd: "/work",
 * };
 * const slot = marshalTitleSlot({ title: "Start", updatedAt: header.timestamp });
 * await Deno.writeFile(src, slot);
 * await Deno.writeTextFile(src, JSON.stringify(header) + "\n", { append: true });
 * const fork = await forkSession(src, undefined, { label: "Try another way" });
 * assert.equal(fork.parentSession, header.id);
 * await using session = await Session.open(fork.path);
 * assert.equal(session.title, "Try another way");
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @param src The session file to fork.
 * @param dst The new file, which must not exist. Default: the source's folder,
 * named by `sessionFileName(timestamp, id)` of the fork.
 * @param options The fork's title and cwd; whether to sync.
 * @returns Where the fork is, its id, its parent's id, and its size.
 * @throws {TypeError} When `label` is empty once cleaned, or `cwd` is not an
 * absolute path.
 * @throws {SessionSyntaxError} When the source's header is missing or
 * malformed, or does not end within its first 1 MiB.
 * @throws {Deno.errors.AlreadyExists} When `dst` exists.
 * @throws {Deno.errors.NotFound} When the source or the destination folder
 * does not exist.
 */
export async function forkSession(
  src: string,
  dst?: string,
  options: ForkSessionOptions = {},
): Promise<ForkResult> {
  const label = _label(options.label, src);
  if (options.cwd !== undefined && !_isAbsolutePath(options.cwd)) {
    throw new TypeError(
      `Cannot fork "${src}": the cwd "${options.cwd}" is not an absolute path`,
    );
  }
  if (dst !== undefined) await _assertAbsent(src, dst);
  const fs = _fs();
  using source = await fs.openHandle(src, { read: true });
  const buffer = new Uint8Array(FORK_BUFFER_BYTES);
  const n = await _readFull(source, buffer);
  const { slot, header } = _forkPrefix(src, buffer.subarray(0, n), label, {
    eof: n < buffer.length,
    cwd: options.cwd,
  });
  const target = dst ??
    join(dirname(src), sessionFileName(header.timestamp, header.id));
  const head = _concat(
    marshalTitleSlot(slot),
    _encoder.encode(`${JSON.stringify(header.record)}\n`),
  );
  const first = buffer.subarray(header.entriesOffset, n);
  const bytes = await _writeFork(src, target, options.sync === true, {
    head,
    first,
    more: n === buffer.length,
    source,
    buffer,
  });
  return { path: target, id: header.id, parentSession: header.parent, bytes };
}

/** The fork's header, its fields, and where the source's entries start. */
interface _ForkHeader {
  record: Record<string, unknown>;
  id: string;
  timestamp: string;
  parent: string;
  entriesOffset: number;
}

/** The fork's slot and header from the source's first bytes. */
function _forkPrefix(
  src: string,
  bytes: Uint8Array,
  label: string | undefined,
  options: { eof: boolean; cwd: string | undefined },
): { slot: TitleSlot; header: _ForkHeader } {
  const prefix = _parsePrefix(bytes);
  if ("reason" in prefix) {
    const { reason, line, offset } = prefix;
    throw new SessionSyntaxError(reason, { path: src, line, offset });
  }
  if (!prefix.headerTerminated && !options.eof) {
    throw new SessionSyntaxError(
      `no complete header within the first ${bytes.length} bytes`,
      { path: src, line: prefix.slot === undefined ? 1 : 2, offset: 0 },
    );
  }
  const source = prefix.header;
  const timestamp = new Date().toISOString();
  const id = uuidv7();
  // Assigning known keys keeps their place; parentSession is added at the end.
  const record: Record<string, unknown> = { ...source };
  record.id = id;
  record.timestamp = timestamp;
  record.parentSession = source.id;
  if (options.cwd !== undefined) record.cwd = options.cwd;
  if (label !== undefined) {
    if (Object.hasOwn(record, "title")) record.title = label;
    if (Object.hasOwn(record, "titleSource")) record.titleSource = "auto";
  }
  const headerTitle = typeof source.title === "string" ? source.title : "";
  const title = label ?? prefix.slot?.title ?? headerTitle;
  const slot: TitleSlot = cleanTitle(title) === ""
    ? { title: "", updatedAt: timestamp }
    : { title, source: "auto", updatedAt: timestamp };
  const header = {
    record,
    id,
    timestamp,
    parent: source.id,
    entriesOffset: prefix.entriesOffset,
  };
  return { slot, header };
}

/** What {@linkcode _writeFork} copies: the new head, then the source's rest. */
interface _ForkBody {
  /** The fork's slot and header. */
  head: Uint8Array;
  /** The source's entry bytes already in `buffer`. */
  first: Uint8Array;
  /** Whether the source may hold more bytes than were read. */
  more: boolean;
  source: Pick<_FsHandle, "read">;
  buffer: Uint8Array;
}

/** Writes the fork to a temp file, then gives it its name; returns its size. */
async function _writeFork(
  src: string,
  target: string,
  sync: boolean,
  body: _ForkBody,
): Promise<number> {
  const fs = _fs();
  const { temp, out: file } = await _createTemp(target);
  let bytes: number;
  let linked: boolean;
  try {
    try {
      if (!_IS_WINDOWS) await fs.chmod(temp, _FILE_MODE);
      bytes = await _copy(file, body);
      if (sync) await file.syncData();
    } finally {
      file.close();
    }
    linked = await _publish(src, temp, target);
  } catch (err) {
    await _removeAfterFailure(
      temp,
      err,
      `Cannot remove the temp file "${temp}" after a failed fork`,
    );
    throw _named(
      err,
      `Cannot fork ${JSON.stringify(src)} to ${JSON.stringify(target)}`,
    );
  }
  if (linked) {
    try {
      await fs.remove(temp);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(
        `Cannot remove the temp file "${temp}": ${why} (the fork is complete at "${target}")`,
        { cause: err },
      );
    }
  }
  if (sync) await _syncFolder(dirname(target));
  return bytes;
}

/** The head, then the source's entries through the one buffer, then a final "\n" if missing. */
async function _copy(file: _FsFile, body: _ForkBody): Promise<number> {
  const { source, buffer } = body;
  await _writeAll(file, body.head);
  let bytes = body.head.length;
  let chunk = body.first;
  let more = body.more;
  let last: number | undefined;
  for (;;) {
    if (chunk.length > 0) {
      await _writeAll(file, chunk);
      bytes += chunk.length;
      last = chunk[chunk.length - 1];
    }
    if (!more) break;
    const n = await _readFull(source, buffer);
    chunk = buffer.subarray(0, n);
    more = n === buffer.length;
  }
  if (last !== undefined && last !== _LF) {
    await _writeAll(file, new Uint8Array([_LF]));
    bytes++;
  }
  return bytes;
}

/**
 * Names the temp file `target` without replacing a file there: a hard link,
 * which fails on an existing name (the caller then removes the temp name).
 * Without hard links, a check and a rename.
 *
 * @returns Whether it linked (the temp name is still there).
 */
async function _publish(
  src: string,
  temp: string,
  target: string,
): Promise<boolean> {
  const fs = _fs();
  try {
    await fs.link(temp, target);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) _throwExists(src, target);
    // A filesystem without hard links (FAT, some network shares).
  }
  await _assertAbsent(src, target);
  await fs.rename(temp, target);
  return false;
}

async function _assertAbsent(src: string, dst: string): Promise<void> {
  try {
    await _fs().lstat(dst);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  _throwExists(src, dst);
}

function _throwExists(src: string, dst: string): never {
  throw new Deno.errors.AlreadyExists(
    `Cannot fork "${src}": "${dst}" already exists`,
  );
}

/** The cleaned label, or a TypeError for one that is empty once cleaned. */
function _label(label: string | undefined, src: string): string | undefined {
  if (label === undefined) return undefined;
  if (typeof label !== "string") {
    throw new TypeError(`Cannot fork "${src}": the label is not a string`);
  }
  const cleaned = cleanTitle(label);
  if (cleaned === "") {
    throw new TypeError(`Cannot fork "${src}": the label is empty`);
  }
  return cleaned;
}

function _isAbsolutePath(path: string): boolean {
  return typeof path === "string" &&
    (isAbsolute(path) || /^(?:[A-Za-z]:[\\/]|\\\\[^\\])/.test(path));
}

function _concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
