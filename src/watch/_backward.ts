/**
 * Reading a session file from its end: where its last complete line ends,
 * its last complete entries, the line of a given entry.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import type { FsHandle } from "../fs/_seam.ts";
import { fileReaderAt } from "../fs/_read.ts";
import { BackwardLines } from "../read/_backward_lines.ts";
import { IssueLog } from "../read/_decode.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import { type EntryLine, entryOfLine } from "./_entry_line.ts";
import type { recordMigrator } from "../format/_migrate.ts";

/** Lines longer than this are reported and skipped, as the loader does. */
export const MAX_LINE_BYTES = 64 << 20;

/**
 * The end of the last line that ends in "\n", at or after `floor` (the
 * body's start): where a follower starting at the end begins, so a line
 * being written now is read once it is complete.
 *
 * @param file The file.
 * @param size Its size.
 * @param floor The first byte after the head.
 * @returns The offset.
 */
export async function lastLineEnd(
  file: FsHandle,
  size: number,
  floor: number,
): Promise<number> {
  const lines = new BackwardLines(fileReaderAt(file, size), floor);
  if (!(await lines.prev())) return floor;
  return lines.terminated ? lines.lineEnd : lines.start;
}

/** What {@linkcode lastEntries} read. */
export interface LastEntriesRead {
  /** The entries, in file order. */
  entries: SessionEntry[];
  /** The end of the last complete line: where following goes on. */
  end: number;
}

/**
 * The last `count` entries of complete lines, read backwards: the cost is
 * the bytes of those lines (and of the damaged lines among them), not the
 * file's. A last line without its "\n" is being written: it is left for
 * later, and `end` is its start.
 *
 * @param file The file.
 * @param size Its size.
 * @param floor The first byte after the head.
 * @param count How many entries.
 * @param log Where damage goes.
 * @param migrate The header version's migration, if any.
 * @returns The entries and where they end.
 */
export async function lastEntries(
  file: FsHandle,
  size: number,
  floor: number,
  count: number,
  log: IssueLog,
  migrate: ReturnType<typeof recordMigrator>,
): Promise<LastEntriesRead> {
  const lines = new BackwardLines(fileReaderAt(file, size), floor);
  if (!(await lines.prev())) return { entries: [], end: floor };
  const end = lines.terminated ? lines.lineEnd : lines.start;
  const out: SessionEntry[] = [];
  for (let usable = lines.terminated; out.length < count; usable = true) {
    if (usable) {
      const line = await lines.line(MAX_LINE_BYTES);
      const entry = entryOfLine(line as EntryLine, log, migrate);
      if (entry !== undefined) out.push(entry);
    }
    if (out.length < count && !(await lines.prev())) break;
  }
  return { entries: out.reverse(), end };
}

/**
 * The end of the last complete line holding entry `id`, or -1: where a
 * follower that last read that entry goes on after the file was cut or
 * replaced. Lines with the envelope first are matched by their first
 * bytes; the others (omp's `custom` lines) are parsed when small.
 *
 * @param file The file.
 * @param size Its size.
 * @param floor The first byte after the head.
 * @param id The entry's id.
 * @returns The end of its line, or -1.
 */
export async function lineEndOf(
  file: FsHandle,
  size: number,
  floor: number,
  id: string,
): Promise<number> {
  const lines = new BackwardLines(fileReaderAt(file, size), floor);
  const at = new EnvelopeAt();
  const quiet = new IssueLog();
  while (await lines.prev()) {
    if (!lines.terminated) continue;
    const bytes = lines.bytes;
    if (readEnvelope(bytes, lines.headStart, lines.headEnd, at)) {
      if (at.id() === id) return lines.lineEnd;
      continue;
    }
    const line = await lines.line(1 << 20);
    if (entryOfLine(line as EntryLine, quiet, undefined)?.id === id) {
      return lines.lineEnd;
    }
  }
  return -1;
}
