/**
 * How a session's entries reach its file: envelopes and ids, blobs on the
 * way, the settings checkpoint after a boundary, the writer and its
 * lifecycle, and taking back what a failed write added.
 *
 * @module
 */

import { join } from "node:path";
import { named, quote } from "../fs/_errors.ts";
import {
  checkpointData,
  SETTINGS_CHECKPOINT_TYPE,
} from "../format/checkpoint.ts";
import { newEntryId } from "../format/_entry_id.ts";
import { encodeEntry, type SessionEntry } from "../format/entries.ts";
import { encodeHead } from "../format/_head.ts";
import { headerVersion, SESSION_VERSION } from "../format/header.ts";
import { seam } from "../fs/_seam.ts";
import { scanEntryIds } from "../read/_envelope.ts";
import { readLinesFromReader } from "../read/_lines_forward.ts";
import { readSessionFile } from "../read/_session_file.ts";
import { BlobStore } from "../store/blob_store.ts";
import type { SessionWriterOptions } from "../write/_options.ts";
import { SessionWriter } from "../write/_writer.ts";
import { readBlobs } from "./_blobs.ts";
import { prepareForDisk } from "./_persist.ts";
import type { SessionParts } from "./_parts.ts";
import type { SessionView } from "./_view.ts";
import type { AppendOptions, EntryPayload } from "./entry_appender.ts";
import type { SessionWriteOptions } from "./options.ts";

const _ENVELOPE_KEYS = new Set(["type", "id", "parentId", "timestamp"]);

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
  /** Ids of every entry in the file (read once when needed, then kept up to date by appends). */
  #fileIds: Set<string> | undefined;
  #closed = false;

  constructor(parts: SessionParts, view: SessionView) {
    this.#path = parts.path;
    this.#dataDir = parts.dataDir;
    this.#view = view;
    this.#onDisk = parts.onDisk;
    this.#options = parts.options;
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
      const taken = await this.#takenIds();
      for (let i = 0; i < payloads.length; i++) {
        const parentId = i === 0 && options.parentId !== undefined
          ? options.parentId
          : view.leafId;
        let entry = this.#envelope(payloads[i]!, parentId, taken);
        if (this.#onDisk) entry = await this.#prepare(entry);
        this.#add(entry);
        written.push(entry);
        lines.push(encodeEntry(entry));
        if (entry.type === "compaction" || entry.type === "reset_boundary") {
          const checkpoint = this.#checkpoint(taken);
          this.#add(checkpoint);
          lines.push(encodeEntry(checkpoint));
        }
      }
      if (this.#onDisk) {
        const writer = await this.writerFor("append to");
        await (write ?? _plainAppend)(writer, lines, written);
      } else if (this.#autoPersist && written.some(_isAssistant)) {
        await this.ensureOnDisk();
      }
    } catch (err) {
      for (const e of view.loaded.entries.slice(mark.length)) {
        this.#fileIds?.delete(e.id); // never written: not an id of the file
      }
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

  /** The open writer, opened on first use; refuses a closed or legacy session. */
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
    if (version !== SESSION_VERSION) {
      throw new TypeError(
        `Cannot ${action} "${name}": it is a version ${version} session; fork it to a version ${SESSION_VERSION} file first`,
      );
    }
    this.#writer ??= await SessionWriter.open(this.#path, this.writerOptions());
    return this.#writer;
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

  /** Whether an entry with this id is in the session (in memory or in the file). */
  async knows(id: string): Promise<boolean> {
    return this.#view.loaded.byId.has(id) ||
      (this.#onDisk && (await this.#idsOfFile()).has(id));
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
    if (this.#view.loaded.byId.has(parentId)) return false;
    if (this.#onDisk && (await this.#idsOfFile()).has(parentId)) return true;
    throw new RangeError(
      `Cannot append to ${quote(this.name)}: no entry has the id ${
        quote(parentId)
      }`,
    );
  }

  /** The payload under a new envelope: id, parent, timestamp first. */
  #envelope(
    p: EntryPayload,
    parentId: string | null,
    taken: { has(id: string): boolean },
  ): SessionEntry {
    if (typeof p.type !== "string" || p.type.length === 0) {
      throw new TypeError("Cannot append: an entry needs a type");
    }
    const entry: Record<string, unknown> = {
      type: p.type,
      id: newEntryId(taken),
      parentId,
      timestamp: this.#now().toISOString(),
    };
    const payload = p as Record<string, unknown>;
    for (const key of Object.keys(payload)) {
      if (!_ENVELOPE_KEYS.has(key)) entry[key] = payload[key];
    }
    return entry as SessionEntry;
  }

  #now(): Date {
    return (this.#options.now ?? (() => new Date()))();
  }

  #add(entry: SessionEntry): void {
    this.#fileIds?.add(entry.id); // stays complete across a reload
    this.#view.add(entry);
  }

  /** The checkpoint after a boundary: the settings at the leaf and every label. */
  #checkpoint(taken: { has(id: string): boolean }): SessionEntry {
    const view = this.#view;
    return {
      type: "custom",
      id: newEntryId(taken),
      parentId: view.leafId,
      timestamp: this.#now().toISOString(),
      customType: SETTINGS_CHECKPOINT_TYPE,
      data: checkpointData(view.settings(), view.labels()),
    } as SessionEntry;
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

  /** Ids a new entry must avoid: the whole file's, when only a window is held. */
  async #takenIds(): Promise<{ has(id: string): boolean }> {
    if (this.#view.loaded.windowed && this.#path !== undefined) {
      await this.#idsOfFile();
    }
    return this.#idsInUse();
  }

  async #idsOfFile(): Promise<Set<string>> {
    if (this.#fileIds === undefined) {
      using file = await seam().openHandle(this.#path!, { read: true });
      this.#fileIds = await scanEntryIds(readLinesFromReader(file));
    }
    return this.#fileIds;
  }

  #idsInUse(): { has(id: string): boolean } {
    const byId = this.#view.loaded.byId;
    const outside = this.#fileIds;
    return outside === undefined
      ? byId
      : { has: (id) => byId.has(id) || outside.has(id) };
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
