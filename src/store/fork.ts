/**
 * Forking a session: a new file with a new id whose entries are the source's
 * as they stood when the fork began (whole lines only), copied byte for byte
 * in bounded memory, or migrated to version 3 when the source is older.
 *
 * @module
 */

import { dirname, isAbsolute, join } from "node:path";
import { type FileInfo, fs, isNotFound, lstatOrUndefined } from "../_fs.ts";
import { named, quote } from "../format/errors.ts";
import {
  encodeHead,
  headerVersion,
  SESSION_VERSION,
  type SessionHeader,
} from "../format/header.ts";
import type { LoadIssue } from "../format/issues.ts";
import { cleanTitle, type TitleSlot } from "../format/title_slot.ts";
import { uuidv7 } from "../format/uuid.ts";
import { openRegular, readFull } from "../read/_open.ts";
import { IssueLog } from "../read/_decode.ts";
import { parseHead } from "../read/_head.ts";
import { writeAtomically } from "../write/_atomic_file.ts";
import { writeAll } from "../write/_files.ts";
import {
  copyMigrated,
  copyRanges,
  copyWholeLines,
  FORK_BUFFER_BYTES,
  type ForkSink,
  type ForkSource,
  writeEntries,
} from "./_fork_body.ts";
import { labelsAfterPath } from "./_fork_labels.ts";
import { forkPath } from "./_fork_path.ts";
import { sessionFileName } from "./places.ts";

/** Options for {@linkcode forkSession}. */
export interface ForkSessionOptions {
  /** Title of the fork (cleaned; source auto). Default: the source's title. */
  label?: string;
  /** Working directory recorded in the fork's header. Default: the source's. */
  cwd?: string;
  /** syncData before the rename. Default false. */
  sync?: boolean;
  /**
   * Fork at this entry (pi's `createBranchedSession`): the fork holds the
   * path from the root to it and nothing else, and its leaf is that entry.
   * Its lines are the source's, byte for byte (a version 1 or 2 source's
   * migrated, as without `at`; the entry named by the id `Session.open`
   * mints). The labels in effect on the path's entries are kept: a label
   * set off the path is written again after the path, followed by a branch
   * marker back to the entry (DESIGN §3.6). A first pass over the source
   * finds the path, holding each entry's envelope only.
   */
  at?: string;
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
  /**
   * Whether the source was a version 1 or 2 session (pi's, older omp's)
   * whose entries were migrated into a version 3 fork.
   */
  migrated: boolean;
  /**
   * What the fork read around in the source: a last line cut short, left
   * out (`torn-line`), or lacking only its "\n", given one
   * (`missing-newline`); a damaged title slot; for a migrated source, every
   * line the migration skipped. Empty for a sound source.
   */
  issues: LoadIssue[];
}

/**
 * Fork a session file: a new UUIDv7 id and timestamp, header
 * `parentSession` = the source's header id, every other header field kept
 * (unknown ones too), a fresh 256-byte title slot (the source's title, or
 * `options.label`; source `auto`: a fork is a user session, never a
 * subagent's), then the source's entries.
 *
 * The fork copies the source as it stood at one moment: its size is taken
 * once, at the start, and only whole lines up to then are copied, so a
 * session another process is appending to forks cleanly. A last line
 * without its "\n" is copied (and given one) when it parses, and otherwise
 * left out; `issues` says so. A version 3 (or later) source's lines are
 * copied byte for byte through one 1 MiB buffer (the header must end within
 * the source's first 1 MiB), so a 1 GB source forks without being read into
 * memory. A version 1 or 2 source (pi's, older omp's), which cannot be
 * appended to, forks to a version 3 file: its entries migrated as
 * `Session.open` migrates them in memory (ids minted in file order, parent
 * links, compactions' kept entry, `hookMessage` as `custom`), streamed a
 * line at a time; the fork then takes appends and renames, here and in omp.
 *
 * The fork is written to `.<name>.<random>.tmp` (mode 0600) in the
 * destination folder, then hard-linked to its name, which fails rather than
 * replace an existing file, and the temp name removed (where the filesystem
 * has no hard links, the name is checked and the temp file renamed). Blobs
 * are shared by reference: nothing to copy. A source without a title slot
 * (legacy, header first) forks too. With a label, a `title`/`titleSource`
 * the header already has is set to match.
 *
 * @example Forking a session
 * ```ts
 * import { forkSession, Session } from "@xdev/session";
 * import assert from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using source = await Session.create({ cwd: "/work", dataDir });
 *   await source.appendMessage({ role: "user", content: "Start" });
 *   await source.ensureOnDisk();
 *   await source.setTitle("Start");
 *   const fork = await forkSession(source.path!, undefined, { label: "Try another way" });
 *   assert.equal(fork.parentSession, source.header.id);
 *   assert.deepEqual(fork.issues, []);
 *   await using session = await Session.open(fork.path);
 *   assert.equal(session.title, "Try another way");
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 *
 * @example Continuing a pi session: fork it, then resume the fork
 * ```ts
 * import { forkSession, Session } from "@xdev/session";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const src = `${dir}/pi.jsonl`;
 * await Deno.writeTextFile(src, [
 *   { type: "session", id: "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
 *     timestamp: "2025-11-20T23:33:50.805Z", cwd: "/work" },
 *   { type: "message", timestamp: "2025-11-20T23:33:51.000Z",
 *     message: { role: "user", content: [{ type: "text", text: "Hi" }] } },
 * ].map((l) => JSON.stringify(l) + "\n").join(""));
 * const fork = await forkSession(src);
 * assert.equal(fork.migrated, true);
 * await using session = await Session.open(fork.path);
 * assert.equal(session.header.version, 3);
 * await session.appendMessage({ role: "user", content: "Go on" });
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @param src The session file to fork.
 * @param dst The new file, which must not exist, in a folder that does.
 * Default: the source's folder, named by `sessionFileName(timestamp, id)` of
 * the fork.
 * @param options The fork's title and cwd; whether to sync.
 * @returns Where the fork is, its id, its parent's id, its size, whether it
 * was migrated, and what was read around.
 * @throws {TypeError} When `label` is empty once cleaned, or `cwd` is not an
 * absolute path.
 * @throws {SessionSyntaxError} When the source's header is missing or
 * malformed, or does not end within its first 1 MiB.
 * @throws {Error} `EEXIST` (Deno's `AlreadyExists`) when `dst` exists.
 * @throws {Error} `ENOENT` (`NotFound`) when the source or the destination
 * folder does not exist; `ENOTDIR` (`NotADirectory`) when that folder is a
 * file.
 * @throws {Error} When the source is not a regular file (a FIFO, a device, a
 * folder), or it shrinks while it is copied.
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
  if (dst !== undefined) {
    await _assertFolder(src, dst);
    await _assertAbsent(src, dst);
  }
  const action = `Cannot fork ${quote(src)}`;
  const file = await openRegular(src, action);
  try {
    const size = (await file.stat()).size; // the moment the fork copies
    const first = new Uint8Array(Math.min(size, FORK_BUFFER_BYTES));
    const n = await readFull(file, first, 0);
    const headLog = new IssueLog();
    const head = parseHead(first.subarray(0, n), {
      name: src,
      complete: n >= size,
      log: headLog,
    });
    const migrated = headerVersion(head.header) < SESSION_VERSION;
    const fork = _forkHead(
      head.header,
      head.slot,
      label,
      options.cwd,
      migrated,
    );
    const target = dst ??
      join(dirname(src), sessionFileName(fork.timestamp, fork.id));
    // The migration reads the head again, and reports what it finds there.
    const log = migrated ? new IssueLog() : headLog;
    const from: ForkSource = { file, name: src, size, action, log };
    // A fork at an entry: a first pass finds its path (and the labels in
    // effect on it); its own reading of the file is the damage reported,
    // unless the migration reads it again.
    const at = options.at === undefined
      ? undefined
      : await forkPath(from, options.at);
    const issues = at !== undefined && !migrated ? at.issues : log;
    let bytes = 0;
    await writeAtomically(target, async (out) => {
      const write: ForkSink = (b) => writeAll(out, b);
      const forkHead = encodeHead(fork.slot, fork.record);
      await write(forkHead);
      bytes = forkHead.length +
        (migrated
          ? await copyMigrated(from, write, at?.ids)
          : at !== undefined
          ? await copyRanges(from, at.ranges, write)
          : await copyWholeLines(from, head.bodyStart, head.lines, write));
      if (at !== undefined) {
        const labels = labelsAfterPath(at.path, at.all, fork.timestamp);
        bytes += await writeEntries(labels, write);
      }
    }, {
      action: `Cannot fork ${quote(src)} to ${quote(target)}`,
      sync: options.sync === true,
      noClobber: true,
    });
    return {
      path: target,
      id: fork.id,
      parentSession: head.header.id,
      bytes,
      migrated,
      issues: issues.issues,
    };
  } finally {
    await file?.[Symbol.asyncDispose]();
  }
}

/** The destination's folder exists and is a folder, or a clear error. */
async function _assertFolder(src: string, dst: string): Promise<void> {
  const folder = dirname(dst);
  const action = `Cannot fork ${quote(src)} to ${quote(dst)}`;
  let info: FileInfo;
  try {
    info = await fs().stat(folder);
  } catch (err) {
    if (!isNotFound(err)) throw named(err, action);
    const why = `the folder ${quote(folder)} does not exist`;
    throw fs().error("ENOENT", `${action}: ${why}`, { cause: err });
  }
  if (info.kind !== "directory") {
    throw fs().error("ENOTDIR", `${action}: ${quote(folder)} is not a folder`);
  }
}

/** The fork's head: a new id and time, the source as parent, the label as title. */
function _forkHead(
  source: SessionHeader,
  sourceSlot: TitleSlot | undefined,
  label: string | undefined,
  cwd: string | undefined,
  migrated: boolean,
): {
  slot: TitleSlot;
  record: Record<string, unknown>;
  id: string;
  timestamp: string;
} {
  const timestamp = new Date().toISOString();
  const id = uuidv7();
  // Assigning known keys keeps their place; parentSession is added at the
  // end. A migrated fork is version 3, its version second as we write it.
  const record: Record<string, unknown> = migrated
    ? { type: source.type, version: SESSION_VERSION }
    : {};
  Object.assign(record, source);
  if (migrated) record.version = SESSION_VERSION;
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

/** Nothing is at `dst` (not even a dangling link), or a clear error. */
async function _assertAbsent(src: string, dst: string): Promise<void> {
  if (await lstatOrUndefined(dst) === undefined) return;
  throw fs().error(
    "EEXIST",
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
