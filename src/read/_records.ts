/**
 * Turning lines into a session: the head, then the entries, and a report of
 * every damaged line read around.
 *
 * @module
 */

import type { ContextBase } from "../context/context.ts";
import type { SessionEntry } from "../format/entries.ts";
import {
  headerVersion,
  SESSION_VERSION,
  type SessionHeader,
} from "../format/header.ts";
import type { LoadIssue } from "../format/issues.ts";
import { recordMigrator } from "../format/_migrate.ts";
import type { TitleSlot } from "../format/title_slot.ts";
import { decodeEntry, IssueLog } from "./_decode.ts";
import type { SessionRecord } from "../format/records.ts";
import { HeadReader, type SlotState } from "./_head.ts";
import type { Line } from "./lines.ts";
import type { WindowRecord } from "./_resume.ts";
import type { IdFlags } from "./_id_set.ts";

/** What a read of a session file or stream produced. */
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
  /** Lines looked at: the title slot and header lines included. */
  seen: number;
  /** Distinct bytes of the file (or stream) read: each byte once, at most `size`. */
  bytes: number;
  /** The file's size when read (for a stream, the bytes it gave). */
  size: number;
  /**
   * Whether the windowed read kept only the window (entries off it are not
   * in memory, even when every byte was read).
   */
  windowOnly: boolean;
  /** The leaf, when the read settled it (the windowed read does). */
  leafId?: string | null;
  /** What the windowed read learned about the part it did not keep. */
  base?: ContextBase;
  /**
   * What the session index records of the file, when the read saw all of
   * it and was asked to keep it (`keepRecord`).
   */
  record?: WindowRecord;
  /**
   * Every id in the file, when a windowed read saw all of it: what a
   * session checks a new id against instead of scanning the file.
   */
  fileIds?: IdFlags;
  /** The end of the last whole line `record` covers. */
  recordEnd?: number;
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
  const head = new HeadReader(name, log);
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
    if (head.head === undefined) {
      const hadSlot = head.slot !== undefined;
      if (!head.take(line)) {
        if (!hadSlot && head.slot !== undefined) {
          yield { kind: "title", value: head.slot, ...where };
        }
        continue;
      }
      const { header, slotState } = head.head!;
      migrate = recordMigrator(headerVersion(header));
      if (state !== undefined) state.slotState = slotState;
      record = 1;
      yield { kind: "header", value: header, ...where };
      continue;
    }
    const entry = decodeEntry(
      line,
      log,
      migrate === undefined
        ? undefined
        : (value) => migrate!({ index: record++, value }),
    );
    if (entry === undefined) continue;
    if (byId.has(entry.id)) {
      log.add(
        "duplicate-id",
        at,
        line.offset,
        `line ${at} repeats an earlier entry's id; the later entry wins`,
      );
    }
    byId.add(entry.id);
    yield { kind: "entry", value: entry, ...where };
  }
  head.finish(seen, end);
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
    size: bytes,
    windowOnly: false,
  };
}
