/**
 * `SessionWriter`: appends lines to a session file and rewrites its title
 * slot, under the cross-process lock omp takes for the same file, so the two
 * can write one session without losing each other's lines.
 *
 * The lock is omp's (`session-storage.ts`, `FileSessionStorage`), in two
 * layers, both beside the session file:
 *
 * 1. an OS gate held by the process, which the kernel drops when it dies:
 *    here a non-blocking exclusive `flock` on `.<basename>.lock.os`, polled
 *    every 2 ms; the file is never removed. omp takes the same `flock` on
 *    macOS and the BSDs, but on Linux and Windows it binds a kernel name
 *    instead (on Linux an abstract `AF_UNIX` datagram socket
 *    `@omp-file-lock-<hash>`), which stable Deno cannot bind. There the gate
 *    orders only this library's writers, and the lock file below orders them
 *    against omp: omp keeps that layer for peers that do not share its gate.
 * 2. a lock file `.<basename>.lock`, made with an exclusive create (mode
 *    0600), holding `<pid>:<epochMs>\n`, read back to check the claim held,
 *    and removed when the work is done. A lock file whose pid is dead, or
 *    whose content is not a record and that is older than 500 ms, is stale:
 *    it is read again, then removed and claimed.
 *
 * Writers in this process queue for the lock in order, before both layers.
 * The whole wait, queue and both layers together, gives up after
 * {@linkcode SessionWriterOptions.lockTimeoutMs} (omp: 500 ms per layer). The
 * lock is taken by every append, slot rewrite, create and
 * {@linkcode rewriteWithSlot}. (omp's own in-place slot rewrite takes no
 * lock.)
 *
 * @module
 */

import { dirname } from "node:path";
import { _fs, type _FsHandle, _IS_WINDOWS, _writeAll } from "../fs/_seam.ts";
import {
  _endsTorn,
  _FILE_MODE,
  _makeFolders,
  _named,
  _NEWLINE,
  _quote,
  _readUpTo,
  _removeAfter,
  _replaceWithSlot,
  _restoreSlot,
  _rollBack,
  _sameFile,
  _syncFolder,
  _withNewline,
} from "./_file_ops.ts";
import { _LOCK_WAIT_MS, _lockFor, _withLock } from "./_lock.ts";
import { TITLE_SLOT_BYTES } from "../format/title_slot.ts";

/** Options for {@linkcode SessionWriter} and {@linkcode rewriteWithSlot}. */
export interface SessionWriterOptions {
  /**
   * Flush the data to disk (`syncData`) after every append and every slot
   * rewrite, before the call returns. Default `false`, as omp, which never
   * fsyncs: a process crash then loses nothing that was written (each call
   * hands its bytes to the kernel before returning), but an operating-system
   * crash or a power cut can lose the last lines, or leave the file ending in
   * a torn line, which readers skip and the next append closes with `"\n"`.
   */
  sync?: boolean;
  /**
   * How long to wait for another writer's lock before failing, in
   * milliseconds. Default 500, omp's `SESSION_PUBLISH_LOCK_WAIT_MS`.
   */
  lockTimeoutMs?: number;
}

const _encoder = new TextEncoder();

/**
 * An open session file that this process appends to. Every append and slot
 * rewrite takes omp's cross-process lock (see the module doc), so omp and
 * other writers can share the file.
 *
 * Lines are written whole: a batch is one write call (looping on short
 * writes), and a write that fails is cut back to the old size. After such a
 * failure the writer is failed: that call throws the error, and every later
 * call throws an error whose `cause` is it. Failing to get the lock writes
 * nothing and does not fail the writer (omp's writer does fail then).
 *
 * @example Creating a session file and appending to it
 * ```ts
 * import { marshalTitleSlot, SessionWriter } from "@xdev/session";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * try {
 *   const path = `${dir}/s.jsonl`;
 *   const slot = marshalTitleSlot({ title: "", updatedAt: "2026-10-01T09:00:00.000Z" });
 *   const header = new TextEncoder().encode('{"type":"session","version":3}\n');
 *   {
 *     await using writer = await SessionWriter.create(path, new Uint8Array([...slot, ...header]));
 *     await writer.append(['{"type":"label","id":"0a1b2c3d"}']);
 *   }
 *   const text = await Deno.readTextFile(path);
 *   assert.ok(text.endsWith('{"type":"label","id":"0a1b2c3d"}\n'));
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export class SessionWriter implements AsyncDisposable {
  readonly #path: string;
  readonly #sync: boolean;
  readonly #lockTimeoutMs: number;
  #file: _FsHandle;
  #size: number;
  #tornTail: boolean;
  #error: Error | undefined;
  #closed = false;
  /** The last queued operation; operations on one writer run one at a time. */
  #tail: Promise<void> = Promise.resolve();

  private constructor(
    path: string,
    file: _FsHandle,
    size: number,
    tornTail: boolean,
    settings: _Settings,
  ) {
    this.#path = path;
    this.#file = file;
    this.#size = size;
    this.#tornTail = tornTail;
    this.#sync = settings.sync;
    this.#lockTimeoutMs = settings.lockTimeoutMs;
  }

  /**
   * Opens an existing session file for appending. Reads its last byte: when
   * the file does not end in `"\n"` (a torn last line), the next append
   * starts with `"\n"`, so the torn line stays alone and nothing new is lost.
   * (omp does not check, and glues its next line to the torn one.)
   *
   * @example Appending to a file whose last line is torn
   * ```ts
   * import { SessionWriter } from "@xdev/session";
   * import assert from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   const path = `${dir}/s.jsonl`;
   *   await Deno.writeTextFile(path, '{"a":1}\n{"b":');
   *   await using writer = await SessionWriter.open(path);
   *   await writer.append(['{"c":3}']);
   *   assert.equal(await Deno.readTextFile(path), '{"a":1}\n{"b":\n{"c":3}\n');
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   *
   * @param path The session file.
   * @param options Durability and lock wait.
   * @returns A writer holding the file open until {@linkcode SessionWriter.close}.
   * @throws {TypeError} When `path` is not a non-empty string or an option has the wrong type.
   * @throws {RangeError} When `lockTimeoutMs` is negative or not finite.
   * @throws {Deno.errors.NotFound} When the file does not exist.
   */
  static async open(
    path: string,
    options: SessionWriterOptions = {},
  ): Promise<SessionWriter> {
    const settings = _settings(path, options, "open");
    const file = await _fs().openHandle(path, { read: true, append: true });
    try {
      const info = await file.stat();
      if (!info.isFile) {
        throw new Error(`Cannot open ${_quote(path)}: not a regular file`);
      }
      const torn = await _endsTorn(file, info.size);
      return new SessionWriter(path, file, info.size, torn, settings);
    } catch (err) {
      file.close();
      throw err;
    }
  }

  /**
   * Creates a new session file, which must not exist yet, with mode 0600
   * whatever the umask, and writes `body` to it under the lock. Missing parent
   * folders are made with mode 0700 (folders that exist are left as they
   * are). When the write fails the partial file is removed.
   *
   * @example Creating a file in a new folder
   * ```ts
   * import { marshalTitleSlot, SessionWriter } from "@xdev/session";
   * import assert from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   const slot = marshalTitleSlot({ title: "", updatedAt: "2026-10-01T09:00:00.000Z" });
   *   const body = new Uint8Array([...slot, ...new TextEncoder().encode("{}\n")]);
   *   await using writer = await SessionWriter.create(`${dir}/a/b/s.jsonl`, body);
   *   assert.equal(writer.size, body.length);
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   *
   * @param path The session file to make.
   * @param body The whole first content: title slot, header and any entries, each line ending in `"\n"`.
   * @param options Durability and lock wait.
   * @returns A writer holding the new file open.
   * @throws {TypeError} When `body` is not a non-empty `Uint8Array` ending in `"\n"`, or `path` or an option is malformed.
   * @throws {RangeError} When `lockTimeoutMs` is negative or not finite.
   * @throws {Deno.errors.AlreadyExists} When the file exists.
   * @throws {Deno.errors.TimedOut} When another writer holds the lock past `lockTimeoutMs`.
   */
  static async create(
    path: string,
    body: Uint8Array,
    options: SessionWriterOptions = {},
  ): Promise<SessionWriter> {
    const settings = _settings(path, options, "create");
    if (!(body instanceof Uint8Array)) {
      throw new TypeError(
        `Cannot create ${_quote(path)}: the body is not a Uint8Array`,
      );
    }
    if (body.length === 0 || body[body.length - 1] !== _NEWLINE) {
      throw new TypeError(
        `Cannot create ${_quote(path)}: the body does not end in "\\n"`,
      );
    }
    await _makeFolders(path, dirname(path));
    const lock = _lockFor(path, "create", settings.lockTimeoutMs);
    return await _withLock(lock, async () => {
      const fs = _fs();
      const file = await fs.openHandle(path, {
        read: true,
        append: true,
        createNew: true,
        mode: _FILE_MODE,
      });
      try {
        if (!_IS_WINDOWS) await fs.chmod(path, _FILE_MODE);
        await _writeAll(file, body);
        if (settings.sync) {
          await file.syncData();
          await _syncFolder(dirname(path));
        }
      } catch (err) {
        file.close();
        await _removeAfter(path, err, `Cannot create ${_quote(path)}`);
        throw _named(err, `Cannot create ${_quote(path)}`);
      }
      return new SessionWriter(path, file, body.length, false, settings);
    });
  }

  /**
   * Bytes in the file as far as this writer knows (updated by each append).
   *
   * @example The size grows with each append
   * ```ts
   * import { SessionWriter } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   await Deno.writeTextFile(`${dir}/s.jsonl`, "{}\n");
   *   await using writer = await SessionWriter.open(`${dir}/s.jsonl`);
   *   equal(writer.size, 3);
   *   await writer.append(['{"n":1}']);
   *   equal(writer.size, 3 + 8);
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   */
  get size(): number {
    return this.#size;
  }

  /**
   * The first write error, once the writer has failed; otherwise undefined.
   *
   * @example A healthy writer has no error
   * ```ts
   * import { SessionWriter } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   await Deno.writeTextFile(`${dir}/s.jsonl`, "{}\n");
   *   await using writer = await SessionWriter.open(`${dir}/s.jsonl`);
   *   await writer.append(['{"n":1}']);
   *   equal(writer.error, undefined);
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   */
  get error(): Error | undefined {
    return this.#error;
  }

  /**
   * Appends complete lines in one write call, under the lock. When another
   * writer replaced the file since (a rename over it), the path is opened
   * again first; when the file no longer ends in `"\n"`, a `"\n"` goes first.
   * On a failed write the file is cut back to its old size and the writer
   * fails (see the class doc).
   *
   * @example Appending a batch
   * ```ts
   * import { SessionWriter } from "@xdev/session";
   * import assert from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   const path = `${dir}/s.jsonl`;
   *   await Deno.writeTextFile(path, "{}\n");
   *   await using writer = await SessionWriter.open(path);
   *   await writer.append(['{"n":1}', '{"n":2}']);
   *   assert.equal(await Deno.readTextFile(path), '{}\n{"n":1}\n{"n":2}\n');
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   *
   * @param lines The lines, each without its `"\n"`. An empty batch writes nothing.
   * @throws {TypeError} When `lines` is not an array of strings or a line contains `"\n"`.
   * @throws {Deno.errors.TimedOut} When another writer holds the lock past `lockTimeoutMs`.
   * @throws {Error} When the writer is closed or failed earlier, or the write fails.
   */
  async append(lines: readonly string[]): Promise<void> {
    const action = `Cannot append to ${_quote(this.#path)}`;
    const bytes = _encodeLines(lines, action);
    this.#checkOpen(action);
    if (bytes === undefined) return;
    const lock = _lockFor(this.#path, "append to", this.#lockTimeoutMs);
    await this.#serial(
      action,
      () => _withLock(lock, () => this.#appendLocked(bytes, action)),
    );
  }

  /**
   * Overwrites the 256-byte title slot at offset 0 in place, through a
   * handle that is not in append mode, under the lock. The file keeps its
   * size; nothing after byte 255 changes. Line 1 must already be exactly
   * {@linkcode TITLE_SLOT_BYTES} long; otherwise use
   * {@linkcode rewriteWithSlot}.
   *
   * @example Renaming a session in place
   * ```ts
   * import { marshalTitleSlot, SessionWriter } from "@xdev/session";
   * import assert from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   const at = "2026-10-01T09:00:00.000Z";
   *   const body = new Uint8Array([
   *     ...marshalTitleSlot({ title: "", updatedAt: at }),
   *     ...new TextEncoder().encode("{}\n"),
   *   ]);
   *   await using writer = await SessionWriter.create(`${dir}/s.jsonl`, body);
   *   await writer.rewriteSlot(marshalTitleSlot({ title: "Renamed", source: "manual", updatedAt: at }));
   *   assert.ok((await Deno.readTextFile(`${dir}/s.jsonl`)).includes('"title":"Renamed"'));
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   *
   * @param slot The new line 1: exactly {@linkcode TITLE_SLOT_BYTES} bytes, its only `"\n"` last.
   * @throws {TypeError} When `slot` is not a `Uint8Array`.
   * @throws {RangeError} When `slot` is not {@linkcode TITLE_SLOT_BYTES} bytes ending in its only `"\n"`.
   * @throws {Deno.errors.TimedOut} When another writer holds the lock past `lockTimeoutMs`.
   * @throws {Error} When line 1 of the file is not {@linkcode TITLE_SLOT_BYTES} long, the writer is closed or failed, or the write fails.
   */
  async rewriteSlot(slot: Uint8Array): Promise<void> {
    const action = `Cannot rewrite the title slot of ${_quote(this.#path)}`;
    _checkSlot(slot, action);
    this.#checkOpen(action);
    const lock = _lockFor(
      this.#path,
      "rewrite the title slot of",
      this.#lockTimeoutMs,
    );
    await this.#serial(
      action,
      () => _withLock(lock, () => this.#rewriteSlotLocked(slot, action)),
    );
  }

  /**
   * Closes the file after the calls already made have finished. Does not
   * throw the writer's error (that was thrown by the call that failed).
   * Calling it again does nothing.
   *
   * @example Appending after close is refused
   * ```ts
   * import { SessionWriter } from "@xdev/session";
   * import { rejects } from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   await Deno.writeTextFile(`${dir}/s.jsonl`, "{}\n");
   *   const writer = await SessionWriter.open(`${dir}/s.jsonl`);
   *   await writer.close();
   *   await writer.close();
   *   await rejects(writer.append(['{"n":1}']), /the writer is closed/);
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   */
  async close(): Promise<void> {
    if (this.#closed) return await this.#tail;
    this.#closed = true;
    await this.#tail;
    this.#file.close();
  }

  /**
   * Same as {@linkcode SessionWriter.close}, for `await using`.
   *
   * @example Closing at the end of a block
   * ```ts
   * import { SessionWriter } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   await Deno.writeTextFile(`${dir}/s.jsonl`, "{}\n");
   *   {
   *     await using writer = await SessionWriter.open(`${dir}/s.jsonl`);
   *     await writer.append(['{"n":1}']);
   *   }
   *   equal(await Deno.readTextFile(`${dir}/s.jsonl`), '{}\n{"n":1}\n');
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #checkOpen(action: string): void {
    if (this.#closed) throw new Error(`${action}: the writer is closed`);
    this.#checkNotFailed(action);
  }

  #checkNotFailed(action: string): void {
    if (this.#error === undefined) return;
    // The first error's own words, without the action and file it named.
    const root = this.#error.cause instanceof Error &&
        !(this.#error instanceof AggregateError)
      ? this.#error.cause
      : this.#error;
    throw new Error(
      `${action}: the writer failed earlier: ${root.message}`,
      { cause: this.#error },
    );
  }

  /** Runs `op` after every operation queued before it on this writer. */
  #serial(action: string, op: () => Promise<void>): Promise<void> {
    const run = this.#tail.then(() => {
      this.#checkNotFailed(action);
      return op();
    });
    // The chain only orders operations; each outcome reaches its caller through `run`.
    this.#tail = run.then(_ignore, _ignore);
    return run;
  }

  /**
   * Fails the writer for good. `kept` is what the failing call throws (the
   * error named with the action and the file, or both errors when the undo
   * failed too); later calls give it as their cause.
   */
  #fail(kept: unknown): unknown {
    if (this.#error === undefined) this.#error = _asError(kept);
    return kept;
  }

  async #appendLocked(bytes: Uint8Array, action: string): Promise<void> {
    const old = (await this.#reopenIfReplaced()).size;
    const file = this.#file;
    if (old !== this.#size) this.#tornTail = await _endsTorn(file, old);
    const payload = this.#tornTail ? _withNewline(bytes) : bytes;
    try {
      await _writeAll(file, payload);
      if (this.#sync) await file.syncData();
    } catch (err) {
      throw this.#fail(await _rollBack(file, old, err, action));
    }
    this.#size = old + payload.length;
    this.#tornTail = false;
  }

  /**
   * omp's `#reopenIfReplaced`: a rename over the path orphans our handle.
   * Returns the metadata of the handle in use.
   */
  async #reopenIfReplaced(): Promise<Deno.FileInfo> {
    const mine = this.#file.statSync?.() ?? await this.#file.stat();
    let live: Deno.FileInfo;
    try {
      live = _fs().statSync(this.#path); // one tiny call: sync is ~10x cheaper
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return mine; // omp keeps its handle too
      throw err;
    }
    if (_sameFile(live, mine)) return mine;
    const next = await _fs().openHandle(this.#path, {
      read: true,
      append: true,
    });
    this.#file.close();
    this.#file = next;
    this.#size = -1; // unknown: read the new file's tail
    return await next.stat();
  }

  async #rewriteSlotLocked(slot: Uint8Array, action: string): Promise<void> {
    using file = await _fs().openHandle(this.#path, {
      read: true,
      write: true,
    });
    const old = await _readUpTo(file, TITLE_SLOT_BYTES);
    if (
      old.length < TITLE_SLOT_BYTES ||
      old.indexOf(_NEWLINE) !== TITLE_SLOT_BYTES - 1
    ) {
      throw new Error(
        `${action}: line 1 is not ${TITLE_SLOT_BYTES} bytes; rewrite the whole file instead`,
      );
    }
    try {
      await file.seek(0, Deno.SeekMode.Start);
      await _writeAll(file, slot);
      if (this.#sync) await file.syncData();
    } catch (err) {
      throw this.#fail(await _restoreSlot(file, old, err, action));
    }
  }
}

/**
 * Atomically replaces a session file whose line 1 is not a 256-byte title
 * slot with one that has `slot` as line 1. With `dropFirstLine` the old line
 * 1 (a malformed title record) is replaced; without it (a legacy slot-less
 * file) every old byte is kept after the slot. The new content goes to
 * `.<basename>.<random>.tmp` (mode 0600) in the same folder, copied with a
 * 1 MiB buffer whatever the file size, and is renamed over the file, all under
 * the lock. Fails, leaving the file as it was, when the file changed during
 * the copy. An open {@linkcode SessionWriter} on the path notices the new file
 * on its next append.
 *
 * @example Giving a slot-less file its title slot
 * ```ts
 * import { marshalTitleSlot, rewriteWithSlot, TITLE_SLOT_BYTES } from "@xdev/session";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * try {
 *   const path = `${dir}/s.jsonl`;
 *   await Deno.writeTextFile(path, '{"type":"session","version":3}\n');
 *   const slot = marshalTitleSlot({ title: "Hi", updatedAt: "2026-10-01T09:00:00.000Z" });
 *   await rewriteWithSlot(path, slot, { dropFirstLine: false });
 *   const text = await Deno.readTextFile(path);
 *   assert.equal(text.indexOf("\n"), TITLE_SLOT_BYTES - 1);
 *   assert.ok(text.endsWith('{"type":"session","version":3}\n'));
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 *
 * @param path The session file.
 * @param slot The new line 1: exactly {@linkcode TITLE_SLOT_BYTES} bytes, its only `"\n"` last.
 * @param options `dropFirstLine`: whether the old line 1 is a (malformed) title record to replace; plus durability and lock wait.
 * @throws {TypeError} When `slot` is not a `Uint8Array`, `dropFirstLine` is not a boolean, or an option is malformed.
 * @throws {RangeError} When `slot` is not {@linkcode TITLE_SLOT_BYTES} bytes ending in its only `"\n"`, or `lockTimeoutMs` is negative.
 * @throws {Deno.errors.TimedOut} When another writer holds the lock past `lockTimeoutMs`.
 * @throws {Error} When line 1 does (or, with `dropFirstLine`, does not) start as a title record, or the file changed during the copy.
 */
export async function rewriteWithSlot(
  path: string,
  slot: Uint8Array,
  options: { dropFirstLine: boolean } & SessionWriterOptions,
): Promise<void> {
  const settings = _settings(path, options ?? {}, "rewrite");
  const action = `Cannot rewrite ${_quote(path)}`;
  if (typeof options?.dropFirstLine !== "boolean") {
    throw new TypeError(`${action}: dropFirstLine is not a boolean`);
  }
  _checkSlot(slot, action);
  const lock = _lockFor(path, "rewrite", settings.lockTimeoutMs);
  await _withLock(lock, () => {
    const { sync } = settings;
    const { dropFirstLine } = options;
    return _replaceWithSlot(path, slot, { dropFirstLine, sync }, action);
  });
}

/** Validated options. */
interface _Settings {
  sync: boolean;
  lockTimeoutMs: number;
}

function _settings(
  path: unknown,
  options: SessionWriterOptions,
  verb: string,
): _Settings {
  if (typeof path !== "string" || path === "") {
    throw new TypeError(
      `Cannot ${verb} session file: the path is not a non-empty string`,
    );
  }
  const { sync = false, lockTimeoutMs = _LOCK_WAIT_MS } = options;
  if (typeof sync !== "boolean") {
    throw new TypeError(
      `Cannot ${verb} ${_quote(path)}: sync is not a boolean`,
    );
  }
  if (typeof lockTimeoutMs !== "number") {
    throw new TypeError(
      `Cannot ${verb} ${_quote(path)}: lockTimeoutMs is not a number`,
    );
  }
  if (!Number.isFinite(lockTimeoutMs) || lockTimeoutMs < 0) {
    throw new RangeError(
      `Cannot ${verb} ${
        _quote(path)
      }: lockTimeoutMs ${lockTimeoutMs} is not a finite number ≥ 0`,
    );
  }
  return { sync, lockTimeoutMs };
}

/** Encodes a batch as `line\n…`; undefined for an empty batch. */
function _encodeLines(
  lines: readonly string[],
  action: string,
): Uint8Array | undefined {
  if (!Array.isArray(lines)) {
    throw new TypeError(`${action}: lines is not an array`);
  }
  for (const [i, line] of lines.entries()) {
    if (typeof line !== "string") {
      throw new TypeError(`${action}: line ${i} of the batch is not a string`);
    }
    if (line.includes("\n")) {
      throw new TypeError(`${action}: line ${i} of the batch contains "\\n"`);
    }
  }
  if (lines.length === 0) return undefined;
  return _encoder.encode(`${lines.join("\n")}\n`);
}

function _checkSlot(slot: Uint8Array, action: string): void {
  if (!(slot instanceof Uint8Array)) {
    throw new TypeError(`${action}: the slot is not a Uint8Array`);
  }
  if (
    slot.length !== TITLE_SLOT_BYTES ||
    slot.indexOf(_NEWLINE) !== TITLE_SLOT_BYTES - 1
  ) {
    throw new RangeError(
      `${action}: the slot is not ${TITLE_SLOT_BYTES} bytes ending in its only "\\n" (got ${slot.length} bytes)`,
    );
  }
}

function _ignore(): void {}

function _asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
