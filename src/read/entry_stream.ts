/**
 * `SessionEntryStream`: bytes in, parsed records out, for whole-file work
 * (stats, export, scanning many sessions).
 *
 * @module
 */

import type { LoadIssue } from "../format/issues.ts";
import type { SessionRecord } from "../format/records.ts";
import { IssueLog } from "./_decode.ts";
import { HEAD_LINE_MAX_BYTES } from "./_head.ts";
import { LineStream } from "./lines.ts";
import { sessionRecords } from "./_records.ts";
import { DEFAULT_MAX_LINE_BYTES } from "./lines.ts";

/** Options for {@linkcode SessionEntryStream}. */
export interface SessionEntryStreamOptions {
  /** A name for the stream in errors. Default `"<stream>"`. */
  name?: string;
  /** Called with each piece of damage read around. */
  onIssue?: (issue: LoadIssue) => void;
  /** Lines longer than this are reported and skipped unread. Default 64 MiB. */
  maxLineBytes?: number;
}

/**
 * A transform from the bytes of a session file to its records: the title
 * slot, the header, then every entry, in file order. Lines may be split
 * anywhere across chunks; damage (torn last line, NUL tail, lines that are
 * not JSON, invalid UTF-8 …) is read around and reported to `onIssue`, as
 * `Session.open` does; an unreadable header errors the stream with a
 * `SessionSyntaxError`. Version 1 and 2 entries are migrated on the fly.
 *
 * @example Counting the entries of a file by type
 * ```ts
 * import { SessionEntryStream } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
 * using file = await Deno.open(url);
 * const types: Record<string, number> = {};
 * for await (const r of file.readable.pipeThrough(new SessionEntryStream())) {
 *   if (r.kind === "entry") types[r.value.type] = (types[r.value.type] ?? 0) + 1;
 * }
 * equal(types.message, 47);
 * ```
 */
export class SessionEntryStream
  implements TransformStream<Uint8Array, SessionRecord> {
  /** Where the bytes go. */
  readonly writable: WritableStream<Uint8Array>;
  /** Where the records come out. */
  readonly readable: ReadableStream<SessionRecord>;

  /**
   * Make the pair of streams.
   *
   * @param options A name for errors and a callback for damage.
   */
  constructor(options: SessionEntryStreamOptions = {}) {
    const bytes = new TransformStream<Uint8Array, Uint8Array>();
    this.writable = bytes.writable;
    const log = new IssueLog(options.onIssue);
    const lines = bytes.readable.pipeThrough(
      new LineStream({
        maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
        maxFirstLineBytes: HEAD_LINE_MAX_BYTES,
      }),
    );
    this.readable = ReadableStream.from(
      sessionRecords(lines, options.name ?? "<stream>", log),
    );
  }
}
