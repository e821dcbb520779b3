/**
 * Scanning session files one after another with one kernel: each file's
 * head read, its entries scanned (the version 3 way or the legacy way),
 * its hits marked on or off its active path. Where the files are many,
 * helper threads (`_scan_helper.ts`) scan from the last file while this
 * thread scans from the first.
 *
 * @module
 */

import { headerVersion, SESSION_VERSION } from "../format/header.ts";
import { openRegular } from "../fs/_read.ts";
import { quote } from "../fs/_errors.ts";
import { realFs, seam } from "../fs/_seam.ts";
import {
  changeSettings,
  HELPER_TIMING,
  type HelperSettings,
  HelperThreads,
  PieceClaims,
  THREADS,
  worthHelping,
} from "../fs/_threads.ts";
import { SNAPSHOT_BYTES, takeSnapshot } from "../fs/_snapshot.ts";
import { readSessionHead, sessionInfo } from "../store/_session_files.ts";
import type { Found, HitFilter, HitList, SkippedLine } from "./_hits.ts";
import { borrowKernel, releaseKernel } from "../read/_kernel.ts";
import type { ByteNeedle } from "./_needle.ts";
import { LaterLines } from "./_later_lines.ts";
import { EventLoopTurns } from "../fs/_turns.ts";
import { type ScanContext, scanFile } from "./_scan.ts";
import { scanLegacyFile } from "./_scan_legacy.ts";

/** A session's id and title, for its hits. */
export interface SessionLabel {
  /** The header's id. */
  id: string;
  /** The title, when it has one. */
  title?: string;
}

/** What a scan learned of its files. */
export interface ScannedFiles {
  /** How many it read as sessions. */
  count: number;
  /** The id and title of each with hits (by path). */
  labels: Map<string, SessionLabel>;
}

/** Options of {@linkcode scanFiles}. */
export interface ScanFilesOptions {
  /** The byte filter. */
  needle: ByteNeedle | undefined;
  /** Skip files last modified before this (ms since the epoch). */
  sinceMs?: number | undefined;
  /** A file that cannot be searched. */
  onSkip?: ((path: string, reason: string) => void) | undefined;
  /** After each file. */
  onFile?: (() => void) | undefined;
  /** Helper threads, and the search they repeat (they make their own matcher); none without. */
  helpers?: ScanHelping | undefined;
}

/** What helper threads of a scan need to search as the calling thread does. */
export interface ScanHelping {
  /** Helper threads at most. */
  count: number;
  /** The query, or the regular expression. */
  query: string;
  /** Whether it is a regular expression. */
  regex: boolean;
  /** The most hits kept. */
  limit: number;
  /** The role and first moment. */
  filter: HitFilter;
}

/** What a scan's helper is sent. */
export interface ScanHelperStart extends Omit<ScanHelping, "count"> {
  /** The files; a file's number is its index. */
  paths: readonly string[];
  /** The claims' shared memory (`PieceClaims.buffer`). */
  claims: SharedArrayBuffer;
  /** {@linkcode ScanFilesOptions.sinceMs}. */
  sinceMs: number | undefined;
}

/** What a scan's helper posts: files done, and at its end what it found. */
export interface ScanHelperReply {
  /** Files scanned since its last post. */
  progress: number;
  /** Whether it is done (then the fields below are set). */
  done: boolean;
  /** The files it scanned (their numbers). */
  files?: number[];
  /** Its hits (the newest `limit` of its files), their active path marked. */
  hits?: Found[];
  /** Its matching lines skipped. */
  skipped?: SkippedLine[];
  /** How many files it read as sessions. */
  scanned?: number;
  /** The id and title of each of its files with hits. */
  labels?: [string, SessionLabel][];
  /** The files it could not search, and why. */
  skips?: [string, string][];
}

/**
 * Scan `paths` into `hits`: this thread from the first file on, helper
 * threads (where given, and where the files are many) from the last. Hits
 * do not depend on the order files are scanned in (a list of the newest);
 * files a helper could not finish are scanned here.
 *
 * @param paths The files.
 * @param hits Where matches go.
 * @param options The filter, the date, reports, helpers.
 * @returns How many files were read as sessions, and the id and title of
 * each with hits.
 */
export async function scanFiles(
  paths: readonly string[],
  hits: HitList,
  options: ScanFilesOptions,
): Promise<ScannedFiles> {
  const files: ScannedFiles = { count: 0, labels: new Map() };
  if (paths.length === 0) return files;
  const ctx = {
    kernel: borrowKernel(),
    needle: options.needle,
    hits,
    later: new LaterLines(),
    small: new Uint8Array(SNAPSHOT_BYTES),
  };
  try {
    await _scanEach(paths, ctx, files, options);
  } finally {
    releaseKernel(ctx.kernel);
    ctx.later.release();
  }
  return files;
}

/** When a scan's helpers start, and their module (tests change them). */
const _helping: HelperSettings = {
  ...HELPER_TIMING,
  module: new URL("./_scan_helper.ts", import.meta.url),
  started: undefined,
  posted: 0,
};

/**
 * Change when a scan's helpers start, or their module, or wait once they
 * are started (tests).
 *
 * @param change What to change.
 * @returns What restores the defaults; and the files the helpers of the last scan posted.
 */
export function scanHelperSettings(
  change: Partial<Omit<HelperSettings, "posted">>,
): { restore(): void; posted(): number } {
  return {
    restore: changeSettings(_helping, change),
    posted: () => _helping.posted,
  };
}

async function _scanEach(
  paths: readonly string[],
  ctx: ScanContext,
  files: ScannedFiles,
  options: ScanFilesOptions,
): Promise<void> {
  const turns = new EventLoopTurns(); // small files are read synchronously
  const help = options.helpers;
  // A test's filesystem is this thread's alone.
  let wanted = help !== undefined && THREADS && seam() === realFs
    ? help.count
    : 0;
  const claims = new PieceClaims(paths.length);
  const scanned = new Uint8Array(paths.length); // 1: its hits are here
  // Files reported done, at most all: a helper that dies after reporting
  // some leaves them to be scanned again here, and reported once.
  let reported = 0;
  const fileDone = () => {
    if (reported === paths.length) return;
    reported++;
    options.onFile?.();
  };
  _helping.posted = 0;
  let helpers: HelperThreads<ScanHelperStart, ScanHelperReply> | undefined;
  const start = async () => {
    helpers = HelperThreads.start(wanted, _helping.module, (reply) => {
      for (let k = 0; k < reply.progress; k++) fileDone();
      if (!reply.done) return;
      for (const i of reply.files ?? []) scanned[i] = 1;
      _helping.posted += reply.files?.length ?? 0;
      for (const hit of reply.hits ?? []) ctx.hits.add(hit);
      ctx.hits.skipped.push(...reply.skipped ?? []);
      files.count += reply.scanned ?? 0;
      for (const [path, label] of reply.labels ?? []) {
        files.labels.set(path, label);
      }
      for (const [path, why] of reply.skips ?? []) options.onSkip?.(path, why);
    });
    wanted = 0;
    if (helpers === undefined) return;
    helpers.begin({
      query: help!.query,
      regex: help!.regex,
      limit: help!.limit,
      filter: help!.filter,
      paths,
      claims: claims.buffer,
      sinceMs: options.sinceMs,
    });
    await _helping.started?.();
  };
  try {
    if (wanted > 0 && paths.length >= _helping.eagerFiles) await start();
    const began = performance.now();
    for (let i = 0; i < paths.length; i++) {
      await turns.give();
      if (
        wanted > 0 &&
        worthHelping(_helping, performance.now() - began, i, paths.length)
      ) await start();
      if (!claims.front(i)) break; // the rest is the helpers'
      await scanOne(paths[i]!, ctx, files, options);
      scanned[i] = 1;
      fileDone();
    }
    if (helpers !== undefined) await helpers.finished();
  } finally {
    helpers?.close();
  }
  // Files a helper claimed and did not post (it died): scanned here.
  for (let i = 0; i < paths.length; i++) {
    if (scanned[i] === 1) continue;
    await turns.give();
    await scanOne(paths[i]!, ctx, files, options);
    fileDone();
  }
}

/**
 * Scan one file into `ctx.hits`: its head read, its entries scanned (the
 * version 3 way or the legacy way), its hits marked on or off its active
 * path; a file that cannot be searched reported.
 *
 * @param path The file.
 * @param ctx The kernel, the filter, the hits.
 * @param files Where it is counted, and its id and title go if it has hits.
 * @param options The date, the report of skipped files.
 */
export async function scanOne(
  path: string,
  ctx: ScanContext,
  files: ScannedFiles,
  options: Pick<ScanFilesOptions, "sinceMs" | "onSkip">,
): Promise<void> {
  const hits = ctx.hits;
  try {
    const stat = seam().statSync(path);
    if (
      options.sinceMs !== undefined &&
      (stat.mtime?.getTime() ?? 0) < options.sinceMs
    ) return; // not opened
    // A small file is read once, synchronously; its head and its scan
    // read it from memory (each read through the file cost ~7
    // asynchronous calls: ~300 µs a file of 10,000 small ones).
    const snapshot = takeSnapshot(path, stat, SNAPSHOT_BYTES, ctx.small);
    const read = await readSessionHead(snapshot ?? path, stat);
    if ("skip" in read) {
      options.onSkip?.(path, read.skip);
      return;
    }
    files.count++;
    const version = headerVersion(read.head.header);
    const bodyStart = read.head.bodyStart;
    using file = snapshot?.handle() ??
      await openRegular(path, `Cannot search ${quote(path)}`);
    const activePath = version < SESSION_VERSION
      ? await scanLegacyFile(file, path, version, bodyStart, hits)
      : await scanFile(file, path, bodyStart, ctx);
    const ours = hits.hits.filter((hit) => hit.path === path);
    if (ours.length === 0) return; // no tree walked for a file without hits
    const info = sessionInfo(path, read.info, read.head);
    files.labels.set(path, {
      id: info.id,
      ...(info.title === undefined ? {} : { title: info.title }),
    });
    const onPath = await activePath();
    for (const hit of ours) hit.onActivePath = onPath.has(hit.entryId);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return; // gone meanwhile
    const why = err instanceof Error ? err.message : String(err);
    options.onSkip?.(path, `cannot be searched: ${why}`);
  }
}
