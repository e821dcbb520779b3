/**
 * Writing a file whole or not at all: a temp file beside the target,
 * filled, then renamed (or hard-linked, never replacing what is there). A
 * crash leaves the old file or the new one, never a mix; a failure removes
 * the temp file. Blobs, forks and the whole-file slot rewrite use it.
 *
 * @module
 */

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
  const { action } = options;
  const random = crypto.getRandomValues(new Uint8Array(6)).toHex();
  const temp = join(dirname(target), `.${basename(target)}.${random}.tmp`);
  let linked = false;
  try {
    {
      await using out = await createFile(temp, { write: true }, action);
      await fill(out);
      if (options.sync) await out.syncData();
    }
    linked = options.noClobber === true
      ? await _publishNoClobber(temp, target, action)
      : (await fs().rename(temp, target), false);
  } catch (err) {
    const why = `the write failed and the temp file ${quote(temp)}`;
    await removeAfter(temp, err, `${action}: ${why} could not be removed`);
    throw named(err, action);
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
