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
import { named, quote } from "../format/errors.ts";
import { AppendFile, encodeLines, withNewline } from "./_append_file.ts";
import { makeFolders, NEWLINE } from "./_files.ts";
import { Gate, LOCK_WAIT_MS, lockFor, withLock } from "./_lock.ts";
import {
  checkSlot,
  overwriteSlot,
  readHead,
  rewriteWithSlot,
  slotInPlace,
} from "./_slot_rewrite.ts";

/** Options for the writers of a session file. */
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

/**
 * An open session file that this process appends to. Every append and
 * rename takes omp's cross-process lock (`_lock.ts`), so omp and other
 * writers can share the file. The writer keeps the lock's OS gate open
 * between its calls, and closes it with the file. Its calls run one at a
 * time, in order.
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
  readonly #file: AppendFile;
  readonly #sync: boolean;
  readonly #lockTimeoutMs: number;
  /** The OS gate, kept open between writes. */
  readonly #gate: Gate;
  #error: Error | undefined;
  #closed = false;
  /** The last queued operation; operations on one writer run one at a time. */
  #tail: Promise<void> = Promise.resolve();

  private constructor(file: AppendFile, settings: _Settings, gate: Gate) {
    this.#file = file;
    this.#sync = settings.sync;
    this.#lockTimeoutMs = settings.lockTimeoutMs;
    this.#gate = gate;
  }

  /**
   * Open an existing session file for appending. Reads its last byte: when
   * the file does not end in `"\n"` (a torn last line), the next append
   * starts with `"\n"`, so the torn line stays alone and nothing new is lost.
   * (omp does not check, and glues its next line to the torn one.)
   *
   * @param path The session file.
   * @param options Durability and lock wait.
   * @returns A writer holding the file open until {@linkcode SessionWriter.close}.
   * @throws {TypeError} When `path` is not a non-empty string or an option has the wrong type.
   * @throws {RangeError} When `lockTimeoutMs` is negative or not finite.
   * @throws {Error} `ENOENT` when the file does not exist.
   */
  static async open(
    path: string,
    options: SessionWriterOptions = {},
  ): Promise<SessionWriter> {
    const settings = _settings(path, options, "open");
    const file = await AppendFile.open(path);
    return new SessionWriter(file, settings, new Gate(path));
  }

  /**
   * Create a new session file, which must not exist yet, with mode 0600
   * whatever the umask, and write `body` to it under the lock. Missing parent
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
   * @throws {Error} `EEXIST` when the file exists; `ETIMEDOUT` when another
   * writer holds the lock past `lockTimeoutMs`.
   */
  static async create(
    path: string,
    body: Uint8Array,
    options: SessionWriterOptions = {},
  ): Promise<SessionWriter> {
    const settings = _settings(path, options, "create");
    const action = `Cannot create ${quote(path)}`;
    if (!(body instanceof Uint8Array)) {
      throw new TypeError(`${action}: the body is not a Uint8Array`);
    }
    if (body.length === 0 || body[body.length - 1] !== NEWLINE) {
      throw new TypeError(`${action}: the body does not end in "\\n"`);
    }
    await makeFolders(path, dirname(path)).catch((err) => {
      throw named(err, action);
    });
    const lock = lockFor(path, "create", settings.lockTimeoutMs);
    const gate = new Gate(path);
    try {
      const create = () => AppendFile.create(path, body, settings.sync);
      const file = await withLock(lock, create, gate);
      return new SessionWriter(file, settings, gate);
    } catch (err) {
      await gate.close();
      throw err;
    }
  }

  /** Bytes in the file as far as this writer knows (updated by each append). */
  get size(): number {
    return this.#file.size;
  }

  /** The first write error, once the writer has failed; otherwise undefined. */
  get error(): Error | undefined {
    return this.#error;
  }

  /**
   * Append complete lines in one write call, under the lock. When another
   * writer replaced the file since (a rename over it), the path is opened
   * again first; when the file no longer ends in `"\n"`, a `"\n"` goes first.
   * On a failed write the file is cut back to its old size and the writer
   * fails (see the class doc).
   *
   * @param lines The lines, each without its `"\n"`. An empty batch writes nothing.
   * @throws {TypeError} When `lines` is not an array of strings or a line contains `"\n"`.
   * @throws {Error} `ETIMEDOUT` when another writer holds the lock past
   * `lockTimeoutMs`; an `Error` when the writer is closed or failed earlier,
   * or the write fails.
   */
  async append(lines: readonly string[]): Promise<void> {
    const action = `Cannot append to ${quote(this.#file.path)}`;
    const bytes = encodeLines(lines, action);
    this.#checkOpen(action);
    if (bytes === undefined) return;
    await this.#locked("append to", action, async () => {
      const old = await this.#file.current();
      await this.#failing(this.#file.append(bytes, old, this.#sync, action));
    });
  }

  /**
   * Rename the session whole or not at all, under one lock: append `lines`
   * (the `title_change` entry) and write `slot` as line 1. What line 1 holds
   * is read from the disk under the lock:
   *
   * - a title record exactly 256 bytes wide, its only `"\n"` last: the
   *   lines are appended, then the slot is overwritten in place through a
   *   handle that is not in append mode (omp's order). When that fails, the
   *   old slot is put back and the file cut back to its old size, and the
   *   writer fails (as after a failed append);
   * - anything else (no slot, a malformed slot, a slot of another width, a
   *   CRLF slot, a byte order mark): the file is rewritten whole through a
   *   temp file holding the new slot, the content from the header on and the
   *   lines, then renamed over it (`_slot_rewrite.ts`). When that fails the
   *   file is untouched and the writer goes on.
   *
   * @param slot The new line 1: exactly 256 bytes, its only `"\n"` last.
   * @param lines The lines to append with it, each without its `"\n"`.
   * @throws {TypeError} When `slot` is not a `Uint8Array` or a line is malformed.
   * @throws {RangeError} When `slot` is not 256 bytes ending in its only `"\n"`.
   * @throws {Error} `ETIMEDOUT` when another writer holds the lock past
   * `lockTimeoutMs`; an `Error` when the writer is closed or failed, the file
   * has no header where a reader looks, or a write fails.
   */
  async retitle(slot: Uint8Array, lines: readonly string[]): Promise<void> {
    const action = `Cannot rename ${quote(this.#file.path)}`;
    checkSlot(slot, action);
    const bytes = encodeLines(lines, action) ?? new Uint8Array();
    this.#checkOpen(action);
    await this.#locked("rename", action, async () => {
      const file = this.#file;
      const old = await file.current();
      await using out = await file.openPositional(action);
      const head = await readHead(out);
      if (slotInPlace(head)) {
        const { tornTail } = file;
        await this.#failing(file.append(bytes, old, this.#sync, action));
        const options = { sync: this.#sync, action };
        const written = overwriteSlot(out, slot, head, old, options);
        await this.#failing(written.catch((err) => {
          file.size = old; // the entry is cut off too
          file.tornTail = tornTail;
          throw err;
        }));
        return;
      }
      const tail = file.tornTail && bytes.length > 0
        ? withNewline(bytes)
        : bytes;
      const rewrite = {
        source: out,
        size: old,
        tail,
        sync: this.#sync,
        action,
      };
      await rewriteWithSlot(file.path, slot, rewrite);
      // The rename is done: when the new file cannot be opened now, that is
      // not a failure of this call; the next call opens it (`current()`) or
      // says why it cannot.
      await file.reopen().catch(() => {
        file.size = -1;
      });
    });
  }

  /**
   * Close the file after the calls already made have finished. Does not
   * throw the writer's error (that was thrown by the call that failed).
   * Calling it again does nothing.
   */
  async close(): Promise<void> {
    if (this.#closed) return await this.#tail;
    this.#closed = true;
    await this.#tail;
    await this.#file.close();
    await this.#gate.close();
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

  /** Run `op` under the lock, after the operations queued before it on this writer. */
  #locked(
    verb: string,
    action: string,
    op: () => Promise<void>,
  ): Promise<void> {
    const lock = lockFor(this.#file.path, verb, this.#lockTimeoutMs);
    const run = this.#tail.then(() => {
      this.#checkNotFailed(action);
      return withLock(lock, op, this.#gate);
    });
    // The chain only orders operations; each outcome reaches its caller through `run`.
    this.#tail = run.then(_ignore, _ignore);
    return run;
  }

  /**
   * A write to the file: when it fails, the writer fails for good. What the
   * failing call throws (the error named with the action and the file, or
   * both errors when the undo failed too) is what later calls give as their
   * cause.
   */
  async #failing(write: Promise<void>): Promise<void> {
    try {
      await write;
    } catch (err) {
      this.#error ??= err instanceof Error ? err : new Error(String(err));
      throw err;
    }
  }
}

/** The checked options. */
interface _Settings {
  sync: boolean;
  lockTimeoutMs: number;
}

/** Check a path and the writer options; `verb` (`open`, `create`) names the call in errors. */
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
  const { sync = false, lockTimeoutMs = LOCK_WAIT_MS } = options;
  const action = `Cannot ${verb} ${quote(path)}`;
  if (typeof sync !== "boolean") {
    throw new TypeError(`${action}: sync is not a boolean`);
  }
  if (typeof lockTimeoutMs !== "number") {
    throw new TypeError(`${action}: lockTimeoutMs is not a number`);
  }
  if (!Number.isFinite(lockTimeoutMs) || lockTimeoutMs < 0) {
    throw new RangeError(
      `${action}: lockTimeoutMs ${lockTimeoutMs} is not a finite number ≥ 0`,
    );
  }
  return { sync, lockTimeoutMs };
}

function _ignore(): void {}
