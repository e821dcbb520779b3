/**
 * How a session's entries reach its file: the parent checked, envelopes
 * (`_new_entry.ts`) with ids the session does not hold (`_ids.ts`), blobs on
 * the way, the settings checkpoint after a boundary, the writer and its
 * lifecycle, and taking back what a failed write added.
 *
 * @module
 */

import { join } from "node:path";
import { named, quote } from "../format/errors.ts";
import {
  type CustomEntry,
  encodeEntry,
  type SessionEntry,
} from "../format/entries.ts";
import { BRANCH_MARKER_TYPE } from "../format/_branch_marker.ts";
import {
  encodeHead,
  headerVersion,
  SESSION_VERSION,
} from "../format/header.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";
import { readSessionFile } from "../read/_session_file.ts";
import { BlobStore } from "../store/blob_store.ts";
import { SessionWriter, type SessionWriterOptions } from "../write/_writer.ts";
import { readBlobs } from "./_blobs.ts";
import { type MigratedHead, migrateInto } from "./_migrate_file.ts";
import { SessionIds } from "./_ids.ts";
import { checkpoint, envelope } from "./_new_entry.ts";
import { prepareForDisk } from "./_persist.ts";
import type { SessionParts } from "./_parts.ts";
import type { SessionView } from "./_view.ts";
import type { AppendOptions, EntryPayload } from "./entry_appender.ts";
import type { SessionWriteOptions } from "./options.ts";

/**
 * How the lines of an append reach the file, when not by a plain append
 * (a rename writes its entry and the title slot as one operation).
 */
export type WriteLines = (
  writer: SessionWriter,
  lines: readonly string[],
  entries: readonly SessionEntry[],
) => Promise<void>;

/** Appends to a session: in memory, and on disk once the session is there. */
export class Appender {
  readonly #path: string | undefined;
  readonly #dataDir: string | undefined;
  readonly #options: SessionWriteOptions;
  readonly #view: SessionView;
  #onDisk: boolean;
  #autoPersist = false;
  #writer: SessionWriter | undefined;
  /** Where large images go, made on first use. */
  #blobStore: BlobStore | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #ids: SessionIds;
  readonly #maxLineBytes: number;
  #closed = false;

  constructor(parts: SessionParts, view: SessionView) {
    this.#path = parts.path;
    this.#maxLineBytes = parts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#dataDir = parts.dataDir;
    this.#view = view;
    this.#onDisk = parts.onDisk;
    this.#options = parts.options;
    this.#ids = new SessionIds(parts.path, view);
  }

  /** The file's name for messages. */
  get name(): string {
    return this.#path ?? "<stream>";
  }

  /** Whether the session has a file. */
  get onDisk(): boolean {
    return this.#onDisk;
  }

  /** Whether {@linkcode close} ran. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Write on the first assistant message. */
  enableAutoPersist(): void {
    this.#autoPersist = true;
  }

  /** Run `fn` after every earlier call has settled, one at a time. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  /**
   * Add entries: envelopes first, blobs stored, a checkpoint after each
   * compaction and reset, one write (by `write` when given); on failure
   * nothing stays added. A first parent outside the loaded window is
   * looked for in the file, and the window is read again after the write,
   * so the context is what a fresh open of the file gives.
   */
  async append(
    payloads: readonly EntryPayload[],
    options: AppendOptions,
    write?: WriteLines,
  ): Promise<SessionEntry[]> {
    if (this.#closed) {
      throw new Error(
        `Cannot append to ${quote(this.name)}: the session is closed`,
      );
    }
    const outside = await this.#checkParent(options.parentId);
    const view = this.#view;
    const mark = view.mark();
    const written: SessionEntry[] = [];
    const lines: string[] = [];
    try {
      const taken = await this.#ids.taken();
      for (let i = 0; i < payloads.length; i++) {
        const parentId = i === 0 && options.parentId !== undefined
          ? options.parentId
          : view.leafId;
        let entry = envelope(payloads[i]!, parentId, taken, this.#now());
        if (this.#onDisk) entry = await this.#prepare(entry);
        this.#add(entry);
        written.push(entry);
        lines.push(encodeEntry(entry));
        if (entry.type === "compaction" || entry.type === "reset_boundary") {
          const settings = checkpoint(view, taken, this.#now());
          this.#add(settings);
          lines.push(encodeEntry(settings));
        }
      }
      if (this.#onDisk) {
        const writer = await this.writerFor("append to");
        await (write ?? _plainAppend)(writer, lines, written);
      } else if (this.#autoPersist && written.some(_isAssistant)) {
        await this.ensureOnDisk();
      }
    } catch (err) {
      this.#ids.takenBack(
        view.loaded.entries.slice(mark.length).map((e) => e.id),
      );
      view.rollBack(mark);
      throw err;
    }
    if (outside && this.#onDisk) await this.#reloadAfterAppend();
    return written;
  }

  /** Write the file (slot, header, entries so far) if it is not there yet. */
  async ensureOnDisk(): Promise<void> {
    if (this.#onDisk) return;
    if (this.#path === undefined) {
      throw new TypeError(
        'Cannot write "<stream>": a session read from a stream has no file',
      );
    }
    const loaded = this.#view.loaded;
    const prepared: SessionEntry[] = [];
    for (const e of loaded.entries) prepared.push(await this.#prepare(e));
    const head = encodeHead(loaded.slot!, loaded.header);
    const rest = new TextEncoder().encode(
      prepared.map((e) => `${encodeEntry(e)}\n`).join(""),
    );
    const body = new Uint8Array(head.length + rest.length);
    body.set(head);
    body.set(rest, head.length);
    this.#writer = await SessionWriter.create(
      this.#path,
      body,
      this.writerOptions(),
    );
    loaded.entries = prepared;
    loaded.byId = new Map(prepared.map((e) => [e.id, e]));
    this.#onDisk = true;
  }

  /**
   * The open writer, opened on first use; refuses a closed session. A
   * version 1 or 2 file is migrated to version 3 first, in place and whole
   * (`_migrate_file.ts`), as omp migrates one at its first write.
   */
  async writerFor(action: string): Promise<SessionWriter> {
    const name = this.name;
    if (this.#closed) {
      throw new Error(`Cannot ${action} "${name}": the session is closed`);
    }
    if (this.#path === undefined) {
      throw new TypeError(
        `Cannot ${action} "${name}": a session read from a stream has no file`,
      );
    }
    const version = headerVersion(this.#view.loaded.header);
    if (version > SESSION_VERSION) {
      throw new TypeError(
        `Cannot ${action} "${name}": it is a version ${version} session, newer than this library writes; fork it to a version ${SESSION_VERSION} file first`,
      );
    }
    this.#writer ??= await SessionWriter.open(this.#path, this.writerOptions());
    if (version < SESSION_VERSION) await this.#migrate(this.#writer, version);
    return this.#writer;
  }

  /**
   * Migrate the version 1 or 2 file on disk (whole or not at all, under
   * the lock), then hold its new head: the entries in memory are already
   * migrated, with the same ids.
   */
  async #migrate(writer: SessionWriter, version: number): Promise<void> {
    const loaded = this.#view.loaded;
    let head: MigratedHead | undefined;
    await writer.rewrite("migrate", async (source, size, out) => {
      head = await migrateInto(source, size, out, {
        name: this.name,
        sessionId: loaded.header.id,
        version,
        maxLineBytes: this.#maxLineBytes,
      });
    });
    loaded.header = head!.header;
    if (head!.slot !== undefined) {
      loaded.slot = head!.slot;
      loaded.slotState = "ok";
    }
  }

  /** Close the writer; the next write opens the file again. */
  async dropWriter(): Promise<void> {
    await this.#writer?.close();
    this.#writer = undefined;
  }

  /** The options the writers take. */
  writerOptions(): SessionWriterOptions {
    const o = this.#options;
    return {
      ...(o.sync === undefined ? {} : { sync: o.sync }),
      ...(o.lockTimeoutMs === undefined
        ? {}
        : { lockTimeoutMs: o.lockTimeoutMs }),
    };
  }

  /** Write a branch marker under `entryId` (see `Session.branch`). */
  async branch(entryId: string): Promise<CustomEntry> {
    if (!await this.knows(entryId)) {
      throw new RangeError(
        `Cannot branch to "${entryId}": no entry has that id`,
      );
    }
    // A target outside the window: the append reads the new window.
    const [marker] = await this.append([{
      type: "custom",
      customType: BRANCH_MARKER_TYPE,
      data: { to: entryId },
    }], { parentId: entryId });
    return marker as CustomEntry;
  }

  /** Whether an entry with this id is in the session (in memory or in the file). */
  async knows(id: string): Promise<boolean> {
    return await this.#ids.find(id, this.#onDisk) !== undefined;
  }

  /** Read the window again (after moving the leaf outside it). */
  async #reloadAfterAppend(): Promise<void> {
    try {
      await this.#reload();
    } catch (err) {
      throw named(
        err,
        `Cannot read the window of ${
          quote(this.name)
        } again after appending to it (the entries are written)`,
      );
    }
  }

  async #reload(): Promise<void> {
    const loaded = await readSessionFile(this.#path!, { window: true });
    const blobs = this.#dataDir === undefined
      ? { images: new Map(), texts: new Map() }
      : await readBlobs(loaded, join(this.#dataDir, "blobs"), undefined);
    this.#view.replace(loaded, blobs);
  }

  /** Close the writer; later appends fail. */
  close(): Promise<void> {
    return this.exclusive(async () => {
      if (this.#closed) return;
      this.#closed = true;
      await this.dropWriter();
    });
  }

  /**
   * Whether a first parent given by the caller lies outside the loaded
   * window (in the file only).
   *
   * @throws {TypeError} When it is neither a string nor null.
   * @throws {RangeError} When no entry has that id.
   */
  async #checkParent(parentId: unknown): Promise<boolean> {
    if (parentId === undefined || parentId === null) return false;
    if (typeof parentId !== "string") {
      throw new TypeError(
        `Cannot append to ${quote(this.name)}: parentId is not a string`,
      );
    }
    const where = await this.#ids.find(parentId, this.#onDisk);
    if (where !== undefined) return where === "file";
    throw new RangeError(
      `Cannot append to ${quote(this.name)}: no entry has the id ${
        quote(parentId)
      }`,
    );
  }

  #now(): Date {
    return (this.#options.now ?? (() => new Date()))();
  }

  #add(entry: SessionEntry): void {
    this.#ids.added(entry.id);
    this.#view.add(entry);
  }

  /** Large images to blobs, `cost` into every usage. */
  #prepare(entry: SessionEntry): Promise<SessionEntry> {
    const blobs = this.#dataDir === undefined
      ? undefined
      : this.#blobStore ??= new BlobStore(join(this.#dataDir, "blobs"), {
        sync: this.#options.sync ?? false,
      });
    return prepareForDisk(entry, {
      blobs,
      textBlobThreshold: this.#options.textBlobThreshold,
    }, this.#view.blobs);
  }
}

function _plainAppend(
  writer: SessionWriter,
  lines: readonly string[],
): Promise<void> {
  return writer.append(lines);
}

function _isAssistant(e: SessionEntry): boolean {
  return e.type === "message" &&
    (e.message as { role?: unknown } | null)?.role === "assistant";
}
