/**
 * Whole-file scans for the CLI: counting a session's entries through
 * {@linkcode SessionEntryStream}, and finding every blob reference in a
 * file's bytes. Both read in chunks: memory stays bounded by the longest line
 * (and, for counts, one short id per entry), not the file.
 *
 * @module
 */

import { join } from "node:path";
import { BLOB_REF_PREFIX, parseBlobRef } from "../format/blob_ref.ts";
import type { LoadIssue } from "../format/issues.ts";
import { SessionEntryStream } from "../read/entry_stream.ts";

/** What one pass over a session file counts. */
export interface EntryCounts {
  /** Entry lines. */
  entries: number;
  /** Entries by `type` (a Map: a type may be named `constructor`). */
  byType: Map<string, number>;
  /** `message` entries by `message.role`. */
  byRole: Map<string, number>;
  /** Sum of the assistant messages' `usage.totalTokens` (else their four counts). */
  usageTokens: number;
  /** `compaction` entries. */
  compactions: number;
  /** `reset_boundary` entries. */
  resets: number;
  /** Entries with two or more children. */
  branches: number;
  /** `label` entries. */
  labels: number;
  /** Valid `blob:sha256:<hex>` strings anywhere in the entries. */
  blobRefs: number;
  /** Strings that start like a blob reference but are not valid ones. */
  badBlobRefs: number;
  /** The distinct digests referenced. */
  blobs: Set<string>;
  /** Damage read around. */
  issues: LoadIssue[];
}

/**
 * Add `n` to the count of `key`. Counts keyed by what a file says (a type, a
 * role) live in a Map: in a plain object, `constructor` or `__proto__`
 * would meet `Object.prototype`.
 *
 * @param counts The counts.
 * @param key What is counted.
 * @param n How many. Default 1.
 */
export function tally(counts: Map<string, number>, key: string, n = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/**
 * Count a session file's entries in one streamed pass.
 *
 * @param path The file.
 * @returns The counts.
 * @throws {SessionSyntaxError} When the header is unreadable.
 */
export async function countEntries(path: string): Promise<EntryCounts> {
  const counts: EntryCounts = {
    entries: 0,
    byType: new Map(),
    byRole: new Map(),
    usageTokens: 0,
    compactions: 0,
    resets: 0,
    branches: 0,
    labels: 0,
    blobRefs: 0,
    badBlobRefs: 0,
    blobs: new Set(),
    issues: [],
  };
  const children = new Map<string, number>();
  if (!(await Deno.stat(path)).isFile) {
    throw new Error(`Cannot read "${path}": it is not a regular file`);
  }
  using file = await Deno.open(path, { read: true });
  const stream = new SessionEntryStream({
    name: path,
    onIssue: (issue) => counts.issues.push(issue),
  });
  for await (const record of file.readable.pipeThrough(stream)) {
    if (record.kind !== "entry") continue;
    const e = record.value;
    counts.entries++;
    tally(counts.byType, e.type);
    if (e.type === "compaction") counts.compactions++;
    else if (e.type === "reset_boundary") counts.resets++;
    else if (e.type === "label") counts.labels++;
    else if (e.type === "message") _countMessage(e.message, counts);
    if (typeof e.parentId === "string") {
      const n = (children.get(e.parentId) ?? 0) + 1;
      children.set(e.parentId, n);
      if (n === 2) counts.branches++;
    }
    _countRefs(e, counts);
  }
  return counts;
}

function _countMessage(message: unknown, counts: EntryCounts): void {
  if (message === null || typeof message !== "object") return;
  const m = message as { role?: unknown; usage?: unknown };
  const role = typeof m.role === "string" ? m.role : "(none)";
  tally(counts.byRole, role);
  if (role !== "assistant" || m.usage === null || typeof m.usage !== "object") {
    return;
  }
  const u = m.usage as Record<string, unknown>;
  const n = (k: string): number =>
    typeof u[k] === "number" && Number.isFinite(u[k]) ? u[k] : 0;
  const total = n("totalTokens");
  counts.usageTokens += total > 0
    ? total
    : n("input") + n("output") + n("cacheRead") + n("cacheWrite");
}

/** Every string in `value` (iteratively: a deep entry cannot blow the stack). */
function _countRefs(value: unknown, counts: EntryCounts): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (!v.startsWith(BLOB_REF_PREFIX)) continue;
      const hex = parseBlobRef(v);
      if (hex === undefined) counts.badBlobRefs++;
      else {
        counts.blobRefs++;
        counts.blobs.add(hex);
      }
    } else if (v !== null && typeof v === "object") {
      for (const child of Object.values(v)) stack.push(child);
    }
  }
}

/**
 * `blob:sha256:<64 hex>` followed by anything: a reference whose hex runs on
 * counts too, so a scan never misses a blob something may still need.
 */
const _REF = /blob:sha256:([0-9a-f]{64})/g;
/** Characters kept from one chunk for the next, so a reference split across two is found. */
const _CARRY = BLOB_REF_PREFIX.length + 63;

/**
 * Add the digest of every `blob:sha256:<64 hex>` in a file's bytes to
 * `found`, whatever line, field or damage it sits in (a byte scan: nothing is
 * parsed, so a torn or unparsable line still protects its blobs).
 *
 * @param path Any file.
 * @param found Where the digests go.
 */
export async function scanBlobRefs(
  path: string,
  found: Set<string>,
): Promise<void> {
  using file = await Deno.open(path, { read: true });
  // Each byte is one character (latin1), so offsets stay byte offsets and no
  // multi-byte sequence split across chunks can hide ASCII.
  const decoder = new TextDecoder("latin1");
  let carry = "";
  for await (const chunk of file.readable) {
    const text = carry + decoder.decode(chunk);
    for (const m of text.matchAll(_REF)) found.add(m[1]!);
    carry = text.slice(-_CARRY);
  }
}

/**
 * Every `*.jsonl` under `dir`, recursively, sorted. Symbolic links are
 * followed (a session kept elsewhere and linked in still counts, and still
 * protects its blobs from `gc`), each real folder walked once, so a link
 * loop cannot trap the walk.
 *
 * @param dir The folder.
 * @returns The paths (`dir` joined with each file's relative path).
 * @throws {Deno.errors.NotFound} When `dir` does not exist.
 */
export async function findSessionFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walked = new Set<string>();
  const walk = async (folder: string): Promise<void> => {
    const real = await Deno.realPath(folder);
    if (walked.has(real)) return;
    walked.add(real);
    for await (const e of Deno.readDir(folder)) {
      const path = join(folder, e.name);
      let { isFile, isDirectory } = e;
      if (e.isSymlink) {
        const target = await _statOrUndefined(path);
        isFile = target?.isFile ?? false;
        isDirectory = target?.isDirectory ?? false;
      }
      if (isDirectory) await walk(path);
      else if (isFile && e.name.endsWith(".jsonl")) out.push(path);
    }
  };
  await walk(dir);
  return out.sort();
}

/** The link's target, or undefined for a dangling link. */
async function _statOrUndefined(
  path: string,
): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}
