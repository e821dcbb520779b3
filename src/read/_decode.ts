/**
 * Decoding one line of a session file, and the log of the damage read
 * around: blank, NUL-filled, oversized, invalid UTF-8, torn or not JSON.
 *
 * @module
 */

import type { LoadIssue, LoadIssueKind } from "../format/issues.ts";
import { EnvelopeAt, readEnvelope } from "./_envelope.ts";
import { firstValueEnd } from "./_first_value.ts";
import type { Line } from "./_line.ts";

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
    const glued = _firstOfGlued(text);
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
  const bytes = line.bytes;
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

function _where(line: Line): string {
  const at = line.index + 1; // 0 when read backwards (the number is unknown)
  return at > 0 ? `line ${at}` : `the line at byte ${line.offset}`;
}

/** The line's text, or undefined (reported) for a line with nothing to parse. */
function _text(line: Line, log: IssueLog): string | undefined {
  const at = line.index + 1;
  if (line.oversized === true) {
    log.add(
      "oversized-line",
      at,
      line.offset,
      `${_where(line)} is longer than the loader's limit and was skipped`,
    );
    return undefined;
  }
  const bytes = line.bytes;
  if (line.nul === true || (bytes.length > 0 && bytes[0] === 0)) {
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
function _firstOfGlued(text: string): unknown {
  const end = firstValueEnd(text);
  if (end < 0 || end >= text.length) return undefined;
  const rest = text.charCodeAt(end);
  if (rest !== 0x7b && rest !== 0x5b) return undefined; // not a second value
  try {
    return JSON.parse(text.slice(0, end));
  } catch {
    return undefined;
  }
}

/**
 * Whether bytes are all 0x00, or empty: the NUL-filled tail that a crash
 * leaves on some filesystems, which is damage, not a line.
 *
 * @param bytes The bytes, usually a final line's.
 * @returns True when every byte is 0.
 *
 * @example Spotting a NUL-filled tail
 * ```ts
 * import { isNulFill } from "./_decode.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isNulFill(new Uint8Array(4096)), true);
 * assert.equal(isNulFill(new TextEncoder().encode('{"a":1}')), false);
 * ```
 */
export function isNulFill(bytes: Uint8Array): boolean {
  const end = bytes.length;
  // Bytes up to a 4-byte boundary, then whole 32-bit words, then the rest.
  let i = Math.min(end, (4 - (bytes.byteOffset & 3)) & 3);
  for (let j = 0; j < i; j++) if (bytes[j] !== 0) return false;
  const words = (end - i) >>> 2;
  if (words > 0) {
    const view = new Int32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let w = 0; w < words; w++) if (view[w] !== 0) return false;
    i += words * 4;
  }
  for (; i < end; i++) if (bytes[i] !== 0) return false;
  return true;
}
