/**
 * A helper thread of a usage pass (a Web Worker): it claims pieces of work
 * (files, or parts of large ones) from the back of the pass's list (the
 * calling thread reads from the front), reads each as the calling thread
 * would (`passPath`), and posts the calls it found, in columns, every few
 * milliseconds. The calling thread counts them in the pieces' order once
 * it has counted its own.
 *
 * @module
 */

import { seam } from "../../fs/_seam.ts";
import { CallLog, type LoggedPiece } from "./_call_log.ts";
import { PieceClaims } from "../../fs/_threads.ts";
import type { HelperReply, HelperStart } from "./_helpers.ts";
import { passPath } from "./_file_pass.ts";
import { adoptFinderModule, usageFinder } from "./_finder.ts";

/** Milliseconds of reading between two posts. */
const _POST_MS = 8;

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<HelperStart>) => void) | null;
  postMessage(message: HelperReply, transfer: ArrayBuffer[]): void;
};

scope.onmessage = (e) => {
  scope.onmessage = null;
  void _run(e.data);
};

async function _run(start: HelperStart): Promise<void> {
  const claims = new PieceClaims(start.paths.length, start.claims);
  const log = new CallLog();
  const post = (done: boolean) => {
    const { message, transfer } = log.take();
    scope.postMessage({ log: message, done }, transfer);
  };
  let posted = performance.now();
  try {
    await _claimAndRead(start, claims, log, () => {
      if (performance.now() - posted < _POST_MS) return;
      post(false);
      posted = performance.now();
    });
  } finally {
    // Done, or failed on something passPath does not catch: what was read
    // is posted, and the caller reads the files claimed and not posted.
    post(true);
  }
}

async function _claimAndRead(
  start: HelperStart,
  claims: PieceClaims,
  log: CallLog,
  fileDone: () => void,
): Promise<void> {
  adoptFinderModule(start.finder);
  const finder = usageFinder(start.chunk);
  const scratch = new Uint8Array(start.chunk);
  for (;;) {
    const i = claims.back();
    if (i === -1) break;
    const range = { from: start.from[i]!, to: start.to[i]! };
    const head: LoggedPiece = { sessionId: "", cwd: "" };
    const skip = await passPath(seam(), start.paths[i]!, finder, scratch, {
      head: (w) => Object.assign(head, w),
      request: (u) => log.add(u),
      progress: () => {},
    }, range);
    if (skip !== undefined) head.skip = skip;
    log.endPiece(i, head);
    fileDone();
  }
}
