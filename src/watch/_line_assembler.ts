/**
 * Lines assembled from bytes that arrive in pieces, as a file grows: a line
 * is handed over once its "\n" has come; until then its start is kept (up
 * to the loader's line limit; a longer line is reported and passed over).
 *
 * @module
 */

import type { IssueLog } from "../read/_decode.ts";
import { MAX_LINE_BYTES } from "./_backward.ts";
import { completeLine, type EntryLine } from "./_entry_line.ts";

/** The lines of a growing file, from a line start on. */
export class LineAssembler {
  /** Where the line being read starts: everything before it is done. */
  offset = 0;
  /** Bytes taken so far (the line being read lies in `[offset, readTo)`). */
  readTo = 0;
  #pending = new Uint8Array(64 << 10);
  #pendingLength = 0;
  /** The line being read is too long: its bytes are dropped until its end. */
  #skipping = false;
  readonly #log: IssueLog;

  /** @param log Where an oversized line is reported. */
  constructor(log: IssueLog) {
    this.#log = log;
  }

  /** Start again at a line start, nothing kept. */
  restart(offset: number): void {
    this.offset = offset;
    this.readTo = offset;
    this.#pendingLength = 0;
    this.#skipping = false;
  }

  /** The first bytes kept of the line being read (at most `max`). */
  kept(max: number): Uint8Array {
    const n = this.#skipping ? 0 : Math.min(this.#pendingLength, max);
    return this.#pending.subarray(0, n);
  }

  /**
   * Take the bytes that follow `readTo`; hand over each line they complete
   * (a view, valid during the call).
   */
  take(bytes: Uint8Array, onLine: (line: EntryLine) => void): void {
    const base = this.readTo;
    let start = 0;
    for (
      let nl = bytes.indexOf(0x0a);
      nl >= 0;
      nl = bytes.indexOf(0x0a, start)
    ) {
      if (this.#skipping) this.#skipping = false;
      else {
        onLine(
          this.#pendingLength === 0
            ? completeLine(bytes, start, nl, this.offset)
            : this.#joined(bytes.subarray(start, nl)),
        );
      }
      this.#pendingLength = 0;
      this.offset = base + nl + 1;
      start = nl + 1;
    }
    this.readTo = base + bytes.length;
    if (!this.#skipping) this.#keep(bytes.subarray(start));
  }

  /** Keep the start of a line still being written; drop it past the limit. */
  #keep(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const length = this.#pendingLength + bytes.length;
    if (length > MAX_LINE_BYTES) {
      this.#log.add(
        "oversized-line",
        0,
        this.offset,
        `the line at byte ${this.offset} is longer than the loader's limit and was skipped`,
      );
      this.#skipping = true;
      this.#pendingLength = 0;
      return;
    }
    this.#grow(length);
    this.#pending.set(bytes, this.#pendingLength);
    this.#pendingLength = length;
  }

  /** The line kept so far and its end, as one complete line. */
  #joined(rest: Uint8Array): EntryLine {
    const length = this.#pendingLength + rest.length;
    this.#grow(length);
    this.#pending.set(rest, this.#pendingLength);
    return completeLine(this.#pending, 0, length, this.offset);
  }

  #grow(length: number): void {
    if (length <= this.#pending.length) return;
    let size = this.#pending.length;
    while (size < length) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#pending.subarray(0, this.#pendingLength));
    this.#pending = grown;
  }
}
