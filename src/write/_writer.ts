/**
 * `SessionWriter`: appends lines to a session file and rewrites its title
 * slot, under the cross-process lock omp takes for the same file, so the two
 * can write one session without losing each other's lines.
 *
 * The lock every write takes is described in `_lock.ts`.
 *
 * @module
 */

import { dirname } from "node:path";
import { named, quote, removeAfter } from "../fs/_errors.ts";
import { type FsHandle, IS_WINDOWS, seam, writeAll } from "../fs/_seam.ts";
import { TITLE_SLOT_BYTES } from "../format/title_slot.ts";
import { FILE_MODE, makeFolders, sameFile, syncFolder } from "./_folders.ts";
import { lockFor, withLock } from "./_lock.ts";
import {
  checkSlot,
  type SessionWriterOptions,
  type WriterSettings,
  writerSettings,
} from "./_options.ts";
import {
  endsTorn,
  NEWLINE,
  readUpTo,
  restoreSlot,
  rollBack,
  withNewline,
} from "./_undo.ts";

export type { SessionWriterOptions } from "./_options.ts";

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
  #file: FsHandle;
  #size: number;
  #tornTail: boolean;
  #error: Error | undefined;
  #closed = false;
  /** The last queued operation; operations on one writer run one at a time. */
  #tail: Promise<void> = Promise.resolve();

  private constructor(
    path: string,
    file: FsHandle,
    size: number,
    tornTail: boolean,
    settings: WriterSettings,
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
    const file = await seam().openHandle(path, { read: true, append: true });
    try {
      const info = await file.stat();
      if (!info.isFile) {
        throw new Error(`Cannot open ${quote(path)}: not a regular file`);
      }
      const torn = await endsTorn(file, info.size);
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
   * import { marshalTitleSlot } from "@xdev/session";
   * import { SessionWriter } from "./_writer.ts";
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
    await makeFolders(path, dirname(path));
    const lock = lockFor(path, "create", settings.lockTimeoutMs);
    return await withLock(lock, async () => {
      const fs = seam();
      const file = await fs.openHandle(path, {
        read: true,
        append: true,
        createNew: true,
        mode: FILE_MODE,
      });
      try {
        if (!IS_WINDOWS) await fs.chmod(path, FILE_MODE);
        await writeAll(file, body);
        if (settings.sync) {
          await file.syncData();
          await syncFolder(dirname(path));
        }
      } catch (err) {
        file.close();
        await removeAfter(
          path,
          err,
          `Cannot create ${quote(path)}: the write failed and ${
            quote(path)
          } could not be removed`,
        );
        throw named(err, `Cannot create ${quote(path)}`);
      }
      return new SessionWriter(path, file, body.length, false, settings);
    });
  }

  /**
   * Bytes in the file as far as this writer knows (updated by each append).
   */
  get size(): number {
    return this.#size;
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
    const bytes = _encodeLines(lines, action);
    this.#checkOpen(action);
    if (bytes === undefined) return;
    const lock = lockFor(this.#path, "append to", this.#lockTimeoutMs);
    await this.#serial(
      action,
      () => withLock(lock, () => this.#appendLocked(bytes, action)),
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
    const action = `Cannot rewrite the title slot of ${quote(this.#path)}`;
    checkSlot(slot, action);
    this.#checkOpen(action);
    const lock = lockFor(
      this.#path,
      "rewrite the title slot of",
      this.#lockTimeoutMs,
    );
    await this.#serial(
      action,
      () => withLock(lock, () => this.#rewriteSlotLocked(slot, action)),
    );
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
  }

  /**
   * Same as {@linkcode SessionWriter.close}, for `await using`.
   *
   * @example Closing at the end of a block
   * ```ts
   * import { SessionWriter } from "./_writer.ts";
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
    if (old !== this.#size) this.#tornTail = await endsTorn(file, old);
    const payload = this.#tornTail ? withNewline(bytes) : bytes;
    try {
      await writeAll(file, payload);
      if (this.#sync) await file.syncData();
    } catch (err) {
      throw this.#fail(await rollBack(file, old, err, action));
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
      live = seam().statSync(this.#path); // one tiny call: sync is ~10x cheaper
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return mine; // omp keeps its handle too
      throw err;
    }
    if (sameFile(live, mine)) return mine;
    const next = await seam().openHandle(this.#path, {
      read: true,
      append: true,
    });
    this.#file.close();
    this.#file = next;
    this.#size = -1; // unknown: read the new file's tail
    return await next.stat();
  }

  async #rewriteSlotLocked(slot: Uint8Array, action: string): Promise<void> {
    using file = await seam().openHandle(this.#path, {
      read: true,
      write: true,
    });
    const old = await readUpTo(file, TITLE_SLOT_BYTES);
    if (
      old.length < TITLE_SLOT_BYTES ||
      old.indexOf(NEWLINE) !== TITLE_SLOT_BYTES - 1
    ) {
      throw new Error(
        `${action}: line 1 is not ${TITLE_SLOT_BYTES} bytes; rewrite the whole file instead`,
      );
    }
    try {
      await file.seek(0, Deno.SeekMode.Start);
      await writeAll(file, slot);
      if (this.#sync) await file.syncData();
    } catch (err) {
      throw this.#fail(await restoreSlot(file, old, err, action));
    }
  }
}

/** Validated options. */
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

function _ignore(): void {}

function _asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
