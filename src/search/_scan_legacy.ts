/**
 * The scan of a version 1 or 2 file (pi's, older omp's): every line
 * decoded and migrated in order, as the reader and the index's facet do
 * (the ids are minted from each line's place), so the byte filter cannot
 * skip any. Such files are rare and small.
 *
 * @module
 */

import { asEntry, branchMarkerTarget } from "../format/entries.ts";
import { recordMigrator } from "../format/_migrate.ts";
import type { FsHandle } from "../fs/_seam.ts";
import { decodeEntryLine, IssueLog } from "../read/_decode.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/_line.ts";
import { readLinesFromReader } from "../read/_lines_forward.ts";
import type { HitList } from "./_hits.ts";
import type { ActivePath } from "./_scan.ts";
import { entryLineText, textlessType } from "./_line.ts";
import { EntryTree } from "./_tree.ts";

/**
 * Scan a version 1 or 2 file's entries; returns the ids on its active path.
 *
 * @param file The open file.
 * @param path Its path.
 * @param version Its header's version.
 * @param bodyStart Where its entries start.
 * @param hits Where matches go.
 * @returns What gives the active path's ids.
 */
export async function scanLegacyFile(
  file: FsHandle,
  path: string,
  version: number,
  bodyStart: number,
  hits: HitList,
): Promise<ActivePath> {
  await file.seek(bodyStart, Deno.SeekMode.Start);
  const migrate = recordMigrator(version);
  const tree = new EntryTree();
  const quiet = new IssueLog();
  let record = 1;
  let leaf: string | undefined;
  let target: string | undefined;
  const lines = readLinesFromReader(file, {
    maxLineBytes: DEFAULT_MAX_LINE_BYTES,
  });
  for await (const raw of lines) {
    const line = { ...raw, offset: raw.offset + bodyStart };
    const value = decodeEntryLine(line, quiet);
    quiet.issues.length = 0;
    // A last line without "\n" is read when it is whole JSON, as the
    // session's reader reads it; a torn one is passed over.
    if (!raw.terminated && (typeof value !== "object" || value === null)) break;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      migrate?.({ index: record++, value: value as Record<string, unknown> });
    }
    const checked = asEntry(value);
    const entry = "entry" in checked ? checked.entry : undefined;
    if (entry !== undefined) {
      tree.add(entry.id, entry.parentId ?? null);
      leaf = entry.id;
      target = branchMarkerTarget(entry);
    }
    if (line.bytes.length === 0 || textlessType(line.bytes)) continue;
    const found = entryLineText(line.bytes, entry);
    if (found !== undefined) hits.take(path, line.offset, found);
  }
  const onPath = leaf === undefined
    ? tree.path(null)
    : tree.path(target !== undefined && tree.has(target) ? target : leaf);
  return () => Promise.resolve(onPath);
}
