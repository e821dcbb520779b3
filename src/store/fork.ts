/**
 * Forking a session: a new file with a new id whose entries are the source's,
 * byte for byte, copied in bounded memory.
 *
 * @module
 */

import { dirname, isAbsolute, join } from "node:path";
import type { SessionHeader } from "../format/header.ts";
import { encodeHead } from "../format/_head.ts";
import { cleanTitle, type TitleSlot } from "../format/title_slot.ts";
import { uuidv7 } from "../format/uuid.ts";
import { quote } from "../fs/_errors.ts";
import { readFull } from "../fs/_read.ts";
import { type FsFile, type FsHandle, seam, writeAll } from "../fs/_seam.ts";
import { parseHead } from "../read/_head.ts";
import { writeAtomically } from "../write/_atomic_file.ts";
import { sessionFileName } from "./places.ts";

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
  using source = await seam().openHandle(src, { read: true });
  const buffer = new Uint8Array(FORK_BUFFER_BYTES);
  const n = await readFull(source, buffer);
  const head = parseHead(buffer.subarray(0, n), {
    name: src,
    complete: n < buffer.length,
  });
  const fork = _forkHead(head.header, head.slot, label, options.cwd);
  const target = dst ??
    join(dirname(src), sessionFileName(fork.timestamp, fork.id));
  let bytes = 0;
  await writeAtomically(target, async (out) => {
    bytes = await _copy(out, {
      head: encodeHead(fork.slot, fork.record),
      first: buffer.subarray(head.bodyStart, n),
      more: n === buffer.length,
      source,
      buffer,
    });
  }, {
    action: `Cannot fork ${quote(src)} to ${quote(target)}`,
    sync: options.sync === true,
    noClobber: true,
  });
  return { path: target, id: fork.id, parentSession: head.header.id, bytes };
}

/** The fork's head: a new id and time, the source as parent, the label as title. */
function _forkHead(
  source: SessionHeader,
  sourceSlot: TitleSlot | undefined,
  label: string | undefined,
  cwd: string | undefined,
): {
  slot: TitleSlot;
  record: Record<string, unknown>;
  id: string;
  timestamp: string;
} {
  const timestamp = new Date().toISOString();
  const id = uuidv7();
  // Assigning known keys keeps their place; parentSession is added at the end.
  const record: Record<string, unknown> = { ...source };
  record.id = id;
  record.timestamp = timestamp;
  record.parentSession = source.id;
  if (cwd !== undefined) record.cwd = cwd;
  if (label !== undefined) {
    if (Object.hasOwn(record, "title")) record.title = label;
    if (Object.hasOwn(record, "titleSource")) record.titleSource = "auto";
  }
  const headerTitle = typeof source.title === "string" ? source.title : "";
  const title = label ?? sourceSlot?.title ?? headerTitle;
  const slot: TitleSlot = cleanTitle(title) === ""
    ? { title: "", updatedAt: timestamp }
    : { title, source: "auto", updatedAt: timestamp };
  return { slot, record, id, timestamp };
}

/** What {@linkcode _copy} writes: the new head, then the source's rest. */
interface _ForkBody {
  /** The fork's slot and header. */
  head: Uint8Array;
  /** The source's entry bytes already in `buffer`. */
  first: Uint8Array;
  /** Whether the source may hold more bytes than were read. */
  more: boolean;
  source: Pick<FsHandle, "read">;
  buffer: Uint8Array;
}

/** The head, then the source's entries through the one buffer, then a final "\n" if missing. */
async function _copy(file: FsFile, body: _ForkBody): Promise<number> {
  const { source, buffer } = body;
  await writeAll(file, body.head);
  let bytes = body.head.length;
  let chunk = body.first;
  let more = body.more;
  let last: number | undefined;
  for (;;) {
    if (chunk.length > 0) {
      await writeAll(file, chunk);
      bytes += chunk.length;
      last = chunk[chunk.length - 1];
    }
    if (!more) break;
    const n = await readFull(source, buffer);
    chunk = buffer.subarray(0, n);
    more = n === buffer.length;
  }
  if (last !== undefined && last !== _LF) {
    await writeAll(file, new Uint8Array([_LF]));
    bytes++;
  }
  return bytes;
}

async function _assertAbsent(src: string, dst: string): Promise<void> {
  try {
    await seam().lstat(dst);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  throw new Deno.errors.AlreadyExists(
    `Cannot fork ${quote(src)}: ${quote(dst)} already exists`,
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
