/**
 * Writing a file whole or not at all: a temp file beside the target,
 * filled, then renamed (or hard-linked, never replacing what is there). A
 * crash leaves the old file or the new one, never a mix; a failure removes
 * the temp file. Blobs, forks and the whole-file slot rewrite use it.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { named, quote, removeAfter } from "../fs/_errors.ts";
import { type FsFile, IS_WINDOWS, seam } from "../fs/_seam.ts";
import { FILE_MODE, syncFolder } from "./_folders.ts";

/** Options for {@linkcode writeAtomically}. */
export interface AtomicWriteOptions {
  /** What is being done, for errors: `Cannot fork "a.jsonl" to "b.jsonl"`. */
  action: string;
  /** Flush the file and its folder before returning. */
  sync: boolean;
  /**
   * Publish with a hard link, so an existing target is never replaced (it
   * fails with `Deno.errors.AlreadyExists`); on a filesystem without links,
   * check the target is absent, then rename.
   */
  noClobber?: boolean;
}

/**
 * Write `target` through a temp file `.<name>.<12 hex>.tmp` in its folder
 * (mode 0600 whatever the umask): `fill` writes the content, then the temp
 * file is published in one step.
 *
 * @param target The file to write.
 * @param fill Writes the content into the temp file; may throw to abandon.
 * @param options The action named in errors, durability, no-clobber.
 * @returns Resolves once the target holds the new content.
 * @throws {Deno.errors.AlreadyExists} With `noClobber`, when the target exists.
 * @throws {AggregateError} When the write failed and the temp file could not be removed.
 */
export async function writeAtomically(
  target: string,
  fill: (out: FsFile) => Promise<void>,
  options: AtomicWriteOptions,
): Promise<void> {
  const fs = seam();
  const { action } = options;
  const random = crypto.getRandomValues(new Uint8Array(6)).toHex();
  const temp = join(dirname(target), `.${basename(target)}.${random}.tmp`);
  let linked = false;
  try {
    const out = await fs.open(temp, {
      write: true,
      createNew: true,
      mode: FILE_MODE,
    });
    try {
      if (!IS_WINDOWS) await fs.chmod(temp, FILE_MODE);
      await fill(out);
      if (options.sync) await out.syncData();
    } finally {
      out.close();
    }
    linked = options.noClobber === true
      ? await _publishNoClobber(temp, target, action)
      : (await fs.rename(temp, target), false);
  } catch (err) {
    await removeAfter(
      temp,
      err,
      `${action}: the write failed and the temp file ${
        quote(temp)
      } could not be removed`,
    );
    throw named(err, action);
  }
  if (linked) {
    try {
      await fs.remove(temp);
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
  const fs = seam();
  try {
    await fs.link(temp, target);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) _throwExists(target, action);
    // A filesystem without hard links (FAT, some network shares).
  }
  try {
    await fs.lstat(target);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    await fs.rename(temp, target);
    return false;
  }
  _throwExists(target, action);
}

function _throwExists(target: string, action: string): never {
  throw new Deno.errors.AlreadyExists(
    `${action}: ${quote(target)} already exists`,
  );
}
