/**
 * What the helper threads of a usage pass (`_usage_helper.ts`, started
 * through `fs/_threads.ts`) are sent and post.
 *
 * @module
 */

import type { CallLogMessage } from "./_call_log.ts";

/** What a helper is sent: the pass's pieces of work, and the shared claims. */
export interface HelperStart {
  /** The files and parts of files, in the pass's order; a piece's number is its index. */
  items: { path: string; from: number; to: number }[];
  /** The claims' shared memory (`PieceClaims.buffer`). */
  claims: SharedArrayBuffer;
  /** Bytes read at a time. */
  chunk: number;
}

/** What a helper posts: the calls of the pieces it read since its last post. */
export interface HelperReply {
  /** The pieces and their calls. */
  log: CallLogMessage;
  /** Whether the helper is done (no piece left to claim). */
  done: boolean;
}
