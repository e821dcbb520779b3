/**
 * A session file's figures for `cli stats`: one streamed pass counts the
 * entries as the loader decodes them (memory bounded by the longest line
 * and one short id per entry, not the file), one windowed open says what a
 * resume reads, and the blobs named are looked up once across files.
 *
 * The model calls (`requests`, `cost`, `tokens.usage`) are those `cli
 * usage` counts in the file, read by the same rule (`requestUsage`, each
 * id once): one file's figures are its `usage --by session` row. They
 * differ only where a line is damaged (a glued line's first value counts
 * here, as the loader keeps it, and not in `usage`, as omp counts it) and
 * for a folder: its totals add each file's, so a fork's copies of its
 * parent's calls count in both, where `usage` counts each call once.
 *
 * @module
 */

import { join } from "node:path";
import { fs, isNotFound } from "../_fs.ts";
import { BLOB_REF_PREFIX, parseBlobRef } from "../format/blob_ref.ts";
import { requestUsage } from "../format/usage.ts";
import { openRegular } from "../read/_open.ts";
import { IssueLog } from "../read/_decode.ts";
import { HEAD_LINE_MAX_BYTES } from "../read/_head.ts";
import { readLines } from "../read/lines.ts";
import { sessionRecords } from "../read/_records.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";
import { Session } from "../session/session.ts";
import { BlobStore } from "../store/blob_store.ts";
import { findDataDir } from "../store/data_dir.ts";
import { ExactSum } from "../usage/_tally.ts";
import { attempt } from "./_command.ts";

/** Sizes of blob files by path; null for a missing one. Shared across files. */
export type BlobSizes = Map<string, number | null>;

/**
 * Every figure of a file (or the totals of several) at zero, in the order
 * `--json` prints them.
 */
function _zero() {
  return {
    fileBytes: 0,
    /** Entry lines, and by `type` (a Map: a type may be named `constructor`). */
    entries: 0,
    entriesByType: new Map<string, number>(),
    /** `message` entries by role. */
    messagesByRole: new Map<string, number>(),
    /** Model calls recorded (as `cli usage` counts them); their recorded cost in dollars. */
    requests: 0,
    cost: 0,
    /** The calls' tokens (input, output, cache read and write); the rebuilt context's estimate. */
    tokens: { usage: 0, context: 0 },
    compactions: 0,
    resets: 0,
    /** Entries with two or more children. */
    branches: 0,
    labels: 0,
    /** Valid blob references; strings that start like one but are not. */
    blobRefs: 0,
    badBlobRefs: 0,
    /** Distinct blobs referenced; of those, the ones not in the store; the others' bytes. */
    blobs: 0,
    missingBlobs: 0,
    blobBytes: 0,
    /** Damage read around in the whole-file pass. */
    issues: 0,
    /** What the windowed open read and kept. */
    window: { bytesRead: 0, retained: 0, seen: 0 },
  };
}

/** One file's figures (also the shape of the totals). */
export type FileFigures = ReturnType<typeof _zero>;

/**
 * One file's figures: the whole-file counts, then what a windowed open
 * reads and rebuilds, then the sizes of the blobs it names.
 *
 * @param path The session file.
 * @param dataDirOption Where blobs/ lives; default: the nearest ancestor
 * holding one.
 * @param sizes Blob sizes seen so far (filled in).
 * @returns The figures.
 * @throws {Error} `Cannot read session "<path>": …` when it cannot be read.
 */
export function fileFigures(
  path: string,
  dataDirOption: string | undefined,
  sizes: BlobSizes,
): Promise<FileFigures> {
  return attempt(`read session "${path}"`, async () => {
    const dataDir = dataDirOption ?? await findDataDir(path);
    // The open first: it refuses a FIFO or a device at once, by its type,
    // where reading one through would wait or never end.
    const session = await Session.open(path, {
      resolveBlobs: false,
      ...(dataDir === undefined ? {} : { dataDir }),
    });
    try {
      const f = _zero();
      f.fileBytes = (await fs().stat(path)).size;
      const blobs = await _count(path, f);
      const { bytesRead, retained, seen } = session.windowStats();
      f.window = { bytesRead, retained, seen };
      f.tokens.context = session.buildContext().tokens;
      const store = dataDir === undefined
        ? undefined
        : new BlobStore(join(dataDir, "blobs"));
      f.blobs = blobs.size;
      for (const hex of blobs) {
        const size = await _blobSize(store, hex, sizes);
        if (size === null) f.missingBlobs++;
        else f.blobBytes += size;
      }
      return f;
    } finally {
      await session[Symbol.asyncDispose]();
    }
  });
}

/**
 * The size of a blob, cached in `sizes`: null when it is missing or not a
 * plain file, and for every blob of a file under no data dir (counted once
 * in the totals).
 */
async function _blobSize(
  store: BlobStore | undefined,
  hex: string,
  sizes: BlobSizes,
): Promise<number | null> {
  if (store === undefined) {
    sizes.set(`(no data dir)/${hex}`, null);
    return null;
  }
  const path = store.path(`${BLOB_REF_PREFIX}${hex}`);
  let size = sizes.get(path);
  if (size !== undefined) return size;
  try {
    const info = await fs().lstat(path);
    size = info.kind === "file" ? info.size : null;
  } catch (err) {
    if (!isNotFound(err)) throw err;
    size = null;
  }
  sizes.set(path, size);
  return size;
}

/**
 * Add to a count kept in a Map: keys are what a file says (a type, a role),
 * and `constructor` or `__proto__` would meet `Object.prototype` in a plain
 * object.
 *
 * @param counts The counts.
 * @param key What is counted.
 * @param n How many. Default 1.
 */
export function tally(counts: Map<string, number>, key: string, n = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/**
 * One streamed pass over a session file's entries, as the loader decodes
 * them, counted into `f`; the distinct blobs they name.
 */
async function _count(path: string, f: FileFigures): Promise<Set<string>> {
  const blobs = new Set<string>();
  const children = new Map<string, number>();
  const calls = new Set<string>(); // ids counted: a repeated id counts once
  const cost = new ExactSum();
  const file = await openRegular(path, `Cannot read "${path}"`);
  try {
    const lines = readLines(file, {
      maxLineBytes: DEFAULT_MAX_LINE_BYTES,
      maxFirstLineBytes: HEAD_LINE_MAX_BYTES,
    });
    const log = new IssueLog(() => f.issues++);
    for await (const record of sessionRecords(lines, path, log)) {
      if (record.kind !== "entry") continue;
      const e = record.value;
      f.entries++;
      tally(f.entriesByType, e.type);
      if (e.type === "compaction") f.compactions++;
      else if (e.type === "reset_boundary") f.resets++;
      else if (e.type === "label") f.labels++;
      else if (e.type === "message") {
        const m = e.message as { role?: unknown; usage?: unknown } | null;
        if (m !== null && typeof m === "object") {
          const role = typeof m.role === "string" ? m.role : "(none)";
          tally(f.messagesByRole, role);
        }
      }
      const u = requestUsage(e);
      if (u !== undefined && !calls.has(u.entryId)) {
        calls.add(u.entryId);
        f.requests++;
        f.tokens.usage += u.input + u.output + u.cacheRead + u.cacheWrite;
        cost.add(u.cost ?? 0);
      }
      if (typeof e.parentId === "string") {
        const n = (children.get(e.parentId) ?? 0) + 1;
        children.set(e.parentId, n);
        if (n === 2) f.branches++;
      }
      _countRefs(e, f, blobs);
    }
    f.cost = cost.value();
    return blobs;
  } finally {
    await file[Symbol.asyncDispose]();
  }
}

/** The blob references among `value`'s strings, walked iteratively: a deep entry cannot blow the stack. */
function _countRefs(value: unknown, f: FileFigures, blobs: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (!v.startsWith(BLOB_REF_PREFIX)) continue;
      const hex = parseBlobRef(v);
      if (hex === undefined) f.badBlobRefs++;
      else {
        f.blobRefs++;
        blobs.add(hex);
      }
    } else if (v !== null && typeof v === "object") {
      for (const child of Object.values(v)) stack.push(child);
    }
  }
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
  const t = _zero();
  const add = (to: object, from: object) => {
    const sums = to as Record<string, number>;
    for (const [k, v] of Object.entries(from)) {
      if (typeof v === "number") sums[k] = (sums[k] ?? 0) + v;
    }
  };
  for (const s of all) {
    add(t, s);
    for (const [k, n] of s.entriesByType) tally(t.entriesByType, k, n);
    for (const [k, n] of s.messagesByRole) tally(t.messagesByRole, k, n);
    add(t.tokens, s.tokens);
    add(t.window, s.window);
  }
  const cost = new ExactSum();
  for (const s of all) cost.add(s.cost);
  t.cost = cost.value();
  const found = [...sizes.values()].filter((v): v is number => v !== null);
  t.blobs = sizes.size;
  t.missingBlobs = sizes.size - found.length;
  t.blobBytes = found.reduce((a, b) => a + b, 0);
  return t;
}
