/**
 * What a writer reads before it writes, and how it takes a failed write
 * back: the torn-tail check, cutting off a failed append, putting back a
 * slot and cutting off the entry of a failed rename.
 *
 * @module
 */

import { named } from "../fs/_errors.ts";
import { readFull } from "../fs/_read.ts";
import { type FsHandle, writeAll } from "../fs/_seam.ts";
import { NEWLINE } from "./_lines.ts";

/**
 * Whether a file of `size` bytes ends in anything but `"\n"`. Synchronous
 * where the handle offers it (one tiny read: ~10× cheaper than two
 * asynchronous calls).
 */
export async function endsTorn(
  file: FsHandle,
  size: number,
): Promise<boolean> {
  if (size === 0) return false;
  const last = new Uint8Array(1);
  if (file.seekSync !== undefined && file.readSync !== undefined) {
    file.seekSync(size - 1, Deno.SeekMode.Start);
    return file.readSync(last) !== 1 || last[0] !== NEWLINE;
  }
  await file.seek(size - 1, Deno.SeekMode.Start);
  return await readFull(file, last) !== 1 || last[0] !== NEWLINE;
}

/** Reads up to `n` bytes from the current position (fewer only at the end). */
export async function readUpTo(
  file: FsHandle,
  n: number,
): Promise<Uint8Array> {
  const buf = new Uint8Array(n);
  return buf.subarray(0, await readFull(file, buf));
}

/** `bytes` after a `"\n"`: an append after a torn last line. */
export function withNewline(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out[0] = NEWLINE;
  out.set(bytes, 1);
  return out;
}

/** Cuts the file back to `size` after `err`; the result is the error to keep. */
export function rollBack(
  file: FsHandle,
  size: number,
  err: unknown,
  action: string,
): Promise<unknown> {
  return undoAfter(
    err,
    () => file.truncate(size),
    `${action}: the write failed and its partial bytes could not be cut off`,
  ).then((kept) => kept === err ? named(err, action) : kept);
}

/**
 * Takes a failed rename back after `err`: the old slot written again at
 * offset 0, then the entry appended before it cut off (the file cut back
 * to `size`). The result is the error to keep.
 */
export function undoRename(
  file: FsHandle,
  oldSlot: Uint8Array,
  size: number,
  err: unknown,
  action: string,
): Promise<unknown> {
  return undoAfter(
    err,
    async () => {
      let slotError: unknown;
      try {
        await file.seek(0, Deno.SeekMode.Start);
        await writeAll(file, oldSlot);
      } catch (e) {
        slotError = e; // the entry is cut off all the same
      }
      await file.truncate(size);
      if (slotError !== undefined) throw slotError;
    },
    `${action}: the write failed and the old slot and size could not be put back`,
  ).then((kept) => kept === err ? named(err, action) : kept);
}

/**
 * Runs `undo` after `err`; the result is the error to keep: `err`, or, when
 * `undo` fails too, both in an `AggregateError` with `message`.
 */
async function undoAfter(
  err: unknown,
  undo: () => Promise<void>,
  message: string,
): Promise<unknown> {
  try {
    await undo();
    return err;
  } catch (undoError) {
    return new AggregateError([err, undoError], message);
  }
}
