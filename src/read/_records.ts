/**
 * Turning lines into a session: the title slot, the header, the entries, and
 * a report of every damaged line read around.
 *
 * @module
 */

import type { WindowPrefix } from "../context/context.ts";
import { asEntry, type SessionEntry } from "../format/entries.ts";
import { SessionSyntaxError } from "../format/errors.ts";
import {
  asHeader,
  headerVersion,
  recordMigrator,
  SESSION_VERSION,
  type SessionHeader,
} from "../format/header.ts";
import { isNulFill, type Line } from "./lines.ts";
import type { LoadIssue, LoadIssueKind } from "../format/issues.ts";
import {
  parseTitleSlot,
  TITLE_SLOT_BYTES,
  type TitleSlot,
} from "../format/title_slot.ts";

/** What line 1 of a file holds. */
export type SlotState = "ok" | "wrong-width" | "malformed" | "absent";

/** What the loader read from a session file. */
export interface LoadedSession {
  /** The title slot, when line 1 holds a valid one. */
  slot: TitleSlot | undefined;
  /** What line 1 holds. */
  slotState: SlotState;
  /** The header as on disk (version 1 and 2 headers are not rewritten). */
  header: SessionHeader;
  /** The entries kept, in file order (migrated when the file is older than version 3). */
  entries: SessionEntry[];
  /** The same entries by id (a later duplicate wins). */
  byId: Map<string, SessionEntry>;
  /** Damage read around. */
  issues: LoadIssue[];
  /** Whether the entries were migrated from version 1 or 2. */
  migrated: boolean;
  /** Lines looked at. */
  seen: number;
  /** Bytes read. */
  bytes: number;
  /** Whether the windowed loader kept only the window. */
  windowed: boolean;
  /** The leaf, when the loader settled it (the windowed loader does). */
  leafId?: string | null;
  /** What the windowed loader learned about the part it did not keep. */
  window?: WindowPrefix;
}

/** A decoded line and its position. */
export interface DecodedLine {
  value: unknown;
  line: number;
  offset: number;
}

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
 * it is a torn append.
 *
 * @param line The line.
 * @param log Where damage goes.
 * @returns The parsed value, or undefined.
 */
export function decodeLine(line: Line, log: IssueLog): unknown {
  const at = line.index + 1; // 0 when read backwards (the number is unknown)
  const where = at > 0 ? `line ${at}` : `the line at byte ${line.offset}`;
  if (line.oversized === true) {
    log.add(
      "oversized-line",
      at,
      line.offset,
      `${where} is longer than the loader's limit and was skipped`,
    );
    return undefined;
  }
  const bytes = line.bytes;
  if (bytes.length === 0) {
    if (line.terminated) {
      log.add("blank-line", at, line.offset, `${where} is blank`);
    }
    return undefined;
  }
  if (isNulFill(bytes)) {
    log.add(
      "nul-fill",
      at,
      line.offset,
      `${where} holds ${bytes.length} NUL bytes (a crash left them)`,
    );
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
      `${where} is not valid UTF-8; bad bytes read as U+FFFD`,
    );
  }
  try {
    const value = JSON.parse(text);
    if (!line.terminated) {
      log.add(
        "missing-newline",
        at,
        line.offset,
        `${where} has no final newline`,
      );
    }
    return value;
  } catch {
    if (!line.terminated) {
      log.add(
        "torn-line",
        at,
        line.offset,
        `${where} is torn (an append cut short) and was skipped`,
      );
    } else {log.add(
        "not-json",
        at,
        line.offset,
        `${where} is not JSON and was skipped`,
      );}
    return undefined;
  }
}

/**
 * Read the title slot and the header from the first lines.
 *
 * Line 1 is a slot, a header (a slot-less legacy file), or damage (reported;
 * the header is then expected on line 2).
 */
export class PrefixReader {
  slot: TitleSlot | undefined;
  header: SessionHeader | undefined;
  /** What line 1 holds: a 256-byte slot, a slot of another width, something malformed, or the header. */
  line1: SlotState = "absent";
  readonly #name: string;
  readonly #log: IssueLog;

  constructor(name: string, log: IssueLog) {
    this.#name = name;
    this.#log = log;
  }

  /**
   * Feed a line; returns true once the header has been read (this line or an
   * earlier one), false while the prefix is not complete.
   */
  take(line: Line): boolean {
    if (this.header !== undefined) return true;
    if (line.index === 0) {
      const text = _lenient.decode(line.bytes);
      const parsed = parseTitleSlot(text);
      this.line1 = parsed === undefined
        ? "absent"
        : !parsed.ok
        ? "malformed"
        : parsed.width === TITLE_SLOT_BYTES
        ? "ok"
        : "wrong-width";
      if (parsed === undefined) {
        return this.#takeHeader(line);
      }
      if (parsed.ok) {
        this.slot = parsed.slot;
        if (parsed.width !== TITLE_SLOT_BYTES) {
          this.#log.add(
            "title-slot",
            1,
            0,
            `the title slot is ${parsed.width} bytes, not ${TITLE_SLOT_BYTES}: an omp rename would overwrite the header`,
          );
        }
      } else {
        this.#log.add(
          "title-slot",
          1,
          0,
          `the title slot was ignored: ${parsed.reason}`,
        );
      }
      return false;
    }
    return this.#takeHeader(line);
  }

  #takeHeader(line: Line): boolean {
    const at = line.index + 1;
    if (at > 2) {
      throw new SessionSyntaxError("the header is missing", {
        path: this.#name,
        line: at,
        offset: line.offset,
      });
    }
    const value = decodeLine(line, this.#log);
    if (value === undefined && at === 1) {
      this.line1 = "malformed"; // damage on line 1: try line 2
      return false;
    }
    const checked = asHeader(value);
    if ("reason" in checked) {
      if (at === 1) {
        this.line1 = "malformed";
        this.#log.add(
          "title-slot",
          1,
          0,
          "line 1 is neither a title slot nor a header and was ignored",
        );
        return false;
      }
      throw new SessionSyntaxError(checked.reason, {
        path: this.#name,
        line: at,
        offset: line.offset,
      });
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
    this.header = header;
    return true;
  }

  /** The header, or the error for a file that ended before one. */
  finish(lines: number, bytes: number): SessionHeader {
    if (this.header !== undefined) return this.header;
    throw new SessionSyntaxError(
      lines === 0 ? "the file is empty" : "the header is missing",
      {
        path: this.#name,
        line: lines + 1,
        offset: bytes,
      },
    );
  }
}

/** One parsed line of a session file, in file order. */
export type SessionRecord =
  | SessionRecordOf<"title", TitleSlot>
  | SessionRecordOf<"header", SessionHeader>
  | SessionRecordOf<"entry", SessionEntry>;

/** A parsed line of one kind, and where it sits. */
export interface SessionRecordOf<K extends string, V> {
  /** `title` (line 1), `header`, or `entry`. */
  kind: K;
  /** The parsed line (entries of version 1 and 2 files migrated). */
  value: V;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line. */
  offset: number;
  /** Bytes the line occupies, its line ending included. */
  size: number;
}

/**
 * Parse lines into records: the title slot, the header, then each entry
 * (migrated from version 1 or 2 on the fly), reading around damage and
 * reporting it to `log`.
 *
 * @param lines The lines, in order.
 * @param name The file's path or a name for the stream (used in errors).
 * @param log Where damage goes.
 * @returns The records, in file order.
 * @throws {SessionSyntaxError} When the header is missing or malformed.
 */
export async function* sessionRecords(
  lines: AsyncIterable<Line>,
  name: string,
  log: IssueLog,
  state?: { slotState: SlotState },
): AsyncGenerator<SessionRecord> {
  const prefix = new PrefixReader(name, log);
  const byId = new Set<string>();
  let migrate: ReturnType<typeof recordMigrator>;
  let seen = 0;
  let end = 0;
  let record = 0;
  for await (const line of lines) {
    seen++;
    end = line.offset + line.size;
    const at = line.index + 1;
    const where = { line: at, offset: line.offset, size: line.size };
    if (prefix.header === undefined) {
      const hadSlot = prefix.slot !== undefined;
      if (!prefix.take(line)) {
        if (!hadSlot && prefix.slot !== undefined) {
          yield { kind: "title", value: prefix.slot, ...where };
        }
        continue;
      }
      migrate = recordMigrator(headerVersion(prefix.header!));
      if (state !== undefined) state.slotState = prefix.line1;
      record = 1;
      yield { kind: "header", value: prefix.header!, ...where };
      continue;
    }
    const value = decodeLine(line, log);
    if (value === undefined) continue;
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      log.add(
        "not-an-entry",
        at,
        line.offset,
        `line ${at} is not a JSON object and was skipped`,
      );
      continue;
    }
    migrate?.({ index: record++, value: value as Record<string, unknown> });
    const checked = asEntry(value);
    if ("reason" in checked) {
      log.add(
        "not-an-entry",
        at,
        line.offset,
        `line ${at} was skipped: ${checked.reason}`,
      );
      continue;
    }
    if (byId.has(checked.entry.id)) {
      log.add(
        "duplicate-id",
        at,
        line.offset,
        `line ${at} repeats an earlier entry's id; the later entry wins`,
      );
    }
    byId.add(checked.entry.id);
    yield { kind: "entry", value: checked.entry, ...where };
  }
  prefix.finish(seen, end);
}

/**
 * Load every line of a session: the whole-file path, used for streams that
 * cannot be read backwards and for version 1 and 2 files.
 *
 * @param lines The lines, in order.
 * @param name The file's path or a name for the stream (used in errors).
 * @param onIssue Called with each piece of damage as it is found.
 * @returns The loaded session.
 * @throws {SessionSyntaxError} When the header is missing or malformed.
 */
export async function loadAll(
  lines: AsyncIterable<Line>,
  name: string,
  onIssue?: (issue: LoadIssue) => void,
): Promise<LoadedSession> {
  const log = new IssueLog(onIssue);
  let slot: TitleSlot | undefined;
  let header: SessionHeader | undefined;
  const entries: SessionEntry[] = [];
  const byId = new Map<string, SessionEntry>();
  let seen = 0;
  let bytes = 0;
  const counted = (async function* (): AsyncGenerator<Line> {
    for await (const line of lines) {
      seen++;
      bytes = line.offset + line.size;
      yield line;
    }
  })();
  const state: { slotState: SlotState } = { slotState: "absent" };
  for await (const r of sessionRecords(counted, name, log, state)) {
    if (r.kind === "title") slot = r.value;
    else if (r.kind === "header") header = r.value;
    else {
      entries.push(r.value);
      byId.set(r.value.id, r.value);
    }
  }
  return {
    slot,
    slotState: state.slotState,
    header: header!,
    entries,
    byId,
    issues: log.issues,
    migrated: header !== undefined && headerVersion(header) < SESSION_VERSION,
    seen,
    bytes,
    windowed: false,
  };
}
