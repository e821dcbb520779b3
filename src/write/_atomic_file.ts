/**
 * Writing a file whole or not at all: a temp file beside the target,
 * filled, then renamed (or hard-linked, never replacing what is there). A
 * crash leaves the old file or the new one, never a mix; a failure removes
 * the temp file. Blobs, forks, the whole-file slot rewrite and the export's
 * pages and images use it.
 *
 * @module
 */

import { toHex } from "../format/_encoding.ts";
import { basename, dirname, join } from "node:path";
import { errorCode, type FileHandle, fs } from "../_fs.ts";
import { named, quote } from "../format/errors.ts";
import {
  createFile,
  lstatOrUndefined,
  removeAfter,
  syncFolder,
} from "./_files.ts";

/** Options for {@linkcode writeAtomically}. */
export interface AtomicWriteOptions {
  /** What is being done, for errors: `Cannot fork "a.jsonl" to "b.jsonl"`. */
  action: string;
  /** Flush the file and its folder before returning. */
  sync: boolean;
  /**
   * Publish with a hard link, so an existing target is never replaced (it
   * fails with `EEXIST`); on a filesystem without links, check the target
   * is absent, then rename.
   */
  noClobber?: boolean;
}

/**
 * Write `target` through a temp file `.<name>.<12 hex>.tmp` in its folder
 * (mode 0600 whatever the umask): `fill` writes the content, then the temp
 * file is published in one step.
 *
 * @param target The file to write.
 * @param fill Writes the content into the temp file, from its start; may
 * throw to abandon.
 * @param options The action named in errors, durability, no-clobber.
 * @returns Resolves once the target holds the new content.
 * @throws {Error} `EEXIST` with `noClobber`, when the target exists.
 * @throws {AggregateError} When the write failed and the temp file could not be removed.
 */
export async function writeAtomically(
  target: string,
  fill: (out: FileHandle) => Promise<void>,
  options: AtomicWriteOptions,
): Promise<void> {
  const atomic = await AtomicFile.create(target, options.action);
  try {
    try {
      await fill(atomic.file);
    } catch (err) {
      throw await atomic.abandon(err);
    }
    await atomic.publish(options);
  } finally {
    await atomic[Symbol.asyncDispose]();
  }
}

/**
 * The same write, for content that comes a piece at a time (an export's
 * pages): the temp file is open until {@linkcode AtomicFile.publish};
 * disposed unpublished, it is closed and removed, and the target is as it
 * was.
 */
export class AtomicFile implements AsyncDisposable {
  /** The file the content is for. */
  readonly target: string;
  /** The temp file beside it. */
  readonly temp: string;
  readonly #action: string;
  #file: FileHandle | undefined;

  private constructor(
    target: string,
    temp: string,
    file: FileHandle,
    action: string,
  ) {
    this.target = target;
    this.temp = temp;
    this.#file = file;
    this.#action = action;
  }

  /**
   * Create the temp file of `target` (mode 0600 whatever the umask).
   *
   * @param target The file to write.
   * @param action What is being done, for errors.
   * @returns The open temp file.
   */
  static async create(target: string, action: string): Promise<AtomicFile> {
    const random = toHex(crypto.getRandomValues(new Uint8Array(6)));
    const temp = join(dirname(target), `.${basename(target)}.${random}.tmp`);
    try {
      const file = await createFile(temp, { write: true }, action);
      return new AtomicFile(target, temp, file, action);
    } catch (err) {
      throw named(err, action);
    }
  }

  /** The temp file, open for writing. */
  get file(): FileHandle {
    if (this.#file === undefined) {
      throw new Error(`${this.#action}: the temp file is closed`);
    }
    return this.#file;
  }

  /**
   * Close the temp file and publish it: renamed over the target, or with
   * `noClobber` linked beside what is there.
   *
   * @param options Durability, no-clobber.
   * @throws {Error} `EEXIST` with `noClobber`, when the target exists.
   * @throws {AggregateError} When it failed and the temp file could not be removed.
   */
  async publish(
    options: Pick<AtomicWriteOptions, "sync" | "noClobber">,
  ): Promise<void> {
    const action = this.#action;
    const { temp, target } = this;
    let linked: boolean;
    try {
      if (options.sync) await this.file.syncData();
      const file = this.file;
      this.#file = undefined;
      await file.close();
      linked = options.noClobber === true
        ? await _publishNoClobber(temp, target, action)
        : (await fs().rename(temp, target), false);
    } catch (err) {
      throw await this.abandon(err);
    }
    if (linked) {
      try {
        await fs().remove(temp);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new Error(
          `${action}: the temp file ${
            quote(temp)
          } could not be removed: ${why} (${quote(target)} is complete)`,
          { cause: err },
        );
      }
    }
    if (options.sync) await syncFolder(dirname(target));
  }

  /**
   * Give the write up after `err`: close the temp file and remove it.
   *
   * @param err Why.
   * @returns The error to throw: `err` named with the action, or an
   * `AggregateError` when the temp file could not be removed.
   */
  async abandon(err: unknown): Promise<unknown> {
    const file = this.#file;
    this.#file = undefined;
    const why = `${this.#action}: the write failed and the temp file ${
      quote(this.temp)
    }`;
    let closeError: unknown;
    try {
      await file?.close();
    } catch (e) {
      closeError = e;
    }
    try {
      await removeAfter(this.temp, err, `${why} could not be removed`);
    } catch (removeError) {
      return removeError;
    }
    return closeError === undefined
      ? named(err, this.#action)
      : new AggregateError([err, closeError], `${why} could not be closed`);
  }

  /** Unpublished: closed and removed (the target is left as it was). */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#file === undefined) return;
    const err = await this.abandon(undefined);
    if (err instanceof AggregateError) throw err;
  }
}

/** Link `temp` to `target`; true when linked, false when renamed instead. */
async function _publishNoClobber(
  temp: string,
  target: string,
  action: string,
): Promise<boolean> {
  const exists = () =>
    fs().error("EEXIST", `${action}: ${quote(target)} already exists`);
  try {
    await fs().link(temp, target);
    return true;
  } catch (err) {
    if (errorCode(err) === "EEXIST") throw exists();
    // A filesystem without hard links (FAT, some network shares): below.
  }
  if (await lstatOrUndefined(target) !== undefined) throw exists();
  await fs().rename(temp, target);
  return false;
}
