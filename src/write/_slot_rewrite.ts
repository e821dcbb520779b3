/**
 * The two ways a rename writes line 1, decided from the bytes on disk under
 * the lock (never from what was read at open): in place, when line 1 is a
 * title record exactly 256 bytes wide; otherwise by rewriting the file
 * whole, atomically, with the new slot and the rename's entry in the same
 * temp file.
 *
 * @module
 */

import { type FsFile, type FsHandle, seam, writeAll } from "../fs/_seam.ts";
import { asHeader } from "../format/header.ts";
import { parseTitleSlot, TITLE_SLOT_BYTES } from "../format/title_slot.ts";
import { writeAtomically } from "./_atomic_file.ts";
import { sameFile } from "./_folders.ts";
import { NEWLINE } from "./_lines.ts";
import { readUpTo } from "./_undo.ts";

/** Copy buffer: memory stays bounded whatever the file size. */
const _COPY_BUFFER_BYTES = 1 << 20;
/** A UTF-8 byte order mark, which some editors put before line 1. */
const _BOM = [0xef, 0xbb, 0xbf];

const _lenient = new TextDecoder();

/**
 * The first bytes of a file, enough to tell an in-place slot: 256 and one
 * more (a CRLF slot is 257 bytes, its `"\n"` at 256).
 *
 * @param file An open file (its position moves).
 * @returns Up to 257 bytes from offset 0.
 */
export async function readHead(file: FsHandle): Promise<Uint8Array> {
  await file.seek(0, Deno.SeekMode.Start);
  return await readUpTo(file, TITLE_SLOT_BYTES + 1);
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
  if (
    head.length < TITLE_SLOT_BYTES ||
    head.indexOf(NEWLINE) !== TITLE_SLOT_BYTES - 1
  ) return false;
  const line = _lenient.decode(head.subarray(0, TITLE_SLOT_BYTES - 1));
  return parseTitleSlot(line) !== undefined;
}

/** What {@linkcode rewriteWithSlot} needs besides the slot. */
export interface SlotRewrite {
  /** The file, open for reading; it must be the file at `path`. */
  source: FsHandle;
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
 * slot-less file) is kept. The copy goes through a temp file with a 1 MiB
 * buffer, and fails, leaving the file as it was, when neither line 1 nor
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
    const now = await seam().stat(path);
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
  source: FsHandle,
  size: number,
  action: string,
): Promise<number> {
  const head = await readHead(source);
  const bom = _BOM.every((b, i) => head[i] === b) ? _BOM.length : 0;
  const line1 = await _lineAt(source, bom, size);
  if (_isHeader(line1.bytes)) return bom;
  const line2 = await _lineAt(source, line1.next, size);
  if (line1.next < size && _isHeader(line2.bytes)) return line1.next;
  throw new Error(`${action}: neither line 1 nor line 2 is a header`);
}

function _isHeader(line: Uint8Array): boolean {
  let text = _lenient.decode(line);
  if (text.endsWith("\r")) text = text.slice(0, -1);
  try {
    return "header" in asHeader(JSON.parse(text));
  } catch {
    return false; // not JSON: not a header
  }
}

/** The line starting at `offset` (without its `"\n"`) and where the next starts. */
async function _lineAt(
  source: FsHandle,
  offset: number,
  size: number,
): Promise<{ bytes: Uint8Array; next: number }> {
  await source.seek(offset, Deno.SeekMode.Start);
  const parts: Uint8Array[] = [];
  let at = offset;
  const buf = new Uint8Array(64 * 1024);
  while (at < size) {
    const n = await source.read(buf);
    if (n === null || n === 0) break;
    const end = buf.subarray(0, n).indexOf(NEWLINE);
    if (end >= 0) {
      parts.push(buf.slice(0, end));
      return { bytes: _concat(parts), next: at + end + 1 };
    }
    parts.push(buf.slice(0, n));
    at += n;
  }
  return { bytes: _concat(parts), next: size };
}

function _concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
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
