/**
 * One export as its two modes (the active branch, the whole tree) see it:
 * the session, the renderer, where images go, how the output is opened.
 *
 * @module
 */

import type { Assets } from "./_assets.ts";
import type { ExportMeta, IssueCount } from "./_meta.ts";
import type { Renderer, Sink, Written } from "./_renderer.ts";

/** What a mode works with. */
export interface ExportJob {
  /** The session file. */
  path: string;
  /** Where `blobs/` lives, when known. */
  dataDir: string | undefined;
  /** The format's renderer. */
  renderer: Renderer;
  /** Where images go. */
  assets: Assets;
  /** A folder for scratch files (the output's folder). */
  scratch: string;
  /**
   * Open the output, its header saying `meta`.
   *
   * @param meta What the header says.
   * @returns The sink.
   */
  openSink(meta: ExportMeta): Promise<Sink>;
  /**
   * Report progress.
   *
   * @param done Work done.
   * @param total All the work.
   * @param unit What is counted.
   */
  progress(done: number, total: number, unit: "messages" | "bytes"): void;
}

/** What a mode did. */
export interface JobResult {
  /** The files written. */
  written: Written;
  /** Messages exported. */
  messages: number;
  /** Entries read. */
  entries: number;
  /** Branches shown off the active path (0 for the active branch). */
  branches: number;
  /** Damage read around, by kind. */
  issues: IssueCount[];
}

/**
 * Write fragments to a sink, finishing it, or aborting it when `work` fails.
 *
 * @param sink The opened output.
 * @param work What writes to it.
 * @returns What the sink wrote.
 */
export async function writeThrough<T>(
  sink: Sink,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    await sink.abort();
    throw err;
  }
}
