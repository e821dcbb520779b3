/**
 * The figures `cli stats` reports for a session file, and their totals: one
 * streamed pass for the counts, one windowed open for what a resume reads.
 *
 * @module
 */

import { join } from "node:path";
import { BLOB_REF_PREFIX } from "../format/blob_ref.ts";
import type { WindowStats } from "../session/options.ts";
import { Session } from "../session/session.ts";
import { BlobStore } from "../store/blob_store.ts";
import { findDataDir } from "../store/data_dir.ts";
import { attempt } from "./_failure.ts";
import { countEntries, tally } from "./_scan.ts";

/** One file's figures (also the shape of the totals). */
export interface FileFigures {
  /** The file's size. */
  fileBytes: number;
  /** Entry lines. */
  entries: number;
  /** Entries by `type`. */
  entriesByType: Map<string, number>;
  /** `message` entries by role. */
  messagesByRole: Map<string, number>;
  /** Sum of the assistant turns' usage; the rebuilt context's estimate. */
  tokens: { usage: number; context: number };
  /** `compaction` entries. */
  compactions: number;
  /** `reset_boundary` entries. */
  resets: number;
  /** `label` entries. */
  labels: number;
  /** Entries with two or more children. */
  branches: number;
  /** Valid blob references. */
  blobRefs: number;
  /** Strings that start like a blob reference but are not valid ones. */
  badBlobRefs: number;
  /** Distinct blobs referenced. */
  blobs: number;
  /** Of those, the ones absent from the blob store. */
  missingBlobs: number;
  /** Bytes of the distinct blobs found. */
  blobBytes: number;
  /** Damage read around in the whole-file pass. */
  issues: number;
  /** What the windowed open read and kept. */
  window: Omit<WindowStats, "windowed">;
}

/** Sizes of blob files by path; null for a missing one. Shared across files. */
export type BlobSizes = Map<string, number | null>;

/**
 * One file's figures.
 *
 * @param path The session file.
 * @param dataDirOption Where blobs/ lives; default: the nearest ancestor
 * holding one.
 * @param sizes Blob sizes seen so far (filled in).
 * @returns The figures.
 * @throws {Error} `Cannot read session "<path>": …` when it cannot be read.
 */
export async function fileFigures(
  path: string,
  dataDirOption: string | undefined,
  sizes: BlobSizes,
): Promise<FileFigures> {
  const { fileBytes, counts, dataDir, window, context } = await attempt(
    `read session "${path}"`,
    () => _read(path, dataDirOption),
  );
  const store = dataDir === undefined
    ? undefined
    : new BlobStore(join(dataDir, "blobs"));
  let blobBytes = 0;
  let missingBlobs = 0;
  for (const hex of counts.blobs) {
    const size = store === undefined
      ? _noStore(hex, sizes)
      : await _blobSize(store, hex, sizes);
    if (size === null) missingBlobs++;
    else blobBytes += size;
  }
  return {
    fileBytes,
    entries: counts.entries,
    entriesByType: counts.byType,
    messagesByRole: counts.byRole,
    tokens: { usage: counts.usageTokens, context },
    compactions: counts.compactions,
    resets: counts.resets,
    branches: counts.branches,
    labels: counts.labels,
    blobRefs: counts.blobRefs,
    badBlobRefs: counts.badBlobRefs,
    blobs: counts.blobs.size,
    missingBlobs,
    blobBytes,
    issues: counts.issues.length,
    window: {
      bytesRead: window.bytesRead,
      retained: window.retained,
      seen: window.seen,
    },
  };
}

/** The whole-file counts, then what a windowed open reads and rebuilds. */
async function _read(path: string, dataDirOption: string | undefined) {
  const dataDir = dataDirOption ?? await findDataDir(path);
  // The open first: it refuses a FIFO or a device at once, by its type,
  // where reading one through would wait or never end.
  await using session = await Session.open(path, {
    resolveBlobs: false,
    ...(dataDir === undefined ? {} : { dataDir }),
  });
  const fileBytes = (await Deno.stat(path)).size;
  const counts = await countEntries(path);
  const window = session.windowStats();
  const context = session.buildContext().tokens;
  return { fileBytes, counts, dataDir, window, context };
}

/** The size of a blob (null when it is missing or not a plain file), cached. */
async function _blobSize(
  store: BlobStore,
  hex: string,
  sizes: BlobSizes,
): Promise<number | null> {
  const path = store.path(`${BLOB_REF_PREFIX}${hex}`);
  let size = sizes.get(path);
  if (size !== undefined) return size;
  try {
    const info = await Deno.lstat(path);
    size = info.isFile ? info.size : null;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    size = null;
  }
  sizes.set(path, size);
  return size;
}

/** A blob of a file under no data dir: missing, and counted once in the totals. */
function _noStore(hex: string, sizes: BlobSizes): null {
  sizes.set(`(no data dir)/${hex}`, null);
  return null;
}

/**
 * The sum of every figure; blobs shared by several files count once.
 *
 * @param all Each file's figures.
 * @param sizes Every blob looked up for them.
 * @returns The totals.
 */
export function totalFigures(
  all: FileFigures[],
  sizes: BlobSizes,
): FileFigures {
  const t: FileFigures = {
    fileBytes: 0,
    entries: 0,
    entriesByType: new Map(),
    messagesByRole: new Map(),
    tokens: { usage: 0, context: 0 },
    compactions: 0,
    resets: 0,
    labels: 0,
    branches: 0,
    blobRefs: 0,
    badBlobRefs: 0,
    blobs: 0,
    missingBlobs: 0,
    blobBytes: 0,
    issues: 0,
    window: { bytesRead: 0, retained: 0, seen: 0 },
  };
  const add = (to: Record<string, number>, from: Record<string, number>) => {
    for (const [k, v] of Object.entries(from)) to[k] = (to[k] ?? 0) + v;
  };
  for (const s of all) {
    add(t as unknown as Record<string, number>, _scalars(s));
    for (const [k, n] of s.entriesByType) tally(t.entriesByType, k, n);
    for (const [k, n] of s.messagesByRole) tally(t.messagesByRole, k, n);
    add(t.tokens, s.tokens);
    add(t.window, s.window);
  }
  const found = [...sizes.values()].filter((v): v is number => v !== null);
  t.blobs = sizes.size;
  t.missingBlobs = sizes.size - found.length;
  t.blobBytes = found.reduce((a, b) => a + b, 0);
  return t;
}

function _scalars(s: FileFigures): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(s)) if (typeof v === "number") out[k] = v;
  return out;
}
