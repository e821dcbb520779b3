/**
 * The ids a session knows: those of the entries in memory and, read once
 * when first needed, every id of its file (a windowed open holds only the
 * window), kept up to date by appends.
 *
 * @module
 */

import { quote } from "../format/errors.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import { IdSet as FileIdSet } from "../read/_id_set.ts";
import { readLines } from "../read/lines.ts";
import { openRegular } from "../read/_open.ts";
import type { SessionView } from "./_view.ts";

/** Ids of the file: has and add. */
interface FileIds {
  has(id: string): boolean;
  add(id: string): void;
}

/** Something that says whether an id is taken. */
export interface IdSet {
  /** Whether `id` is taken. */
  has(id: string): boolean;
}

/** The ids of a session, in memory and in its file. */
export class SessionIds {
  readonly #path: string | undefined;
  readonly #view: SessionView;
  /** Every id of the file, once read (4 bytes an id); then kept up to date by appends. */
  #file: FileIds | undefined;
  /** Ids a failed append took back after they were added to `#file`. */
  readonly #takenBack = new Set<string>();

  /**
   * @param path The session file, if any.
   * @param view What is in memory.
   */
  constructor(path: string | undefined, view: SessionView) {
    this.#path = path;
    this.#view = view;
  }

  /**
   * Ids a new entry must avoid: the file's too, when only a window is held
   * (the first call after a windowed open scans the file's ids).
   */
  async taken(): Promise<IdSet> {
    if (this.#view.loaded.windowOnly && this.#path !== undefined) {
      await this.#ofFile();
    }
    const byId = this.#view.loaded.byId;
    const outside = this.#file;
    return outside === undefined
      ? byId
      : { has: (id) => byId.has(id) || this.#inFile(outside, id) };
  }

  /**
   * Where an entry with this id is: `"memory"`, `"file"` (on disk only:
   * outside the loaded window), or undefined when no entry has it.
   *
   * @param id The id.
   * @param onDisk Whether the session has a file to look in.
   */
  async find(
    id: string,
    onDisk: boolean,
  ): Promise<"memory" | "file" | undefined> {
    if (this.#view.loaded.byId.has(id)) return "memory";
    if (onDisk && this.#inFile(await this.#ofFile(), id)) return "file";
    return undefined;
  }

  /** An entry was added (it stays known across a reload of the window). */
  added(id: string): void {
    this.#file?.add(id);
    this.#takenBack.delete(id);
  }

  /** Entries a failed append took back: never written, not ids of the file. */
  takenBack(ids: Iterable<string>): void {
    if (this.#file === undefined) return;
    for (const id of ids) this.#takenBack.add(id);
  }

  #inFile(file: FileIds, id: string): boolean {
    return file.has(id) && !this.#takenBack.has(id);
  }

  async #ofFile(): Promise<FileIds> {
    // A read that saw every line (walked to the start, or resumed from the
    // index's record) knows every id already: no scan of the file.
    const ids = this.#view.loaded.fileIds;
    if (this.#file === undefined && ids !== undefined) {
      this.#file = {
        has: (id) => ids.get(id) !== 0,
        add: (id) => void ids.add(id, 1),
      };
    }
    return this.#file ??= await _scanIds(this.#path!);
  }
}

const _utf8 = new TextDecoder();

/**
 * The id of every entry line of a session file, for minting ids that are
 * unique in the whole file when only its window is in memory. Envelope-first
 * lines are not parsed; the others (omp's `custom` lines) are. A line that
 * is not JSON is damage the loader reports: it holds no id to avoid.
 */
async function _scanIds(path: string): Promise<FileIdSet> {
  const ids = new FileIdSet();
  const at = new EnvelopeAt();
  const file = await openRegular(path, `Cannot read ${quote(path)}`);
  try {
    for await (const line of readLines(file)) {
      const bytes = line.bytes;
      if (bytes === undefined || bytes.length === 0) continue;
      if (readEnvelope(bytes, 0, bytes.length, at)) {
        ids.addBytes(bytes, at.idStart, at.idEnd);
        continue;
      }
      let value: { id?: unknown } | null = null;
      try {
        value = JSON.parse(_utf8.decode(bytes));
      } catch {
        continue; // not JSON: reported by the loader, no id here
      }
      if (typeof value?.id === "string") ids.add(value.id);
    }
    return ids;
  } finally {
    await file[Symbol.asyncDispose]();
  }
}
