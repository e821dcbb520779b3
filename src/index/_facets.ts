/**
 * Facets of the index: parts that read every entry of each file once and
 * keep what they need in tables of their own (usage figures, the
 * full-text index). A facet records how far into each file it has read;
 * a refresh hands it only the whole lines appended since, inside the
 * file's transaction. A last line without "\n" that is whole JSON (omp
 * reads it; so does the session's reader) is offered, each time the file
 * is read, to the facets that keep such a line apart ({@linkcode
 * IndexFacet.lastLine}); no progress is recorded past it, so once the
 * next append's "\n" ends it, it comes again as a whole line. A file
 * replaced or cut shorter is forgotten and read again; a deleted file is
 * forgotten (a facet may keep what it counted, marked deleted).
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import { prepared } from "./_prepared.ts";
import { type FileInfo, fs } from "../_fs.ts";
import { readFull } from "../read/_open.ts";
import {
  type FacetFile,
  type FacetLine,
  facetLines,
  wholeLastLine,
} from "./_facet_lines.ts";
import { hashBytes } from "./_hash.ts";
import { TAIL_HASH_BYTES } from "./_rows.ts";

export type { FacetFile, FacetLine } from "./_facet_lines.ts";

/** A part of the index fed every entry once. */
export interface IndexFacet {
  /** Its name, unique among facets. */
  readonly name: string;
  /** Its version: a facet whose version changed is rebuilt. */
  readonly version: number;
  /** The statements that make its tables (`IF NOT EXISTS`). */
  readonly schema: readonly string[];
  /** Take the next whole lines of `file`, in order (inside a write transaction). */
  update(db: IndexDb, file: FacetFile, lines: readonly FacetLine[]): void;
  /**
   * The file's last line when it has no "\n" and is whole JSON, or
   * undefined: called each time the file is read, after its whole lines
   * (in the same transaction as the last of them). What the facet took of
   * the last line it was given before is its to drop (the line may have
   * been cut off, or have ended and come again as a whole line). A facet
   * without it leaves such a line out until it ends.
   */
  lastLine?(
    db: IndexDb,
    file: FacetFile,
    line: FacetLine | undefined,
  ): void;
  /** Drop what `path` gave: it is gone (`deleted`), or it is read again from its start. */
  forget(db: IndexDb, path: string, deleted: boolean): void;
  /** Drop what every file gave, to read them all again (a rebuild): one statement, not a `forget` per file. */
  forgetAll(db: IndexDb): void;
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
  // What a refresh asks of every row (has each facet read it to its
  // offset?) answered from the index alone.
  `CREATE INDEX IF NOT EXISTS facets_read ON facets (path, facet, version,
    offset)`,
];

/** Lines handed over per transaction, at most (a lock is held only that long). */
const _BATCH_LINES = 2048;
/** Bytes of lines handed over per transaction, at most (one longer line goes alone). */
const _BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Runs `work` in one write transaction; false when it could not (the
 * index is locked by another process), and nothing was saved.
 */
export type WriteTransaction = (work: () => void, bytes?: number) => boolean;

interface _Progress {
  facet: string;
  version: number;
  offset: number;
  dev: number;
  ino: number;
  tailHash: string;
}

/**
 * Bring every facet up to date with one file: each from where it stopped
 * when the file still has the bytes it stopped after, else from the start
 * (having forgotten the file). Whole lines up to `end` are read once for
 * all facets and handed over in batches, a short write transaction each,
 * which also records how far the facets have read: a crash or a lock
 * keeps what was committed, and the next refresh goes on from there.
 *
 * Each transaction first checks, inside its write lock, that every facet
 * it feeds has read the file exactly as far as this feed left it (as the
 * feed found it, for the first): another writer that fed the same lines
 * meanwhile (a refresh in another process, a session's close) makes this
 * feed stop, unapplied, so no line is given to a facet twice. The file's
 * row (`alongside`) is written all the same: it is the file as read now,
 * and the next refresh compares it with the facets.
 *
 * @param db The index.
 * @param write Runs one write transaction.
 * @param facets The facets.
 * @param file The file and its header.
 * @param info The file's metadata now.
 * @param range Where the entries start, the end of the last whole line,
 * and the hash of the bytes before it when known.
 * @param alongside Work to do in the first transaction (the file's row).
 * @returns Whether the first transaction was saved.
 */
export async function feedFacets(
  db: IndexDb,
  write: WriteTransaction,
  facets: readonly IndexFacet[],
  file: FacetFile,
  info: FileInfo,
  range: { bodyStart: number; end: number; endHash?: string | undefined },
  alongside: () => void = () => {},
): Promise<boolean> {
  const { bodyStart, end } = range;
  const known = _progressOf(db, file.path);
  // A version 1 or 2 file's ids are made from every line in order: it is
  // always read from its start.
  const legacy = typeof file.header.version !== "number" ||
    file.header.version < 3;
  const starts = new Map<IndexFacet, number>();
  const fresh: IndexFacet[] = [];
  const hashes = new Map<number, string | undefined>();
  for (const facet of facets) {
    const p = known.get(facet.name);
    let start = bodyStart;
    if (
      p !== undefined && !legacy && p.version === facet.version &&
      p.dev === (info.dev) && p.ino === (info.ino) &&
      p.offset >= bodyStart && p.offset <= end
    ) {
      if (!hashes.has(p.offset)) {
        hashes.set(
          p.offset,
          await tailHashAt(file.path, p.offset),
        );
      }
      if (hashes.get(p.offset) === p.tailHash) start = p.offset;
    }
    if (start === bodyStart && p !== undefined && p.offset !== bodyStart) {
      fresh.push(facet); // read again from the start: forget what it had
    }
    if (start < end || p === undefined || p.offset !== end) {
      starts.set(facet, start);
    }
  }
  const last = await wholeLastLine(file, info.size, end);
  const giveLast = () => {
    for (const facet of facets) facet.lastLine?.(db, file, last);
  };
  if (starts.size === 0) {
    return write(() => {
      alongside();
      giveLast();
    });
  }
  const from = Math.min(...starts.values());
  // How far each facet fed has read the file, as this feed left it.
  const expected = new Map(
    [...starts.keys()].map((f) => [f.name, _key(known.get(f.name))]),
  );
  let stale = false; // another writer fed the file meanwhile
  let batch: FacetLine[] = [];
  let bytes = 0;
  let first = true;
  const flush = async (upTo: number, final = false): Promise<boolean> => {
    const tail = (upTo === end ? range.endHash : undefined) ??
      await tailHashAt(file.path, upTo) ?? "";
    const lines = batch;
    const weight = bytes;
    batch = [];
    bytes = 0;
    const forgetting = first ? fresh : [];
    const before = first ? alongside : undefined;
    first = false;
    return write(() => {
      before?.();
      if (stale || !_readAsExpected(db, file.path, expected)) {
        stale = true;
        return;
      }
      for (const facet of forgetting) facet.forget(db, file.path, false);
      for (const [facet, start] of starts) {
        const mine = start <= from
          ? lines
          : lines.filter((l) => l.offset >= start);
        if (mine.length > 0) facet.update(db, file, mine);
        const saved = _saveProgress(db, file.path, facet, upTo, info, tail);
        expected.set(facet.name, _key(saved));
      }
      if (final) giveLast();
    }, weight);
  };
  let at = from;
  for await (const line of facetLines(file, from, end)) {
    if (stale) return !first;
    batch.push(line);
    bytes += line.bytes.length;
    at = line.offset + line.size;
    if (batch.length >= _BATCH_LINES || bytes >= _BATCH_BYTES) {
      const wasFirst = first;
      if (!await flush(at)) return !wasFirst;
    }
  }
  if (batch.length > 0 || first) {
    const wasFirst = first;
    const saved = await flush(Math.max(at, end), true);
    return saved || !wasFirst;
  }
  write(() => {
    if (!stale) giveLast();
  });
  return true;
}

/** How far each facet has read a file, by facet. */
function _progressOf(db: IndexDb, path: string): Map<string, _Progress> {
  const rows = prepared(
    db,
    "SELECT facet, version, offset, dev, ino, tailHash FROM facets WHERE path = ?",
  ).all(path) as unknown as _Progress[];
  return new Map(rows.map((p) => [p.facet, p]));
}

/** A facet's progress as one comparable value ("" for none). */
function _key(p: Omit<_Progress, "facet"> | undefined): string {
  return p === undefined
    ? ""
    : `${p.version} ${p.offset} ${p.dev} ${p.ino} ${p.tailHash}`;
}

/** Whether each facet's progress in the index is the one `expected` holds for it. */
function _readAsExpected(
  db: IndexDb,
  path: string,
  expected: ReadonlyMap<string, string>,
): boolean {
  const now = _progressOf(db, path);
  for (const [facet, key] of expected) {
    if (_key(now.get(facet)) !== key) return false;
  }
  return true;
}

function _saveProgress(
  db: IndexDb,
  path: string,
  facet: IndexFacet,
  offset: number,
  info: FileInfo,
  tailHash: string,
): Omit<_Progress, "facet"> {
  const saved = {
    version: facet.version,
    offset,
    dev: info.dev,
    ino: info.ino,
    tailHash,
  };
  prepared(
    db,
    `INSERT OR REPLACE INTO facets (path, facet, version, offset, dev, ino, tailHash)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    path,
    facet.name,
    saved.version,
    saved.offset,
    saved.dev,
    saved.ino,
    saved.tailHash,
  );
  return saved;
}

/**
 * Forget a file in every facet: it is gone.
 *
 * @param db The index.
 * @param facets The facets.
 * @param path The file.
 */
export function forgetFile(
  db: IndexDb,
  facets: readonly IndexFacet[],
  path: string,
): void {
  for (const facet of facets) facet.forget(db, path, true);
  prepared(db, "DELETE FROM facets WHERE path = ?").run(path);
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
  const file = await fs().open(path, { read: true });
  try {
    const start = Math.max(0, offset - TAIL_HASH_BYTES);
    const bytes = new Uint8Array(offset - start);
    if (await readFull(file, bytes, start) !== bytes.length) return undefined;
    return hashBytes(bytes);
  } finally {
    await file[Symbol.asyncDispose]();
  }
}
