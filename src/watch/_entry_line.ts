/**
 * One complete entry line to an entry, as the loader reads it: decoded
 * with damage reported, checked, and migrated from version 2.
 *
 * @module
 */

import { asEntry, type SessionEntry } from "../format/entries.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { decodeEntryLine, type IssueLog } from "../read/_decode.ts";

/** A line as the decoder takes it. */
export type EntryLine = Parameters<typeof decodeEntryLine>[0];

/** The version below which a file cannot be followed: its ids are minted from its start. */
const _NO_IDS = 2;

/**
 * The entry a line holds, or undefined (the damage reported to `log`).
 *
 * @param line The line.
 * @param log Where damage goes.
 * @param migrate The header version's migration, if any.
 * @returns The entry.
 */
export function entryOfLine(
  line: EntryLine,
  log: IssueLog,
  migrate: ReturnType<typeof recordMigrator>,
): SessionEntry | undefined {
  const value = decodeEntryLine(line, log);
  if (value === undefined) return undefined;
  const where = `the line at byte ${line.offset}`;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    log.add(
      "not-an-entry",
      0,
      line.offset,
      `${where} is not a JSON object and was skipped`,
    );
    return undefined;
  }
  migrate?.({ index: 0, value: value as Record<string, unknown> });
  const checked = asEntry(value);
  if ("reason" in checked) {
    log.add(
      "not-an-entry",
      0,
      line.offset,
      `${where} was skipped: ${checked.reason}`,
    );
    return undefined;
  }
  return checked.entry;
}

/**
 * The migration for a file's version, for reading lines one at a time.
 *
 * @param version The header's version.
 * @param action What is being done, for the error: `Cannot follow "a.jsonl"`.
 * @returns The migration (version 2), or undefined (version 3).
 * @throws {Error} For a version 1 file: its ids are minted in file
 * order from its first entry, so a line alone cannot be given one.
 */
export function lineMigrator(
  version: number,
  action: string,
): ReturnType<typeof recordMigrator> {
  if (version < _NO_IDS) {
    throw new Error(
      `${action}: a version ${version} file has no entry ids (fork it to read it entry by entry)`,
    );
  }
  return recordMigrator(version);
}

/**
 * A complete line (ending in "\n") of `bytes[start, end)`, its "\r" of a
 * "\r\n" left out.
 *
 * @param bytes The bytes.
 * @param start The line's first byte.
 * @param end The index of its "\n".
 * @param offset The file offset of `bytes[start]`.
 * @returns The line.
 */
export function completeLine(
  bytes: Uint8Array,
  start: number,
  end: number,
  offset: number,
): EntryLine {
  const content = end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
  return {
    bytes: bytes.subarray(start, content),
    offset,
    index: -1,
    size: end + 1 - start,
    terminated: true,
    oversized: false,
    nul: false,
  };
}
