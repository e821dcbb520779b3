/**
 * What the helper threads of a usage pass (`_usage_helper.ts`, started
 * through `fs/_threads.ts`) are sent and post.
 *
 * @module
 */

import type { CallLogMessage } from "./_call_log.ts";

/**
 * What a helper is sent: the pass's pieces of work, and the shared claims.
 * The pieces go in columns: 10,000 objects took this thread 3–5 ms to
 * post, their paths alone ~1 ms.
 */
export interface HelperStart {
  /** The pieces' files, in the pass's order; a piece's number is its index. */
  paths: string[];
  /** Where each piece starts (see `FileRange`). */
  from: Float64Array;
  /** Where the next one starts (Infinity: the file's end). */
  to: Float64Array;
  /** The claims' shared memory (`PieceClaims.buffer`). */
  claims: SharedArrayBuffer;
  /** Bytes read at a time. */
  chunk: number;
  /** The compiled search (`finderModule`), or null where WebAssembly cannot run it. */
  finder: WebAssembly.Module | null;
}

/** What a helper posts: the calls of the pieces it read since its last post. */
export interface HelperReply {
  /** The pieces and their calls. */
  log: CallLogMessage;
  /** Whether the helper is done (no piece left to claim). */
  done: boolean;
}
