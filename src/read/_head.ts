/**
 * A file's head: the title slot (line 1) and the header (line 2, or line 1
 * of a slot-less legacy file). The one parser of a head, fed lines by the
 * open, the entry stream, the list and the fork.
 *
 * @module
 */

import { SessionSyntaxError } from "../format/errors.ts";
import {
  asHeader,
  headerVersion,
  SESSION_VERSION,
  type SessionHeader,
} from "../format/header.ts";
import {
  parseTitleSlot,
  TITLE_SLOT_BYTES,
  type TitleSlot,
} from "../format/title_slot.ts";
import type { FileHandle } from "../_fs.ts";
import { decodeLine, IssueLog } from "./_decode.ts";
import { type Line, LineSplitter, readLines } from "./lines.ts";

/** What line 1 of a file holds: a 256-byte slot, a slot of another width, something malformed, or nothing of the kind (the header). */
export type SlotState = "ok" | "wrong-width" | "malformed" | "absent";

/** A file's head, once read. */
export interface Head {
  /** The title slot, when line 1 holds a valid one. */
  slot: TitleSlot | undefined;
  /** What line 1 holds. */
  slotState: SlotState;
  /** The header as on disk. */
  header: SessionHeader;
  /** Offset of the first line after the header. */
  bodyStart: number;
  /** Lines the head took (1 or 2). */
  lines: number;
}

const _lenient = new TextDecoder("utf-8", { ignoreBOM: true });
const _BOM = new Uint8Array([0xef, 0xbb, 0xbf]);

function _hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === _BOM[0] && bytes[1] === _BOM[1] &&
    bytes[2] === _BOM[2];
}

/**
 * The longest head a file can have: a slot and a header each within this
 * many bytes (a header is a few hundred bytes; omp's with extra workspace
 * roots a few kilobytes). Longer first lines are damage, not a head.
 */
export const HEAD_LINE_MAX_BYTES = 1 << 20;

/**
 * Reads a head from lines, fed one at a time. Line 1 is a slot, a header (a
 * slot-less legacy file), or damage (reported; the header is then expected
 * on line 2).
 */
export class HeadReader {
  #slot: TitleSlot | undefined;
  #slotState: SlotState = "absent";
  #head: Head | undefined;
  readonly #name: string;
  readonly #log: IssueLog;

  /**
   * @param name The file's path or a name for the stream (used in errors).
   * @param log Where damage goes.
   */
  constructor(name: string, log: IssueLog) {
    this.#name = name;
    this.#log = log;
  }

  /** The head, once the header is read. */
  get head(): Head | undefined {
    return this.#head;
  }

  /** The slot read so far (before the header, too). */
  get slot(): TitleSlot | undefined {
    return this.#slot;
  }

  /**
   * Feed a line; true once the header has been read (this line or an
   * earlier one), false while the head is not complete.
   *
   * @throws {SessionSyntaxError} When the header is missing or malformed.
   */
  take(line: Line): boolean {
    if (this.#head !== undefined) return true;
    // Bounded here, not only by the splitter: the windowed open's head comes
    // from raw bytes, and the full read's line 2 has the body's limit.
    if (!line.nul && line.length > HEAD_LINE_MAX_BYTES) {
      line = { ...line, bytes: undefined, oversized: true };
    }
    if (line.index !== 0) return this.#takeHeader(line);
    const bytes = line.bytes ?? new Uint8Array(0);
    const bom = _hasBom(bytes);
    if (bom) line = { ...line, bytes: bytes.subarray(_BOM.length) };
    const parsed = parseTitleSlot(_lenient.decode(line.bytes ?? bytes));
    if (parsed === undefined) return this.#takeHeader(line);
    if (!parsed.ok) {
      this.#slotState = "malformed";
      this.#log.add(
        "title-slot",
        1,
        0,
        `the title slot was ignored: ${parsed.reason}`,
      );
      return false;
    }
    this.#slot = parsed.slot;
    // The width on disk: a BOM or a CRLF line end counts.
    const width = line.size;
    this.#slotState = width === TITLE_SLOT_BYTES ? "ok" : "wrong-width";
    if (bom || width !== TITLE_SLOT_BYTES) {
      const why = bom
        ? "line 1 starts with a UTF-8 byte order mark (skipped)"
        : `the title slot is ${width} bytes, not ${TITLE_SLOT_BYTES}`;
      this.#log.add(
        "title-slot",
        1,
        0,
        `${why}: the slot cannot be rewritten in place (a rename rewrites the file; an omp rename would damage it)`,
      );
    }
    return false;
  }

  /**
   * The head, or the error for lines that ended before a header.
   *
   * @param lines Lines fed.
   * @param bytes Bytes those lines took.
   * @throws {SessionSyntaxError} When no header was read.
   */
  finish(lines: number, bytes: number): Head {
    if (this.#head !== undefined) return this.#head;
    throw new SessionSyntaxError(
      lines === 0 ? "the file is empty" : "the header is missing",
      { path: this.#name, line: lines + 1, offset: bytes },
    );
  }

  #takeHeader(line: Line): boolean {
    const at = line.index + 1;
    const where = { path: this.#name, line: at, offset: line.offset };
    if (at > 2) throw new SessionSyntaxError("the header is missing", where);
    if (line.oversized === true && at === 2) {
      throw new SessionSyntaxError(
        `the header is longer than a header may be (${HEAD_LINE_MAX_BYTES} bytes) or than the loader's line limit`,
        where,
      );
    }
    const value = decodeLine(line, this.#log);
    if (value === undefined && at === 1) {
      this.#slotState = "malformed"; // damage on line 1: try line 2
      return false;
    }
    const checked = value === undefined
      ? { reason: "the header is not JSON" }
      : asHeader(value);
    if ("reason" in checked) {
      if (at === 1) {
        this.#slotState = "malformed";
        this.#log.add(
          "title-slot",
          1,
          0,
          "line 1 is neither a title slot nor a header and was ignored",
        );
        return false;
      }
      throw new SessionSyntaxError(checked.reason, where);
    }
    const header = checked.header;
    if (headerVersion(header) > SESSION_VERSION) {
      this.#log.add(
        "future-version",
        at,
        line.offset,
        `the header says version ${header.version}, newer than ${SESSION_VERSION}: read as version ${SESSION_VERSION}`,
      );
    }
    this.#head = {
      slot: this.#slot,
      slotState: this.#slotState,
      header,
      bodyStart: line.offset + line.size,
      lines: at,
    };
    return true;
  }
}

/** Options for {@linkcode parseHead}. */
export interface ParseHeadOptions {
  /** The file's path (used in errors). */
  name: string;
  /** Whether `bytes` is the whole file: a last line without "\n" is then complete. */
  complete: boolean;
  /** Where damage goes; a throwaway log when absent. */
  log?: IssueLog;
}

/**
 * Read a head from a file's first bytes (a list's 4 KiB, a fork's first
 * read). A line cut by the end of `bytes` when more of the file follows
 * means no complete header was found.
 *
 * @param bytes The first bytes of the file.
 * @param options The name, whether `bytes` is the whole file, the log.
 * @returns The head.
 * @throws {SessionSyntaxError} When no header is found in `bytes`.
 */
export function parseHead(bytes: Uint8Array, options: ParseHeadOptions): Head {
  const head = tryParseHead(bytes, options);
  if (head !== undefined) return head;
  throw new SessionSyntaxError(
    `no complete header within the first ${bytes.length} bytes`,
    { path: options.name, line: 1, offset: 0 },
  );
}

/**
 * {@linkcode parseHead}, but undefined where more bytes are needed: the
 * head is cut by the end of `bytes` and `bytes` is not the whole file.
 *
 * @param bytes The first bytes of the file.
 * @param options The name, whether `bytes` is the whole file, the log.
 * @returns The head, or undefined.
 * @throws {SessionSyntaxError} When the bytes show there is no header.
 */
export function tryParseHead(
  bytes: Uint8Array,
  options: ParseHeadOptions,
): Head | undefined {
  const reader = new HeadReader(options.name, options.log ?? new IssueLog());
  const splitter = new LineSplitter({ maxLineBytes: HEAD_LINE_MAX_BYTES });
  const lines = splitter.push(bytes);
  const last = options.complete ? splitter.end() : undefined;
  if (last !== undefined) lines.push(last);
  let end = 0;
  for (const line of lines) {
    if (reader.take(line)) return reader.head!;
    end = line.offset + line.size;
  }
  // Lines cut by the end of the bytes, or more lines to come: not yet known.
  if (!options.complete) return undefined;
  return reader.finish(lines.length, end);
}

/** Bytes per read of {@linkcode readHead}: a slot and a header fit in far less. */
const _HEAD_READ_BYTES = 64 << 10;

/**
 * Read the head of an open file, for a reader that then goes its own way
 * (the follow, the lineage): its first lines, until the header.
 *
 * @param file The open file (not closed).
 * @param name The file's path (used in errors).
 * @param log Where damage in the head goes; a throwaway log when absent.
 * @returns The head.
 * @throws {SessionSyntaxError} When the file has no readable header.
 */
export async function readHead(
  file: FileHandle,
  name: string,
  log: IssueLog = new IssueLog(),
): Promise<Head> {
  const reader = new HeadReader(name, log);
  let lines = 0;
  let end = 0;
  const options = {
    maxLineBytes: HEAD_LINE_MAX_BYTES,
    readBytes: _HEAD_READ_BYTES,
  };
  for await (const line of readLines(file, options)) {
    if (reader.take(line)) return reader.head!;
    lines++;
    end = line.offset + line.size;
  }
  return reader.finish(lines, end);
}
