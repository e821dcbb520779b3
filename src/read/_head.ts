/**
 * The prefix of a session file: the title slot and the header in its first
 * bytes, and where its entries start. `listSessions` reads it from the first
 * 4 KiB of every file, `forkSession` from the first 1 MiB of its source.
 *
 * Never exported from `mod.ts`.
 *
 * @module
 */

import type { _FsHandle } from "../fs/_seam.ts";
import { asHeader, type SessionHeader } from "../format/header.ts";
import { parseTitleSlot, type TitleSlot } from "../format/title_slot.ts";

/** The prefix of a session file, where its entries start. */
export interface _Prefix {
  slot?: TitleSlot;
  header: SessionHeader;
  /** Byte offset of line 3 (line 2 for a slot-less file). */
  entriesOffset: number;
  /** Whether the header line ended in "\n" within the bytes. */
  headerTerminated: boolean;
}

/** Why a prefix holds no header, and where the header was expected. */
export interface _PrefixFailure {
  reason: string;
  /** 1-based line. */
  line: number;
  /** Byte offset of that line. */
  offset: number;
}

/** Fills `buffer` from `file`, stopping early only at the end of the file. */
export async function _readFull(
  file: Pick<_FsHandle, "read">,
  buffer: Uint8Array,
): Promise<number> {
  let n = 0;
  while (n < buffer.length) {
    const got = await file.read(buffer.subarray(n));
    if (got === null || got === 0) break;
    n += got;
  }
  return n;
}

/** The shared prefix rule of `parseSessionPrefix` and `forkSession`. */
export function _parsePrefix(bytes: Uint8Array): _Prefix | _PrefixFailure {
  const first = _lineAt(bytes, 0);
  if (first === undefined) {
    return { reason: "the file is empty", line: 1, offset: 0 };
  }
  let slot: TitleSlot | undefined;
  const parsed = parseTitleSlot(first.text);
  if (parsed === undefined) {
    const header = _header(first, bytes.length, 1);
    if ("header" in header) return header;
    // Damage or a non-header on line 1: the header may still be on line 2.
  } else if (parsed.ok) {
    slot = parsed.slot;
  }
  const second = _lineAt(bytes, first.end);
  if (second === undefined || !first.terminated) {
    return _incomplete(bytes.length, 2, first.end);
  }
  const header = _header(second, bytes.length, 2);
  if ("header" in header && slot !== undefined) header.slot = slot;
  return header;
}

const _LF = 0x0a;
/** Lenient, like the loader: a bad byte in a title must not hide the session. */
const _decoder = new TextDecoder("utf-8", { ignoreBOM: true });

interface _PrefixLine {
  text: string;
  offset: number;
  end: number;
  terminated: boolean;
}

function _lineAt(bytes: Uint8Array, offset: number): _PrefixLine | undefined {
  if (offset >= bytes.length) return undefined;
  const nl = bytes.indexOf(_LF, offset);
  const stop = nl === -1 ? bytes.length : nl;
  return {
    text: _decoder.decode(bytes.subarray(offset, stop)),
    offset,
    end: nl === -1 ? bytes.length : nl + 1,
    terminated: nl !== -1,
  };
}

function _incomplete(
  size: number,
  line: number,
  offset: number,
): _PrefixFailure {
  const reason = `no complete header within the first ${size} bytes`;
  return { reason, line, offset };
}

/**
 * The header on `line`. An unterminated line that parses is complete: no
 * strict prefix of a JSON object's text is itself a different JSON value.
 */
function _header(
  line: _PrefixLine,
  size: number,
  at: number,
): _Prefix | _PrefixFailure {
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch {
    // Reported as the reason; the line's content is never echoed.
    return line.terminated
      ? { reason: "the header is not JSON", line: at, offset: line.offset }
      : _incomplete(size, at, line.offset);
  }
  const checked = asHeader(value);
  if ("reason" in checked) return { ...checked, line: at, offset: line.offset };
  return {
    header: checked.header,
    entriesOffset: line.end,
    headerTerminated: line.terminated,
  };
}
