/**
 * Scanning session files one after another with one kernel: each file's
 * head read, its entries scanned (the version 3 way or the legacy way),
 * its hits marked on or off its active path.
 *
 * @module
 */

import { headerVersion, SESSION_VERSION } from "../../format/header.ts";
import { openRegular } from "../../fs/_read.ts";
import { quote } from "../../fs/_errors.ts";
import { seam } from "../../fs/_seam.ts";
import { SNAPSHOT_BYTES, takeSnapshot } from "../../fs/_snapshot.ts";
import { readSessionHead, sessionInfo } from "../_session_files.ts";
import type { HitList } from "./_hits.ts";
import { borrowKernel, releaseKernel } from "../../read/_kernel.ts";
import type { ByteNeedle } from "./_needle.ts";
import { LaterLines } from "./_later_lines.ts";
import { EventLoopTurns } from "../../fs/_turns.ts";
import { type ScanContext, scanFile } from "./_scan.ts";
import { scanLegacyFile } from "./_scan_legacy.ts";

/** A session's id and title, for its hits. */
export interface SessionLabel {
  /** The header's id. */
  id: string;
  /** The title, when it has one. */
  title?: string;
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
}

/**
 * Scan `paths` into `hits`.
 *
 * @param paths The files.
 * @param hits Where matches go.
 * @param options The filter, the date, reports.
 * @returns Each scanned file's id and title.
 */
export async function scanFiles(
  paths: readonly string[],
  hits: HitList,
  options: ScanFilesOptions,
): Promise<Map<string, SessionLabel>> {
  const labels = new Map<string, SessionLabel>();
  if (paths.length === 0) return labels;
  const ctx = {
    kernel: borrowKernel(),
    needle: options.needle,
    hits,
    later: new LaterLines(),
  };
  try {
    await _scanEach(paths, ctx, labels, options);
  } finally {
    releaseKernel(ctx.kernel);
    ctx.later.release();
  }
  return labels;
}

async function _scanEach(
  paths: readonly string[],
  ctx: ScanContext,
  labels: Map<string, SessionLabel>,
  options: ScanFilesOptions,
): Promise<void> {
  const hits = ctx.hits;
  const turns = new EventLoopTurns(); // small files are read synchronously
  for (const path of paths) {
    await turns.give();
    try {
      const stat = seam().statSync(path);
      if (
        options.sinceMs !== undefined &&
        (stat.mtime?.getTime() ?? 0) < options.sinceMs
      ) continue; // not opened
      // A small file is read once, synchronously; its head and its scan
      // read it from memory (each read through the file cost ~7
      // asynchronous calls: ~300 µs a file of 10,000 small ones).
      const snapshot = takeSnapshot(path, stat, SNAPSHOT_BYTES);
      const read = await readSessionHead(snapshot ?? path, stat);
      if ("skip" in read) {
        options.onSkip?.(path, read.skip);
        continue;
      }
      const info = sessionInfo(path, read.info, read.head);
      labels.set(path, {
        id: info.id,
        ...(info.title === undefined ? {} : { title: info.title }),
      });
      const version = headerVersion(read.head.header);
      const bodyStart = read.head.bodyStart;
      using file = snapshot?.handle() ??
        await openRegular(path, `Cannot search ${quote(path)}`);
      const activePath = version < SESSION_VERSION
        ? await scanLegacyFile(file, path, version, bodyStart, hits)
        : await scanFile(file, path, bodyStart, ctx);
      const ours = hits.hits.filter((hit) => hit.path === path);
      if (ours.length === 0) continue; // no tree walked for a file without hits
      const onPath = await activePath();
      for (const hit of ours) hit.onActivePath = onPath.has(hit.entryId);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) continue; // gone meanwhile
      const why = err instanceof Error ? err.message : String(err);
      options.onSkip?.(path, `cannot be searched: ${why}`);
    } finally {
      options.onFile?.();
    }
  }
}
