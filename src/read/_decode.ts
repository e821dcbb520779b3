/**
 * The decoder: one line of a session file to a JSON value, or to an entry,
 * and the log of the damage read around (blank, NUL-filled, oversized,
 * invalid UTF-8, torn, glued, not JSON, not an entry). Every reader of
 * entries (the window walk, the whole read, the stream, the tree, search,
 * usage, the index, the follow) decodes through it, so a damaged line reads
 * the same everywhere.
 *
 * @module
 */

import { asEntry, type SessionEntry } from "../format/entries.ts";
import type { LoadIssue, LoadIssueKind } from "../format/issues.ts";
import { EnvelopeAt, readEnvelope } from "./_envelope.ts";
import { firstValueEnd } from "./_json_prefix.ts";
import type { Line } from "./lines.ts";

const _strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function _isValidUtf8(bytes: Uint8Array): boolean {
  try {
    _strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
const _lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Collects issues and hands each to an optional callback.
 */
export class IssueLog {
  readonly issues: LoadIssue[] = [];
  readonly #onIssue: ((issue: LoadIssue) => void) | undefined;

  constructor(onIssue?: (issue: LoadIssue) => void) {
    this.#onIssue = onIssue;
  }

  add(
    kind: LoadIssueKind,
    line: number,
    offset: number,
    message: string,
  ): void {
    const issue = { kind, line, offset, message };
    this.issues.push(issue);
    this.#onIssue?.(issue);
  }

  /** Hand issues collected elsewhere to this log, in order. */
  replay(issues: Iterable<LoadIssue>): void {
    for (const i of issues) this.add(i.kind, i.line, i.offset, i.message);
  }
}

/**
 * Decode and parse one line, reporting damage: blank, NUL-filled, oversized,
 * invalid UTF-8, torn or not JSON. Returns undefined for a line to skip.
 *
 * A line without its "\n" can only be the last one: if it does not parse,
 * it is a torn append. A line holding two JSON values glued together (what
 * omp leaves when it appends after a line that lacks its newline) gives its
 * first value, as omp does, and is reported.
 *
 * @param line The line.
 * @param log Where damage goes.
 * @returns The parsed value, or undefined.
 */
export function decodeLine(line: Line, log: IssueLog): unknown {
  const text = _text(line, log);
  if (text === undefined) return undefined;
  const at = line.index + 1;
  try {
    const value = JSON.parse(text);
    if (!line.terminated) {
      log.add(
        "missing-newline",
        at,
        line.offset,
        `${_where(line)} has no final newline`,
      );
    }
    return value;
  } catch {
    const glued = _firstOfGlued(line.bytes ?? _EMPTY);
    if (glued !== undefined) {
      log.add(
        "glued-line",
        at,
        line.offset,
        `${
          _where(line)
        } holds a second JSON value after the first; the first was kept, the rest skipped, as omp does`,
      );
      return glued;
    }
    if (!line.terminated) {
      log.add(
        "torn-line",
        at,
        line.offset,
        `${_where(line)} is torn (an append cut short) and was skipped`,
      );
    } else {
      log.add(
        "not-json",
        at,
        line.offset,
        `${_where(line)} is not JSON and was skipped`,
      );
    }
    return undefined;
  }
}

/**
 * {@linkcode decodeLine} for an entry line, which a damaged line can still
 * hold a place in the tree for: a complete line (ending in "\n" and in `}`)
 * that is not JSON but starts with an intact envelope keeps its type, id and
 * parent, so its children stay reachable and the path goes on past it (the
 * windowed read, which trusts such lines before the window without parsing
 * them, sees the same tree). It is reported as `damaged-entry`.
 *
 * @param line The line.
 * @param log Where damage goes.
 * @returns The parsed value, the envelope of a damaged entry, or undefined.
 */
export function decodeEntryLine(line: Line, log: IssueLog): unknown {
  try {
    return _decodeEntryLine(line, log);
  } finally {
    _envelope.release();
  }
}

function _decodeEntryLine(line: Line, log: IssueLog): unknown {
  const bytes = line.bytes ?? _EMPTY;
  const salvageable = line.terminated && bytes.length > 0 &&
    bytes[bytes.length - 1] === 0x7d &&
    readEnvelope(bytes, 0, bytes.length, _envelope);
  if (!salvageable) return decodeLine(line, log);
  const quiet = new IssueLog();
  const value = decodeLine(line, quiet);
  if (value !== undefined) {
    log.replay(quiet.issues);
    return value;
  }
  log.replay(quiet.issues.filter((i) => i.kind !== "not-json"));
  log.add(
    "damaged-entry",
    line.index + 1,
    line.offset,
    `${
      _where(line)
    } is not JSON; its envelope (type, id, parent) was kept so the entries after it stay on the path`,
  );
  return { ..._envelope.envelope(), timestamp: "" };
}

const _envelope = new EnvelopeAt();
const _EMPTY = new Uint8Array(0);

/**
 * A whole line's content (read by itself, its "\n" found) as the decoder
 * takes a line: terminated, kept whole, its number unknown.
 *
 * @param bytes The content, without its end of line.
 * @param offset Its offset in the file.
 * @returns The line.
 */
export function wholeLine(bytes: Uint8Array, offset = 0): Line {
  return {
    offset,
    size: bytes.length + 1,
    length: bytes.length,
    index: -1,
    terminated: true,
    head: bytes,
    bytes,
    oversized: false,
    nul: false,
  };
}

function _where(line: Line): string {
  const at = line.index + 1; // 0 when read backwards (the number is unknown)
  return at > 0 ? `line ${at}` : `the line at byte ${line.offset}`;
}

/** The line's text, or undefined (reported) for a line with nothing to parse. */
function _text(line: Line, log: IssueLog): string | undefined {
  const at = line.index + 1;
  if (line.oversized) {
    log.add(
      "oversized-line",
      at,
      line.offset,
      `${_where(line)} is longer than the loader's limit and was skipped`,
    );
    return undefined;
  }
  const bytes = line.bytes ?? _EMPTY;
  if (line.nul || (bytes.length > 0 && bytes[0] === 0)) {
    log.add(
      "nul-fill",
      at,
      line.offset,
      `${
        _where(line)
      } holds ${line.size} bytes starting with NUL (a crash left them)`,
    );
    return undefined;
  }
  if (bytes.length === 0) {
    if (line.terminated) {
      log.add("blank-line", at, line.offset, `${_where(line)} is blank`);
    }
    return undefined;
  }
  // The lenient decoder is several times faster than the fatal one; a
  // U+FFFD in its output is either invalid bytes or a real U+FFFD, which
  // only the strict decoder can tell apart.
  const text = _lenient.decode(bytes);
  if (text.includes("\uFFFD") && !_isValidUtf8(bytes)) {
    log.add(
      "invalid-utf8",
      at,
      line.offset,
      `${_where(line)} is not valid UTF-8; bad bytes read as U+FFFD`,
    );
  }
  return text;
}

/** The first value of two glued together, or undefined. */
function _firstOfGlued(bytes: Uint8Array): unknown {
  const end = firstValueEnd(bytes);
  if (end < 0 || end >= bytes.length) return undefined;
  const rest = bytes[end];
  if (rest !== 0x7b && rest !== 0x5b) return undefined; // not a second value
  try {
    return JSON.parse(_lenient.decode(bytes.subarray(0, end)));
  } catch {
    return undefined;
  }
}

/**
 * The entry a line holds, or undefined (the damage reported to `log`): the
 * line decoded ({@linkcode decodeEntryLine}), checked to be an object,
 * migrated when the file is older than version 3, and checked to be an entry.
 *
 * @param line The line, its content kept (`bytes`) unless it is damaged.
 * @param log Where damage goes.
 * @param migrate The migration of a version 1 or 2 file's records (given
 * each record in file order), if any.
 * @returns The entry, or undefined.
 */
export function decodeEntry(
  line: Line,
  log: IssueLog,
  migrate?: (record: Record<string, unknown>) => void,
): SessionEntry | undefined {
  const value = decodeEntryLine(line, log);
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    log.add(
      "not-an-entry",
      line.index + 1,
      line.offset,
      `${_where(line)} is not a JSON object and was skipped`,
    );
    return undefined;
  }
  migrate?.(value as Record<string, unknown>);
  const checked = asEntry(value);
  if ("reason" in checked) {
    log.add(
      "not-an-entry",
      line.index + 1,
      line.offset,
      `${_where(line)} was skipped: ${checked.reason}`,
    );
    return undefined;
  }
  return checked.entry;
}
