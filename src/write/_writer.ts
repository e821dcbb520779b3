/**
 * `SessionWriter`: appends lines to a session file and renames it (an entry
 * and the title slot, whole or not at all), under the cross-process lock omp
 * takes for the same file, so the two can write one session without losing
 * each other's lines: the lock in `_lock.ts`, the open file in
 * `_append_file.ts`, a rename in `_slot_rewrite.ts`.
 *
 * @module
 */

import { dirname } from "node:path";
import { named, quote } from "../format/errors.ts";
import { AppendFile, encodeLines } from "./_append_file.ts";
import { makeFolders, NEWLINE } from "./_files.ts";
import { LOCK_WAIT_MS, SessionLock } from "./_lock.ts";
import { type FillReplacement, replaceFile } from "./_replace_file.ts";
import { checkSlot, retitleFile } from "./_slot_rewrite.ts";

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
 * import { marshalTitleSlot } from "../format/title_slot.ts";
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
  readonly #options: _Settings;
  /** The lock, its OS gate kept open between writes. */
  readonly #lock: SessionLock;
  #error: Error | undefined;
  #closed = false;
  /** The last queued operation; operations on one writer run one at a time. */
  #tail: Promise<void> = Promise.resolve();

  private constructor(file: AppendFile, options: _Settings, lock: SessionLock) {
    this.#file = file;
    this.#options = options;
    this.#lock = lock;
  }

  /**
   * Open an existing session file for appending (its last byte is read: a
   * torn last line gets a `"\n"` before the next append).
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
    return new SessionWriter(file, settings, new SessionLock(path));
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
    const lock = new SessionLock(path);
    try {
      const file = await lock.run(
        "create",
        settings.lockTimeoutMs,
        () => AppendFile.create(path, body, settings.sync),
      );
      return new SessionWriter(file, settings, lock);
    } catch (err) {
      await lock.close();
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
      const sync = this.#options.sync;
      await this.#failing(this.#file.append(bytes, old, sync, action));
    });
  }

  /**
   * Rename the session whole or not at all, under one lock: append `lines`
   * (the `title_change` entry) and write `slot` as line 1, in place when
   * line 1 is a 256-byte slot, else by rewriting the file whole
   * (`_slot_rewrite.ts`). A failed write in place is taken back and fails
   * the writer, as a failed append does; a failed whole rewrite touched
   * nothing, and the writer goes on.
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
    const failing = (write: Promise<void>) => this.#failing(write);
    const options = { sync: this.#options.sync, action, failing };
    await this.#locked(
      "rename",
      action,
      () => retitleFile(this.#file, slot, bytes, options),
    );
  }

  /**
   * Replace the file whole, under the lock (`_replace_file.ts`): `fill`
   * writes the new content into a temp file beside it, reading the old
   * content as it is under the lock; the temp file is then renamed over the
   * path, and later appends go to the new file. All or nothing: when a step
   * fails (or `fill` throws), the file is as it was and the writer goes on.
   *
   * @param verb What the rewrite is, for errors: `migrate`.
   * @param fill Writes the new content from the old (`source`, `size` bytes).
   * @throws {Error} `ETIMEDOUT` when another writer holds the lock past
   * `lockTimeoutMs`; an `Error` naming the action when the writer is closed
   * or failed, a step fails or the file changed during the copy.
   */
  async rewrite(verb: string, fill: FillReplacement): Promise<void> {
    const action = `Cannot ${verb} ${quote(this.#file.path)}`;
    this.#checkOpen(action);
    const options = { sync: this.#options.sync, action };
    await this.#locked(verb, action, async () => {
      try {
        await replaceFile(this.#file, fill, options);
      } catch (err) {
        throw named(err, action);
      }
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
    await this.#lock.close();
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
    const run = this.#tail.then(() => {
      this.#checkNotFailed(action);
      return this.#lock.run(verb, this.#options.lockTimeoutMs, op);
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
type _Settings = Required<SessionWriterOptions>;

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
