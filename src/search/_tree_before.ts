/**
 * The entry tree of the lines before the first line a scan may match:
 * a scan (`_scan.ts`) builds its tree only from that line on, since only a
 * file with hits needs its active path, and reads the lines before it
 * again here, each taken as the scan takes a line (an envelope at its
 * start; else the line parsed, up to {@linkcode SEARCH_LINE_BYTES}), with
 * a buffer of its own.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { type ReaderAt, readFullAt } from "../fs/_read.ts";
import { type EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import { DEFAULT_MAX_LINE_BYTES, READ_BUFFER_BYTES } from "../read/_line.ts";
import { parseEntryLine, SEARCH_LINE_BYTES } from "./_line.ts";
import type { EntryTree } from "./_tree.ts";

/** Bytes of a line's start that hold its envelope (`type`, `id`, `parentId`). */
export const ENVELOPE_BYTES = 512;

const _LF = 0x0a, _CR = 0x0d, _CLOSE_BRACE = 0x7d;

/** Where the lines of {@linkcode treeBefore} go besides the tree. */
export interface TreeSink {
  /** The envelope reader to use. */
  env: EnvelopeAt;
  /** A line whose envelope is at its start: its id and parent are in the tree. */
  envelope(offset: number, size: number): void;
  /** A line parsed whole for its entry (its envelope was not at its start). */
  entry(entry: SessionEntry): void;
}

/**
 * Put the entries of the lines of `[from, to)` into `tree`, `to` a line's
 * start, as the scan would have put them.
 *
 * @param source The file.
 * @param from Where the entries start.
 * @param to The first line that may match.
 * @param tree The tree.
 * @param sink The envelope reader, and what each line gave.
 */
export async function treeBefore(
  source: ReaderAt,
  from: number,
  to: number,
  tree: EntryTree,
  sink: TreeSink,
): Promise<void> {
  const env = sink.env;
  const chunk = new Uint8Array(
    Math.max(1, Math.min(READ_BUFFER_BYTES, to - from)),
  );
  const head = new Uint8Array(ENVELOPE_BYTES);
  let headLength = 0;
  let lineStart = from;
  let lastByte = -1; // the line's last byte so far
  let beforeLast = -1; // and the one before it (a "\r" before "\n")
  for (let position = lineStart; position < to;) {
    const n = await source.readAt(
      chunk.subarray(0, Math.min(chunk.length, to - position)),
      position,
    );
    if (n === 0) break;
    const bytes = chunk.subarray(0, n);
    for (let at = 0; at < n;) {
      const lf = bytes.indexOf(_LF, at);
      const stop = lf === -1 ? n : lf;
      if (headLength < ENVELOPE_BYTES && stop > at) {
        const take = Math.min(ENVELOPE_BYTES - headLength, stop - at);
        head.set(bytes.subarray(at, at + take), headLength);
        headLength += take;
      }
      if (stop - at >= 2) beforeLast = bytes[stop - 2]!;
      else if (stop - at === 1) beforeLast = lastByte;
      if (stop > at) lastByte = bytes[stop - 1]!;
      if (lf === -1) break;
      // A whole line: [lineStart, end), its "\r" left out.
      let end = position + lf;
      let last = lastByte;
      if (end > lineStart && lastByte === _CR) {
        end--;
        last = beforeLast;
      }
      const size = end - lineStart;
      if (size > 0 && size <= DEFAULT_MAX_LINE_BYTES && head[0] !== 0) {
        if (last === _CLOSE_BRACE && readEnvelope(head, 0, headLength, env)) {
          tree.addBytes(
            head,
            env.idStart,
            env.idEnd,
            env.parentStart,
            env.parentEnd,
          );
          sink.envelope(lineStart, size);
        } else if (size <= SEARCH_LINE_BYTES) {
          const entry = parseEntryLine(
            lineStart >= position
              ? bytes.subarray(lineStart - position, end - position)
              : await bytesAt(source, lineStart, size),
          );
          if (entry !== undefined) sink.entry(entry);
        }
      }
      lineStart = position + lf + 1;
      headLength = 0;
      lastByte = beforeLast = -1;
      at = lf + 1;
    }
    position += n;
  }
}

/**
 * The bytes of `[offset, offset + size)`, fewer at the end of the file.
 *
 * @param source The file.
 * @param offset Where they start.
 * @param size How many.
 * @returns The bytes read.
 */
export async function bytesAt(
  source: ReaderAt,
  offset: number,
  size: number,
): Promise<Uint8Array> {
  const bytes = new Uint8Array(size);
  return bytes.subarray(0, await readFullAt(source, bytes, offset));
}
