/**
 * The ids a session knows: those of the entries in memory and, read once
 * when first needed, every id of its file (a windowed open holds only the
 * window), kept up to date by appends.
 *
 * @module
 */

import { seam } from "../fs/_seam.ts";
import { scanEntryIds } from "../read/_envelope.ts";
import { readLinesFromReader } from "../read/_lines_forward.ts";
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
    if (this.#view.loaded.windowed && this.#path !== undefined) {
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
    const record = this.#view.loaded.record;
    if (this.#file === undefined && record !== undefined) {
      const ids = record.ids;
      this.#file = {
        has: (id) => ids.get(id) !== 0,
        add: (id) => void ids.add(id, 1),
      };
    }
    if (this.#file === undefined) {
      using file = await seam().openHandle(this.#path!, { read: true });
      this.#file = await scanEntryIds(readLinesFromReader(file));
    }
    return this.#file;
  }
}
