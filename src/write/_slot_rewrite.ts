/**
 * Giving a file a title slot by rewriting it whole: for a file whose line 1
 * is not a 256-byte slot (a legacy slot-less file, a malformed slot), which
 * cannot be rewritten in place.
 *
 * @module
 */

import { quote } from "../fs/_errors.ts";
import { type FsFile, type FsHandle, seam, writeAll } from "../fs/_seam.ts";
import { writeAtomically } from "./_atomic_file.ts";
import { sameFile } from "./_folders.ts";
import { lockFor, withLock } from "./_lock.ts";
import {
  checkSlot,
  type SessionWriterOptions,
  writerSettings,
} from "./_options.ts";
import { NEWLINE, readUpTo } from "./_undo.ts";

/** Copy buffer: memory stays bounded whatever the file size. */
const _COPY_BUFFER_BYTES = 1 << 20;
/** How much of line 1 is read to tell a title record. */
const _TITLE_PREFIX = new TextEncoder().encode('{"type":"title"');

/**
 * Atomically replace a session file whose line 1 is not a 256-byte title
 * slot with one that has `slot` as line 1. With `dropFirstLine` the old line
 * 1 (a malformed title record) is replaced; without it (a legacy slot-less
 * file) every old byte is kept after the slot. The copy goes through a temp
 * file with a 1 MiB buffer whatever the file size, under the lock, and fails,
 * leaving the file as it was, when the file changed during the copy. An open
 * writer on the path notices the new file on its next append.
 *
 * @param path The session file.
 * @param slot The new line 1: exactly 256 bytes, its only `"\n"` last.
 * @param options `dropFirstLine`: whether the old line 1 is a (malformed)
 * title record to replace; plus durability and lock wait.
 * @throws {TypeError} When `slot` is not a `Uint8Array`, `dropFirstLine` is
 * not a boolean, or an option is malformed.
 * @throws {Deno.errors.TimedOut} When the lock is not free in time.
 */
export async function rewriteWithSlot(
  path: string,
  slot: Uint8Array,
  options: { dropFirstLine: boolean } & SessionWriterOptions,
): Promise<void> {
  const settings = writerSettings(path, options ?? {}, "rewrite");
  const action = `Cannot rewrite ${quote(path)}`;
  if (typeof options?.dropFirstLine !== "boolean") {
    throw new TypeError(`${action}: dropFirstLine is not a boolean`);
  }
  checkSlot(slot, action);
  const lock = lockFor(path, "rewrite", settings.lockTimeoutMs);
  await withLock(lock, async () => {
    using source = await seam().openHandle(path, { read: true });
    const before = await source.stat();
    const start = await _copyStart(source, options.dropFirstLine, action);
    await writeAtomically(path, async (out) => {
      await writeAll(out, slot);
      const copied = await _copyFrom(source, start, out);
      const now = await seam().stat(path);
      if (
        !sameFile(now, before) || now.size !== before.size ||
        start + copied !== before.size
      ) {
        throw new Error(
          `${action}: the file changed during the copy (${before.size} bytes, then ${now.size})`,
        );
      }
    }, { action, sync: settings.sync });
  });
}

/**
 * Where the copy starts: after line 1 when it is a title record to drop,
 * else 0. Refuses when `dropFirstLine` disagrees with line 1, since either
 * mistake breaks the file for omp (a dropped header, or a second title line
 * where the header should be).
 */
async function _copyStart(
  source: FsHandle,
  dropFirstLine: boolean,
  action: string,
): Promise<number> {
  const head = await readUpTo(source, _TITLE_PREFIX.length);
  const isTitle = head.length === _TITLE_PREFIX.length &&
    head.every((byte, i) => byte === _TITLE_PREFIX[i]);
  if (isTitle !== dropFirstLine) {
    throw new Error(
      `${action}: line 1 ${
        isTitle ? "is" : "is not"
      } a title record, but dropFirstLine is ${dropFirstLine}`,
    );
  }
  if (!dropFirstLine) return 0;
  await source.seek(0, Deno.SeekMode.Start);
  const buf = new Uint8Array(64 * 1024);
  let offset = 0;
  for (;;) {
    const n = await source.read(buf);
    if (n === null || n === 0) return offset; // line 1 is the whole file
    const end = buf.subarray(0, n).indexOf(NEWLINE);
    if (end >= 0) return offset + end + 1;
    offset += n;
  }
}

/** Copy `source` from `start` to its end into `out`; the bytes copied. */
async function _copyFrom(
  source: FsHandle,
  start: number,
  out: FsFile,
): Promise<number> {
  await source.seek(start, Deno.SeekMode.Start);
  const buf = new Uint8Array(_COPY_BUFFER_BYTES);
  let copied = 0;
  for (;;) {
    const n = await source.read(buf);
    if (n === null || n === 0) return copied;
    await writeAll(out, buf.subarray(0, n));
    copied += n;
  }
}
