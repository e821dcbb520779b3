/**
 * Replacing a session file whole, under the lock its writer holds: the new
 * content is written to a temp file beside it (`_atomic_file.ts`), from the
 * old content as it is under the lock, then renamed over the path. All or
 * nothing: a failure, or another writer changing the file meanwhile (which
 * the lock should prevent, but a writer that takes no lock could do), leaves
 * the file as it was. A rename that rewrites the whole file, and the first
 * write to a version 1 or 2 file (its migration), go through here.
 *
 * @module
 */

import { type FileHandle, fs } from "../_fs.ts";
import type { AppendFile } from "./_append_file.ts";
import { writeAtomically } from "./_atomic_file.ts";
import { sameFile } from "./_files.ts";

/**
 * Writes the new content into `out` (from its start), reading the old
 * through `source`, `size` bytes long; may throw to abandon.
 */
export type FillReplacement = (
  source: FileHandle,
  size: number,
  out: FileHandle,
) => Promise<void>;

/** How {@linkcode replaceFile} writes. */
export interface ReplaceOptions {
  /** Flush the new file and its folder before returning. */
  sync: boolean;
  /** For errors: `Cannot rename "a.jsonl"`. */
  action: string;
}

/**
 * Replace `file`'s content by what `fill` writes; the caller holds the lock.
 * Afterwards `file` appends to the new file.
 *
 * @example Replacing a file by its upper-cased content
 * ```ts
 * import { AppendFile } from "./_append_file.ts";
 * import { writeAll } from "./_files.ts";
 * import { replaceFile } from "./_replace_file.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * try {
 *   const path = `${dir}/a.jsonl`;
 *   await Deno.writeTextFile(path, "one\n");
 *   const file = await AppendFile.open(path);
 *   await replaceFile(file, async (source, size, out) => {
 *     const old = new Uint8Array(size);
 *     await source.read(old, 0);
 *     const text = new TextDecoder().decode(old).toUpperCase();
 *     await writeAll(out, new TextEncoder().encode(text));
 *   }, { sync: false, action: `Cannot replace "${path}"` });
 *   await file.close();
 *   equal(await Deno.readTextFile(path), "ONE\n");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 *
 * @param file The session file appended to.
 * @param fill Writes the new content.
 * @param options Durability and the action named in errors.
 * @throws {Error} Naming the action and the file, when a step fails or the
 * file changed during the copy; the file is then as it was.
 */
export async function replaceFile(
  file: AppendFile,
  fill: FillReplacement,
  options: ReplaceOptions,
): Promise<void> {
  const { action, sync } = options;
  const old = await file.current();
  {
    const source = await file.openPositional(action);
    try {
      const before = await source.stat();
      await writeAtomically(file.path, async (out) => {
        await fill(source, old, out);
        const now = await fs().stat(file.path);
        if (!sameFile(now, before) || now.size !== old) {
          throw new Error(
            `${action}: the file changed during the copy (${old} bytes, then ${now.size})`,
          );
        }
      }, { action, sync });
    } finally {
      await source[Symbol.asyncDispose]();
    }
  }
  // The rename is done: a new file that cannot be opened now is no failure
  // of this call; the next call opens it (`current()`) or says why not.
  await file.reopen().catch(() => {
    file.size = -1;
  });
}
