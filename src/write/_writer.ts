/**
 * `SessionWriter`: appends lines to a session file and renames it (an entry
 * and the title slot, whole or not at all), under the cross-process lock omp
 * takes for the same file, so the two can write one session without losing
 * each other's lines.
 *
 * The lock every write takes is described in `_lock.ts`; the open file and
 * what the writer knows of it in `_append_file.ts`; how a rename writes
 * line 1 in `_slot_rewrite.ts`.
 *
 * @module
 */

import { dirname } from "node:path";
import { named, quote } from "../fs/_errors.ts";
import { type FsHandle, writeAll } from "../fs/_seam.ts";
import { TITLE_SLOT_BYTES } from "../format/title_slot.ts";
import { AppendFile } from "./_append_file.ts";
import { makeFolders } from "./_folders.ts";
import { encodeLines, NEWLINE } from "./_lines.ts";
import { Gate, lockFor, withLock } from "./_lock.ts";
import {
  checkSlot,
  type SessionWriterOptions,
  type WriterSettings,
  writerSettings,
} from "./_options.ts";
import { readHead, rewriteWithSlot, slotInPlace } from "./_slot_rewrite.ts";
import { rollBack, undoRename, withNewline } from "./_undo.ts";

export type { SessionWriterOptions } from "./_options.ts";

/**
 * An open session file that this process appends to. Every append and
 * rename takes omp's cross-process lock (see the module doc), so omp and
 * other writers can share the file. The writer keeps the lock's OS gate
 * open between its calls, and closes it with the file.
 *
 * Lines are written whole: a batch is one write call (looping on short
 * writes), and a write that fails is cut back to the old size. After such a
 * failure the writer is failed: that call throws the error, and every later
 * call throws an error whose `cause` is it. Failing to get the lock writes
 * nothing and does not fail the writer (omp's writer does fail then).
 *
 * @example Creating a session file and appending to it
 * ```ts
 * import { marshalTitleSlot } from "@xdev/session";
 * import { SessionWriter } from "./_writer.ts";
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
  /** The OS gate, kept open between writes. */
  readonly #gate: Gate;
  readonly #file: AppendFile;
  #error: Error | undefined;
  #closed = false;
  /** The last queued operation; operations on one writer run one at a time. */
  #tail: Promise<void> = Promise.resolve();

  private constructor(file: AppendFile, settings: WriterSettings, gate: Gate) {
    this.#path = file.path;
    this.#file = file;
    this.#sync = settings.sync;
    this.#lockTimeoutMs = settings.lockTimeoutMs;
    this.#gate = gate;
  }

  /**
   * Opens an existing session file for appending. Reads its last byte: when
   * the file does not end in `"\n"` (a torn last line), the next append
   * starts with `"\n"`, so the torn line stays alone and nothing new is lost.
   * (omp does not check, and glues its next line to the torn one.)
   *
   * @example Appending to a file whose last line is torn
   * ```ts
   * import { SessionWriter } from "./_writer.ts";
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
    const settings = writerSettings(path, options, "open");
    const file = await AppendFile.open(path);
    return new SessionWriter(file, settings, new Gate(lockFor(path).file));
  }

  /**
   * Creates a new session file, which must not exist yet, with mode 0600
   * whatever the umask, and writes `body` to it under the lock. Missing parent
   * folders are made with mode 0700 (folders that exist are left as they
   * are). When the write fails the partial file is removed. (The class
   * example creates one.)
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
    const settings = writerSettings(path, options, "create");
    if (!(body instanceof Uint8Array)) {
      throw new TypeError(
        `Cannot create ${quote(path)}: the body is not a Uint8Array`,
      );
    }
    if (body.length === 0 || body[body.length - 1] !== NEWLINE) {
      throw new TypeError(
        `Cannot create ${quote(path)}: the body does not end in "\\n"`,
      );
    }
    try {
      await makeFolders(path, dirname(path));
    } catch (err) {
      throw named(err, `Cannot create ${quote(path)}`);
    }
    const lock = lockFor(path, "create", settings.lockTimeoutMs);
    const gate = new Gate(lock.file);
    try {
      const file = await withLock(
        lock,
        () => AppendFile.create(path, body, settings.sync),
        gate,
      );
      return new SessionWriter(file, settings, gate);
    } catch (err) {
      gate.close();
      throw err;
    }
  }

  /**
   * Bytes in the file as far as this writer knows (updated by each append).
   */
  get size(): number {
    return this.#file.size;
  }

  /**
   * The first write error, once the writer has failed; otherwise undefined.
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
   * import { SessionWriter } from "./_writer.ts";
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
    const action = `Cannot append to ${quote(this.#path)}`;
    const bytes = encodeLines(lines, action);
    this.#checkOpen(action);
    if (bytes === undefined) return;
    await this.#locked("append to", action, async () => {
      await this.#write(bytes, await this.#file.current(), action);
    });
  }

  /**
   * Renames the session whole or not at all, under one lock: appends
   * `lines` (the `title_change` entry) and writes `slot` as line 1. What
   * line 1 holds is read from the disk under the lock:
   *
   * - a title record exactly 256 bytes wide, its only `"\n"` last: the
   *   lines are appended, then the slot is overwritten in place through a
   *   handle that is not in append mode (omp's order). When that fails, the
   *   old slot is put back and the file cut back to its old size, and the
   *   writer fails (as after a failed append);
   * - anything else (no slot, a malformed slot, a slot of another width, a
   *   CRLF slot, a byte order mark): the file is rewritten whole through a
   *   temp file holding the new slot, the content from the header on and the
   *   lines, then renamed over it (see `_slot_rewrite.ts`). When that fails
   *   the file is untouched and the writer goes on.
   *
   * @example Renaming a session in place
   * ```ts
   * import { marshalTitleSlot } from "@xdev/session";
   * import { SessionWriter } from "./_writer.ts";
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
   *   await writer.retitle(
   *     marshalTitleSlot({ title: "Renamed", source: "manual", updatedAt: at }),
   *     ['{"type":"title_change"}'],
   *   );
   *   const text = await Deno.readTextFile(`${dir}/s.jsonl`);
   *   assert.ok(text.includes('"title":"Renamed"'));
   *   assert.ok(text.endsWith('{}\n{"type":"title_change"}\n'));
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   *
   * @param slot The new line 1: exactly {@linkcode TITLE_SLOT_BYTES} bytes, its only `"\n"` last.
   * @param lines The lines to append with it, each without its `"\n"`.
   * @throws {TypeError} When `slot` is not a `Uint8Array` or a line is malformed.
   * @throws {RangeError} When `slot` is not {@linkcode TITLE_SLOT_BYTES} bytes ending in its only `"\n"`.
   * @throws {Deno.errors.TimedOut} When another writer holds the lock past `lockTimeoutMs`.
   * @throws {Error} When the writer is closed or failed, the file has no header where a reader looks, or a write fails.
   */
  async retitle(slot: Uint8Array, lines: readonly string[]): Promise<void> {
    const action = `Cannot rename ${quote(this.#path)}`;
    checkSlot(slot, action);
    const bytes = encodeLines(lines, action) ?? new Uint8Array();
    this.#checkOpen(action);
    await this.#locked("rename", action, async () => {
      const old = await this.#file.current();
      using file = await this.#file.openPositional(action);
      const head = await readHead(file);
      if (slotInPlace(head)) {
        await this.#write(bytes, old, action);
        await this.#overwriteSlot(file, slot, head, old, action);
        return;
      }
      const tail = this.#file.tornTail && bytes.length > 0
        ? withNewline(bytes)
        : bytes;
      await rewriteWithSlot(this.#path, slot, {
        source: file,
        size: old,
        tail,
        sync: this.#sync,
        action,
      });
      await this.#adoptReplacement();
    });
  }

  /**
   * Closes the file after the calls already made have finished. Does not
   * throw the writer's error (that was thrown by the call that failed).
   * Calling it again does nothing.
   *
   * @example Appending after close is refused
   * ```ts
   * import { SessionWriter } from "./_writer.ts";
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
    this.#gate.close();
  }

  /** Same as {@linkcode SessionWriter.close}, for `await using`. */
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

  /** Runs `op` under the lock, after the operations queued before it. */
  #locked(
    verb: string,
    action: string,
    op: () => Promise<void>,
  ): Promise<void> {
    const lock = lockFor(this.#path, verb, this.#lockTimeoutMs);
    return this.#serial(action, () => withLock(lock, op, this.#gate));
  }

  /**
   * Appends `bytes` to a file of `old` bytes (a `"\n"` first after a torn
   * line); a failed write is cut back and fails the writer.
   */
  async #write(bytes: Uint8Array, old: number, action: string): Promise<void> {
    if (bytes.length === 0) return;
    const file = this.#file;
    const payload = file.tornTail ? withNewline(bytes) : bytes;
    try {
      await writeAll(file.handle, payload);
      if (this.#sync) await file.handle.syncData();
    } catch (err) {
      throw this.#fail(await rollBack(file.handle, old, err, action));
    }
    file.size = old + payload.length;
    file.tornTail = false;
  }

  /**
   * Overwrites the 256-byte slot at offset 0; when that fails, puts the old
   * slot back, cuts the file back to `old` bytes (the rename's entry goes)
   * and fails the writer.
   */
  async #overwriteSlot(
    file: FsHandle,
    slot: Uint8Array,
    head: Uint8Array,
    old: number,
    action: string,
  ): Promise<void> {
    const tornTail = this.#file.tornTail;
    try {
      await file.seek(0, Deno.SeekMode.Start);
      await writeAll(file, slot);
      if (this.#sync) await file.syncData();
    } catch (err) {
      const oldSlot = head.subarray(0, TITLE_SLOT_BYTES);
      const kept = await undoRename(file, oldSlot, old, err, action);
      this.#file.size = old;
      this.#file.tornTail = tornTail;
      throw this.#fail(kept);
    }
  }

  /**
   * Opens the file a whole rewrite renamed over the path. When that fails
   * the rename has still happened: the next call opens it (`current()`).
   */
  async #adoptReplacement(): Promise<void> {
    try {
      await this.#file.reopen();
    } catch {
      // The rename is done: not a failure of this call. The next call sees
      // the new file (`current()`), opens it or says why it cannot.
      this.#file.size = -1;
    }
  }
}

function _ignore(): void {}

function _asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
