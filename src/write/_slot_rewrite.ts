/**
 * A rename: the `title_change` entry and the new title slot, whole or not
 * at all, written one of two ways, decided from the bytes on disk under the
 * lock (never from what was read at open):
 *
 * - in place, when line 1 is a title record exactly 256 bytes wide, its
 *   only `"\n"` last: the entry is appended, then the 256 bytes at offset 0
 *   are overwritten through a handle not in append mode (omp's order). When
 *   that fails, the old slot is put back and the entry cut off;
 * - otherwise (no slot, a malformed slot, a slot of another width, a CRLF
 *   slot, a byte order mark) the file is rewritten whole through a temp file
 *   holding the new slot, the content from the header on and the entry,
 *   then renamed over it (`_replace_file.ts`). When that fails, the file
 *   is untouched.
 *
 * @module
 */

import type { FileHandle } from "../_fs.ts";
import { asHeader } from "../format/header.ts";
import { parseTitleSlot, TITLE_SLOT_BYTES } from "../format/title_slot.ts";
import type { AppendFile } from "./_append_file.ts";
import { NEWLINE, undoAfter, writeAll } from "./_files.ts";
import { replaceFile } from "./_replace_file.ts";

/** Copy buffer of a whole rewrite: memory stays bounded whatever the file size. */
const _COPY_BUFFER_BYTES = 1 << 20;
/** A UTF-8 byte order mark, which some editors put before line 1. */
const _BOM = [0xef, 0xbb, 0xbf];

/** How {@linkcode retitleFile} writes. */
export interface RetitleOptions {
  /** Flush what is written before returning. */
  sync: boolean;
  /** For errors: `Cannot rename "a.jsonl"`. */
  action: string;
  /**
   * Awaits a write that, when it fails, fails the writer for good: the
   * in-place writes (a whole rewrite that fails touched nothing).
   */
  failing: (write: Promise<void>) => Promise<void>;
}

/**
 * Check a new line 1: exactly 256 bytes, its only `"\n"` last.
 *
 * @param slot The bytes.
 * @param action What the caller does, for errors.
 * @throws {TypeError} When `slot` is not a `Uint8Array`.
 * @throws {RangeError} When it is not a slot's width and shape.
 */
export function checkSlot(slot: Uint8Array, action: string): void {
  if (!(slot instanceof Uint8Array)) {
    throw new TypeError(`${action}: the slot is not a Uint8Array`);
  }
  if (
    slot.length !== TITLE_SLOT_BYTES ||
    slot.indexOf(NEWLINE) !== TITLE_SLOT_BYTES - 1
  ) {
    throw new RangeError(
      `${action}: the slot is not ${TITLE_SLOT_BYTES} bytes ending in its only "\\n" (got ${slot.length} bytes)`,
    );
  }
}

/**
 * Write `slot` as line 1 of `file` and append `bytes` (the rename's entry),
 * in place or by a whole rewrite (see the module doc); the caller holds the
 * lock.
 *
 * @param file The session file appended to.
 * @param slot The new line 1 ({@linkcode checkSlot}).
 * @param bytes The entry's line, or nothing.
 * @param options Durability, the action, and the writer's failure.
 * @throws {Error} Naming the action and the file, when a write fails, the
 * file was replaced, or it has no header where a reader looks.
 */
export async function retitleFile(
  file: AppendFile,
  slot: Uint8Array,
  bytes: Uint8Array,
  options: RetitleOptions,
): Promise<void> {
  const { sync, action } = options;
  const old = await file.current();
  const out = await file.openPositional(action);
  try {
    const head = await _readHead(out);
    if (_slotInPlace(head)) {
      const { tornTail } = file;
      await options.failing(file.append(bytes, old, sync, action));
      const written = _overwriteSlot(out, slot, head, old, options);
      await options.failing(written.catch((err) => {
        file.size = old; // the entry is cut off too
        file.tornTail = tornTail;
        throw err;
      }));
      return;
    }
    const start = await _contentStart(out, head, old, action);
    const tail = file.payload(bytes);
    await replaceFile(file, async (source, size, temp) => {
      await writeAll(temp, slot);
      const copied = await _copyFrom(source, start, temp);
      await writeAll(temp, tail);
      // Not the same check as replaceFile's after the copy (same file, same
      // size): the copy reads to the end, so bytes appended during it and
      // cut back before that stat (a failed write rolled back, as omp and we
      // do) would be in the copy while the file's size is as it was.
      if (start + copied !== size) {
        throw new Error(
          `${action}: the file changed during the copy (${size} bytes, then ${
            start + copied
          })`,
        );
      }
    }, { action, sync });
  } finally {
    await out[Symbol.asyncDispose]();
  }
}

/** The first 257 bytes (a CRLF slot is 257 bytes, its `"\n"` at 256), fewer at the end. */
async function _readHead(file: FileHandle): Promise<Uint8Array> {
  const head = new Uint8Array(TITLE_SLOT_BYTES + 1);
  let n = 0;
  while (n < head.length) {
    const got = await file.read(head.subarray(n), n);
    if (got === 0) break;
    n += got;
  }
  return head.subarray(0, n);
}

/**
 * Whether line 1 is a title record (well formed or not) exactly 256 bytes
 * long with its `"\n"`, its only one: a slot to overwrite in place.
 */
function _slotInPlace(head: Uint8Array): boolean {
  if (head.indexOf(NEWLINE) !== TITLE_SLOT_BYTES - 1) return false;
  const line = new TextDecoder().decode(head.subarray(0, TITLE_SLOT_BYTES - 1));
  return parseTitleSlot(line) !== undefined;
}

/**
 * Overwrite the slot at offset 0; when that fails, put the old slot back
 * and cut the file back to `old` bytes (the entry appended after them).
 */
async function _overwriteSlot(
  file: FileHandle,
  slot: Uint8Array,
  head: Uint8Array,
  old: number,
  { sync, action }: RetitleOptions,
): Promise<void> {
  try {
    await writeAll(file, slot, 0);
    if (sync) await file.syncData();
  } catch (err) {
    throw await undoAfter(
      err,
      async () => {
        // The entry is cut off even when the old slot cannot be put back.
        const back = writeAll(file, head.subarray(0, TITLE_SLOT_BYTES), 0);
        await back.finally(() => file.truncate(old));
      },
      action,
      `${action}: the write failed and the old slot and size could not be put back`,
    );
  }
}

/**
 * Where the content a whole rewrite keeps starts: the header. A byte order
 * mark and a line 1 that is not the header (a title record of another
 * width, a CRLF slot, a malformed one: what a reader skips) are dropped; a
 * header on line 1 (a slot-less file) is kept.
 *
 * @throws {Error} When neither line 1 nor line 2 is a header.
 */
async function _contentStart(
  source: FileHandle,
  head: Uint8Array,
  size: number,
  action: string,
): Promise<number> {
  const bom = _BOM.every((b, i) => head[i] === b) ? _BOM.length : 0;
  const line1 = await _lineAt(source, bom, size);
  if (_isHeader(line1.text)) return bom;
  const line2 = line1.next < size
    ? await _lineAt(source, line1.next, size)
    : undefined;
  if (line2 !== undefined && _isHeader(line2.text)) return line1.next;
  throw new Error(`${action}: neither line 1 nor line 2 is a header`);
}

function _isHeader(line: string): boolean {
  try {
    return "header" in asHeader(JSON.parse(line.replace(/\r$/, "")));
  } catch {
    return false; // not JSON: not a header
  }
}

/** The line starting at `offset` (without its `"\n"`), and where the next starts. */
async function _lineAt(
  source: FileHandle,
  offset: number,
  size: number,
): Promise<{ text: string; next: number }> {
  const decoder = new TextDecoder();
  const buf = new Uint8Array(64 * 1024);
  let text = "";
  for (let at = offset; at < size;) {
    const n = await source.read(buf, at);
    if (n === 0) break;
    const end = buf.subarray(0, n).indexOf(NEWLINE);
    text += decoder.decode(buf.subarray(0, end < 0 ? n : end), {
      stream: end < 0,
    });
    if (end >= 0) return { text, next: at + end + 1 };
    at += n;
  }
  return { text: text + decoder.decode(), next: size };
}

/** Copy `source` from `start` to its end into `out`; the bytes copied. */
async function _copyFrom(
  source: FileHandle,
  start: number,
  out: FileHandle,
): Promise<number> {
  const buf = new Uint8Array(_COPY_BUFFER_BYTES);
  let copied = 0;
  for (;;) {
    const n = await source.read(buf, start + copied);
    if (n === 0) return copied;
    await writeAll(out, buf.subarray(0, n));
    copied += n;
  }
}
