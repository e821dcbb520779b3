/**
 * The two ways a rename writes line 1, decided from the bytes on disk under
 * the lock (never from what was read at open): in place, when line 1 is a
 * title record exactly 256 bytes wide; otherwise by rewriting the file
 * whole, atomically, with the new slot and the rename's entry in the same
 * temp file.
 *
 * @module
 */

import { type FileHandle, fs } from "../_fs.ts";
import { asHeader } from "../format/header.ts";
import { parseTitleSlot, TITLE_SLOT_BYTES } from "../format/title_slot.ts";
import { writeAtomically } from "./_atomic_file.ts";
import { NEWLINE, readFull, sameFile, undoAfter, writeAll } from "./_files.ts";

/** Copy buffer: memory stays bounded whatever the file size. */
const _COPY_BUFFER_BYTES = 1 << 20;
/** A UTF-8 byte order mark, which some editors put before line 1. */
const _BOM = [0xef, 0xbb, 0xbf];

const _lenient = new TextDecoder();

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
 * The first bytes of a file, enough to tell an in-place slot: 256 and one
 * more (a CRLF slot is 257 bytes, its `"\n"` at 256).
 *
 * @param file An open file.
 * @returns Up to 257 bytes from offset 0.
 */
export async function readHead(file: FileHandle): Promise<Uint8Array> {
  const head = new Uint8Array(TITLE_SLOT_BYTES + 1);
  return head.subarray(0, await readFull(file, head, 0));
}

/**
 * Whether line 1 can be overwritten in place: a title record (well formed
 * or not) exactly 256 bytes long with its `"\n"`, its only one. A CRLF slot
 * (257 bytes), a byte order mark before the slot, a slot of another width
 * or a header (a slot-less file) cannot.
 *
 * @param head The file's first bytes ({@linkcode readHead}).
 * @returns Whether the 256 bytes at offset 0 are a slot to overwrite.
 */
export function slotInPlace(head: Uint8Array): boolean {
  if (head.indexOf(NEWLINE) !== TITLE_SLOT_BYTES - 1) return false;
  const line = _lenient.decode(head.subarray(0, TITLE_SLOT_BYTES - 1));
  return parseTitleSlot(line) !== undefined;
}

/**
 * Overwrite the 256-byte slot at offset 0 of a file of `size` bytes (the
 * rename's entry already appended after `old` bytes); when that fails, put
 * the old slot back and cut the file back to `old` bytes.
 *
 * @param file The file, open for positional writes.
 * @param slot The new slot.
 * @param head The file's first bytes, holding the old slot.
 * @param old The size before the rename's entry.
 * @param options Flush before returning; the action, for errors.
 * @throws {Error} The write's error named with the action (the undo done),
 * or an `AggregateError` of both when the undo fails too.
 */
export async function overwriteSlot(
  file: FileHandle,
  slot: Uint8Array,
  head: Uint8Array,
  old: number,
  options: { sync: boolean; action: string },
): Promise<void> {
  const { action } = options;
  try {
    await writeAll(file, slot, 0);
    if (options.sync) await file.syncData();
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

/** What {@linkcode rewriteWithSlot} needs besides the slot. */
export interface SlotRewrite {
  /** The file, open for reading; it must be the file at `path`. */
  source: FileHandle;
  /** Its size now (under the lock). */
  size: number;
  /** Bytes to write after the old content: the rename's entry line. */
  tail: Uint8Array;
  /** Flush the temp file before the rename and the folder after it. */
  sync: boolean;
  /** For errors: `Cannot rename "a.jsonl"`. */
  action: string;
}

/**
 * Replace the file at `path`, atomically, with `slot` as line 1, then its
 * content from the header on, then `tail`. A byte order mark and a line 1
 * that is not the header (a title record of another width, a CRLF slot, a
 * malformed one: what a reader skips) are dropped; a header on line 1 (a
 * slot-less file) is kept. The copy goes through a temp file in bounded
 * memory, and fails, leaving the file as it was, when neither line 1 nor
 * line 2 is a header, or when the file changed during the copy. The caller
 * holds the lock.
 *
 * @param path The session file.
 * @param slot The new line 1: exactly 256 bytes, its only `"\n"` last.
 * @param rewrite The source, its size, the tail and how to write.
 * @returns The new file's size.
 * @throws {Error} Naming the action and the file, when the file has no
 * header where a reader looks for it, changed during the copy, or the write
 * fails (the temp file is removed; the file is untouched).
 */
export async function rewriteWithSlot(
  path: string,
  slot: Uint8Array,
  rewrite: SlotRewrite,
): Promise<number> {
  const { source, size, tail, action } = rewrite;
  const start = await _contentStart(source, size, action);
  const before = await source.stat();
  await writeAtomically(path, async (out) => {
    await writeAll(out, slot);
    const copied = await _copyFrom(source, start, out);
    await writeAll(out, tail);
    const now = await fs().stat(path);
    if (
      !sameFile(now, before) || now.size !== size || start + copied !== size
    ) {
      throw new Error(
        `${action}: the file changed during the copy (${size} bytes, then ${now.size})`,
      );
    }
  }, { action, sync: rewrite.sync });
  return slot.length + (size - start) + tail.length;
}

/** Where the kept content starts: the header, after a BOM and a non-header line 1. */
async function _contentStart(
  source: FileHandle,
  size: number,
  action: string,
): Promise<number> {
  const head = await readHead(source);
  const bom = _BOM.every((b, i) => head[i] === b) ? _BOM.length : 0;
  const line1 = await _lineAt(source, bom, size);
  if (_isHeader(line1.text)) return bom;
  if (
    line1.next < size &&
    _isHeader((await _lineAt(source, line1.next, size)).text)
  ) {
    return line1.next;
  }
  throw new Error(`${action}: neither line 1 nor line 2 is a header`);
}

function _isHeader(line: string): boolean {
  try {
    return "header" in asHeader(JSON.parse(line.replace(/\r$/, "")));
  } catch {
    return false; // not JSON: not a header
  }
}

/** The line starting at `offset` (without its `"\n"`) and where the next starts. */
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
    const chunk = buf.subarray(0, end >= 0 ? end : n);
    text += decoder.decode(chunk, { stream: end < 0 });
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
