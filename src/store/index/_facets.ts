/**
 * Facets of the index: parts that read every entry of each file once and
 * keep what they need in tables of their own (usage figures, the
 * full-text index). A facet records how far into each file it has read;
 * a refresh hands it only the whole lines appended since, inside the
 * file's transaction. A file replaced or cut shorter is forgotten and
 * read again; a deleted file is forgotten (a facet may keep what it
 * counted, marked deleted).
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { asEntry, type SessionEntry } from "../../format/entries.ts";
import type { SessionHeader } from "../../format/header.ts";
import { recordMigrator } from "../../format/_migrate.ts";
import { readFull } from "../../fs/_read.ts";
import { seam } from "../../fs/_seam.ts";
import { decodeEntryLine, IssueLog } from "../../read/_decode.ts";
import type { Line } from "../../read/_line.ts";
import { readLinesFromReader } from "../../read/_lines_forward.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../../read/_line.ts";
import { hashBytes } from "./_hash.ts";
import { TAIL_HASH_BYTES } from "./_rows.ts";

/** The file a facet reads, and its session. */
export interface FacetFile {
  /** The file (absolute). */
  path: string;
  /** 0 in a cwd folder; 1 or more inside artifacts folders (subagents). */
  depth: number;
  /** The header. */
  header: SessionHeader;
}

/** One whole line handed to a facet. */
export interface FacetLine {
  /** The line's bytes (a view: copy to keep). */
  bytes: Uint8Array;
  /** Its offset in the file. */
  offset: number;
  /** The entry, parsed on first call (migrated for a version 1 or 2 file); undefined for damage. */
  entry(): SessionEntry | undefined;
}

/** A part of the index fed every entry once. */
export interface IndexFacet {
  /** Its name, unique among facets. */
  readonly name: string;
  /** Its version: a facet whose version changed is rebuilt. */
  readonly version: number;
  /** The statements that make its tables (`IF NOT EXISTS`). */
  readonly schema: readonly string[];
  /** Take the lines of `file` from `offset` on, in order (inside the file's transaction). */
  update(
    db: DatabaseSync,
    file: FacetFile,
    lines: AsyncIterable<FacetLine>,
  ): Promise<void>;
  /** Drop what `path` gave: it is gone (`deleted`), or it is read again from its start. */
  forget(db: DatabaseSync, path: string, deleted: boolean): void;
}

/** The table of how far each facet has read each file. */
export const FACET_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS facets (
    path TEXT NOT NULL,
    facet TEXT NOT NULL,
    version INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    dev INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    tailHash TEXT NOT NULL,
    PRIMARY KEY (path, facet)
  )`,
];

interface _Progress {
  version: number;
  offset: number;
  dev: number;
  ino: number;
  tailHash: string;
}

/**
 * Bring `facet` up to date with one file, inside the caller's transaction:
 * from where it stopped when the file still has the bytes it stopped
 * after, else from the start (having forgotten the file). Reads whole
 * lines up to `end`.
 *
 * @param db The index.
 * @param facet The facet.
 * @param file The file and its header.
 * @param info The file's metadata now.
 * @param end The end of its last whole line.
 * @param bodyStart Where its entries start.
 */
export async function updateFacet(
  db: DatabaseSync,
  facet: IndexFacet,
  file: FacetFile,
  info: Deno.FileInfo,
  end: number,
  bodyStart: number,
): Promise<void> {
  const known = db.prepare(
    "SELECT version, offset, dev, ino, tailHash FROM facets WHERE path = ? AND facet = ?",
  ).get(file.path, facet.name) as unknown as _Progress | undefined;
  let from = bodyStart;
  if (known !== undefined) {
    const same = known.version === facet.version &&
      known.dev === (info.dev ?? 0) && known.ino === (info.ino ?? 0) &&
      known.offset <= end && known.offset >= bodyStart &&
      await tailHashAt(file.path, known.offset) === known.tailHash;
    if (same) from = known.offset;
    else facet.forget(db, file.path, false);
  }
  if (from < end) {
    await facet.update(db, file, facetLines(file, from, end));
  }
  db.prepare(
    `INSERT OR REPLACE INTO facets (path, facet, version, offset, dev, ino, tailHash)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    file.path,
    facet.name,
    facet.version,
    end,
    info.dev ?? 0,
    info.ino ?? 0,
    await tailHashAt(file.path, end) ?? "",
  );
}

/**
 * Forget a file in every facet: it is gone.
 *
 * @param db The index.
 * @param facets The facets.
 * @param path The file.
 */
export function forgetFile(
  db: DatabaseSync,
  facets: readonly IndexFacet[],
  path: string,
): void {
  for (const facet of facets) facet.forget(db, path, true);
  db.prepare("DELETE FROM facets WHERE path = ?").run(path);
}

/**
 * The hash of the bytes just before `offset` (what a row or a facet checks
 * to trust that the bytes it read are still there).
 *
 * @param path The file.
 * @param offset The end of the bytes hashed.
 * @returns The hash, or undefined when the file is shorter.
 */
export async function tailHashAt(
  path: string,
  offset: number,
): Promise<string | undefined> {
  using file = await seam().openHandle(path, { read: true });
  const start = Math.max(0, offset - TAIL_HASH_BYTES);
  await file.seek(start, Deno.SeekMode.Start);
  const bytes = new Uint8Array(offset - start);
  if (await readFull(file, bytes) !== bytes.length) return undefined;
  return hashBytes(bytes);
}

/**
 * The end of a file's last whole line (just after its last `\n`), at or
 * after `from`: how far the facets read a file the index keeps no state of
 * (one read whole, such as a version 1 or 2 file).
 *
 * @param path The file.
 * @param size Its size.
 * @param from Where its entries start.
 * @returns The offset; `from` when no line after it is whole.
 */
export async function wholeLinesEnd(
  path: string,
  size: number,
  from: number,
): Promise<number> {
  using file = await seam().openHandle(path, { read: true });
  const block = new Uint8Array(64 * 1024);
  for (let end = size; end > from;) {
    const start = Math.max(from, end - block.length);
    await file.seek(start, Deno.SeekMode.Start);
    const bytes = block.subarray(0, end - start);
    if (await readFull(file, bytes) !== bytes.length) return from;
    const lf = bytes.lastIndexOf(0x0a);
    if (lf !== -1) return start + lf + 1;
    end = start;
  }
  return from;
}

/** The whole lines of `[from, end)`, each able to give its entry. */
async function* facetLines(
  file: FacetFile,
  from: number,
  end: number,
): AsyncGenerator<FacetLine> {
  using handle = await seam().openHandle(file.path, { read: true });
  await handle.seek(from, Deno.SeekMode.Start);
  let left = end - from;
  const reader = {
    read: async (p: Uint8Array): Promise<number | null> => {
      if (left <= 0) return null;
      const n = await handle.read(p.subarray(0, Math.min(p.length, left)));
      if (n !== null) left -= n;
      return n;
    },
  };
  const version = typeof file.header.version === "number"
    ? file.header.version
    : 1;
  const migrate = recordMigrator(version);
  const quiet = new IssueLog(); // the loader reports damage; a facet skips it
  let record = 1;
  for await (
    const raw of readLinesFromReader(reader, {
      maxLineBytes: DEFAULT_MAX_LINE_BYTES,
    })
  ) {
    const line: Line = { ...raw, offset: raw.offset + from };
    let parsed: SessionEntry | undefined | null = null;
    const entry = (): SessionEntry | undefined => {
      if (parsed !== null) return parsed;
      const value = decodeEntryLine(line, quiet);
      if (
        value !== null && typeof value === "object" && !Array.isArray(value)
      ) {
        migrate?.({ index: record++, value: value as Record<string, unknown> });
      }
      const checked = asEntry(value);
      parsed = "entry" in checked ? checked.entry : undefined;
      return parsed;
    };
    if (migrate !== undefined) entry(); // a legacy file's ids depend on every line, in order
    yield { bytes: line.bytes, offset: line.offset, entry };
  }
}
