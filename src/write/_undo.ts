/**
 * What a writer reads before it writes, and how it takes a failed write
 * back: the torn-tail check, cutting off a failed append, putting back a
 * slot.
 *
 * @module
 */

import { named } from "../fs/_errors.ts";
import { readFull } from "../fs/_read.ts";
import { type FsHandle, writeAll } from "../fs/_seam.ts";

/** `"\n"`. */
export const NEWLINE = 10;

/** Whether a file of `size` bytes ends in anything but `"\n"`. */
export async function endsTorn(
  file: FsHandle,
  size: number,
): Promise<boolean> {
  if (size === 0) return false;
  await file.seek(size - 1, Deno.SeekMode.Start);
  const last = await readUpTo(file, 1);
  return last[0] !== NEWLINE;
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

/** Puts the old slot back after `err`; the result is the error to keep. */
export function restoreSlot(
  file: FsHandle,
  old: Uint8Array,
  err: unknown,
  action: string,
): Promise<unknown> {
  return undoAfter(err, async () => {
    await file.seek(0, Deno.SeekMode.Start);
    await writeAll(file, old);
  }, `${action}: the write failed and the old slot could not be put back`)
    .then((kept) => kept === err ? named(err, action) : kept);
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
