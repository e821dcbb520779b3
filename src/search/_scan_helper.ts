/**
 * A helper thread of a search scan (a Web Worker): it makes the scan's
 * matcher again from the query, claims files from the back of the list
 * (the calling thread scans from the front), scans each as the calling
 * thread would (`scanOne`), and posts what it found once it is done: its
 * hits (the newest of its files, their active path marked), the matching
 * lines skipped, how many files it read and the labels of those with hits,
 * and the files it could not search.
 *
 * @module
 */

import { SNAPSHOT_BYTES } from "../fs/_snapshot.ts";
import { PieceClaims } from "../fs/_threads.ts";
import { borrowKernel } from "../read/_kernel.ts";
import { HitList } from "./_hits.ts";
import { LaterLines } from "./_later_lines.ts";
import { ByteNeedle } from "./_needle.ts";
import { SearchQuery } from "./_query.ts";
import { regexMatcher } from "./_regex.ts";
import {
  type ScanHelperReply,
  type ScanHelperStart,
  type ScannedFiles,
  scanOne,
} from "./_scan_files.ts";

/** Milliseconds between two posts of progress. */
const _POST_MS = 8;

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<ScanHelperStart>) => void) | null;
  postMessage(message: ScanHelperReply): void;
};

scope.onmessage = (e) => {
  scope.onmessage = null;
  void _run(e.data);
};

async function _run(start: ScanHelperStart): Promise<void> {
  const matcher = start.regex
    ? regexMatcher(start.query)
    : SearchQuery.parse(start.query);
  const hits = new HitList(matcher, start.limit, start.filter);
  const ctx = {
    kernel: borrowKernel(),
    needle: start.regex ? undefined : ByteNeedle.of(matcher as SearchQuery),
    hits,
    later: new LaterLines(),
    small: new Uint8Array(SNAPSHOT_BYTES),
  };
  const claims = new PieceClaims(start.paths.length, start.claims);
  const scanned: ScannedFiles = { count: 0, labels: new Map() };
  const skips: [string, string][] = [];
  const files: number[] = [];
  let progress = 0;
  let posted = performance.now();
  for (let i = claims.back(); i !== -1; i = claims.back()) {
    await scanOne(start.paths[i]!, ctx, scanned, {
      sinceMs: start.sinceMs,
      onSkip: (path, why) => skips.push([path, why]),
    });
    files.push(i);
    progress++;
    if (performance.now() - posted >= _POST_MS) {
      scope.postMessage({ progress, done: false });
      progress = 0;
      posted = performance.now();
    }
  }
  scope.postMessage({
    progress,
    done: true,
    files,
    hits: hits.hits,
    skipped: hits.skipped,
    scanned: scanned.count,
    labels: [...scanned.labels],
    skips,
  });
}
