/**
 * Reading a session file's tree table in one pass over its bytes: the head
 * (title slot and header) from the first lines, then each line of the body
 * into a {@linkcode TreeTable} from its first bytes, with the loader's
 * limits; then the table settled on its leaf. `SessionTree.read` opens the
 * file and wraps what this gives.
 *
 * @module
 */

import type { FileHandle } from "../_fs.ts";
import { headerVersion } from "../format/header.ts";
import type { LoadIssue } from "../format/issues.ts";
import { IssueLog } from "../read/_decode.ts";
import { type Head, HEAD_LINE_MAX_BYTES, HeadReader } from "../read/_head.ts";
import { DEFAULT_MAX_LINE_BYTES, readLines } from "../read/lines.ts";
import { TreeTable } from "./_table.ts";

/** What {@linkcode readTable} takes of `SessionTreeReadOptions`. */
export interface TableReadOptions {
  /** Called with each damaged line of the body. */
  onIssue?: ((issue: LoadIssue) => void) | undefined;
  /** The leaf the table settles on, instead of the file's. */
  leafId?: string | undefined;
  /** Whether to read every message's preview now (default true). */
  previews?: boolean | undefined;
}

/** What {@linkcode readTable} read. */
export interface ReadTable {
  /** The file's head. */
  head: Head;
  /** Bytes read. */
  end: number;
  /** The entries' table, settled. */
  table: TreeTable;
}

/**
 * The line source's limits for a tree: the loader's, so a line too long for
 * the loader is left out of the tree too.
 */
const _LIMITS = {
  maxLineBytes: DEFAULT_MAX_LINE_BYTES,
  maxFirstLineBytes: HEAD_LINE_MAX_BYTES,
};

/**
 * Read the head and the tree table of an open session file.
 *
 * @param file The file, open.
 * @param path Its path, for the head's errors.
 * @param options Damage, leaf and previews.
 * @returns The head, the bytes read and the settled table.
 * @throws {SessionSyntaxError} When it has no readable header.
 */
export async function readTable(
  file: FileHandle,
  path: string,
  options: TableReadOptions,
): Promise<ReadTable> {
  const log = new IssueLog(options.onIssue);
  // The head's own damage is the loader's to report, not the tree's.
  const head = new HeadReader(path, new IssueLog());
  let table: TreeTable | undefined;
  let lines = 0;
  let end = 0;
  for await (const line of readLines(file, _LIMITS)) {
    lines++;
    end = line.offset + line.size;
    if (table !== undefined) table.take(line);
    else if (head.take(line)) {
      const version = headerVersion(head.head!.header);
      table = new TreeTable(version, log, options.previews === false);
    }
  }
  const finished = head.finish(lines, end);
  table!.settle(options.leafId);
  return { head: finished, end, table: table! };
}
