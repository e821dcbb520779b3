/**
 * The calls of the pieces of work (files, or parts of large ones) a helper
 * thread of a usage pass read, kept in columns to be posted to the calling
 * thread (typed arrays, strings interned) and counted there in the
 * pieces' order: a copy of a call is counted in the earliest-created file
 * that holds it, whichever thread read which file first.
 *
 * @module
 */

import type { RequestUsage } from "../../format/usage.ts";
import type { CountedUsage } from "./_tally.ts";

/** Numbers kept per call: time, input, output, cache read, cache write, cost. */
const _NUMS = 6;
/** Strings kept per call (as indices into the table): provider, model, stop reason. */
const _STRS = 3;
const _MALFORMED = 1, _UNPRICED = 2;

/** A piece of a log: its file's session (empty where its head was not read: a later part), and why the file was skipped. */
export interface LoggedPiece {
  /** The session's id. */
  sessionId: string;
  /** Its working directory. */
  cwd: string;
  /** Why the file was skipped (not a session, or not readable), if it was. */
  skip?: string | undefined;
}

/** A log as posted between threads. */
export interface CallLogMessage {
  /** The interned strings. */
  table: string[];
  /** Per call: the entry id. */
  ids: string[];
  /** Per call: {@linkcode _NUMS} numbers (cost NaN when none is recorded). */
  nums: Float64Array;
  /** Per call: {@linkcode _STRS} indices into `table`. */
  strs: Int32Array;
  /** Per call: malformed (1), unpriced (2). */
  flags: Uint8Array;
  /** Per piece: its number (in the pass's order). */
  pieceIndex: number[];
  /** Per piece: the end of its calls (the start is the previous piece's end). */
  pieceEnd: number[];
  /** Per piece: its session, and why its file was skipped, if it was. */
  pieceHead: LoggedPiece[];
}

/** Calls of pieces of work, in columns. */
export class CallLog {
  #table: string[] = [];
  readonly #interned = new Map<string, number>();
  #ids: string[] = [];
  #nums = new Float64Array(_NUMS * 256);
  #strs = new Int32Array(_STRS * 256);
  #flags = new Uint8Array(256);
  #count = 0;
  #pieceIndex: number[] = [];
  #pieceEnd: number[] = [];
  #pieceHead: LoggedPiece[] = [];

  /**
   * Log a call of the piece being read.
   *
   * @param u The call.
   */
  add(u: RequestUsage): void {
    const i = this.#count++;
    if (i === this.#flags.length) this.#grow();
    this.#ids.push(u.entryId);
    const n = this.#nums, at = i * _NUMS;
    n[at] = u.timestamp;
    n[at + 1] = u.input;
    n[at + 2] = u.output;
    n[at + 3] = u.cacheRead;
    n[at + 4] = u.cacheWrite;
    n[at + 5] = u.cost ?? NaN;
    const s = this.#strs, st = i * _STRS;
    s[st] = this.#intern(u.provider);
    s[st + 1] = this.#intern(u.model);
    s[st + 2] = this.#intern(u.stopReason);
    this.#flags[i] = (u.malformed ? _MALFORMED : 0) |
      (u.unpriced ? _UNPRICED : 0);
  }

  /**
   * End the piece being read: its calls are those logged since the last end.
   *
   * @param index Its number in the pass.
   * @param head Its session, and why its file was skipped.
   */
  endPiece(index: number, head: LoggedPiece): void {
    this.#pieceIndex.push(index);
    this.#pieceEnd.push(this.#count);
    this.#pieceHead.push(head);
  }

  /**
   * The log as a message, its arrays to transfer; the log is empty after.
   *
   * @returns The message and its transferables.
   */
  take(): { message: CallLogMessage; transfer: ArrayBuffer[] } {
    const count = this.#count;
    const message: CallLogMessage = {
      table: this.#table,
      ids: this.#ids,
      nums: this.#nums.slice(0, count * _NUMS),
      strs: this.#strs.slice(0, count * _STRS),
      flags: this.#flags.slice(0, count),
      pieceIndex: this.#pieceIndex,
      pieceEnd: this.#pieceEnd,
      pieceHead: this.#pieceHead,
    };
    this.#table = [];
    this.#interned.clear();
    this.#ids = [];
    this.#count = 0;
    this.#pieceIndex = [];
    this.#pieceEnd = [];
    this.#pieceHead = [];
    const transfer = [message.nums, message.strs, message.flags].map((a) =>
      a.buffer as ArrayBuffer
    );
    return { message, transfer };
  }

  #intern(s: string): number {
    let k = this.#interned.get(s);
    if (k === undefined) {
      k = this.#table.push(s) - 1;
      this.#interned.set(s, k);
    }
    return k;
  }

  #grow(): void {
    const size = this.#flags.length * 2;
    const nums = new Float64Array(size * _NUMS);
    nums.set(this.#nums);
    const strs = new Int32Array(size * _STRS);
    strs.set(this.#strs);
    const flags = new Uint8Array(size);
    flags.set(this.#flags);
    this.#nums = nums;
    this.#strs = strs;
    this.#flags = flags;
  }
}

/** One call of a posted log, read in place: a view moved from call to call. */
export class LoggedCall implements CountedUsage {
  timestamp = 0;
  provider = "";
  model = "";
  stopReason = "";
  input = 0;
  output = 0;
  cacheRead = 0;
  cacheWrite = 0;
  cost: number | undefined = undefined;
  malformed = false;
  unpriced = false;
  entryId = "";

  /**
   * Show call `i` of `log`.
   *
   * @param log The posted log.
   * @param i The call.
   * @returns This view.
   */
  at(log: CallLogMessage, i: number): this {
    const n = log.nums, at = i * _NUMS;
    const s = log.strs, st = i * _STRS;
    this.entryId = log.ids[i]!;
    this.timestamp = n[at]!;
    this.input = n[at + 1]!;
    this.output = n[at + 2]!;
    this.cacheRead = n[at + 3]!;
    this.cacheWrite = n[at + 4]!;
    const cost = n[at + 5]!;
    this.cost = Number.isNaN(cost) ? undefined : cost;
    this.provider = log.table[s[st]!]!;
    this.model = log.table[s[st + 1]!]!;
    this.stopReason = log.table[s[st + 2]!]!;
    const f = log.flags[i]!;
    this.malformed = (f & _MALFORMED) !== 0;
    this.unpriced = (f & _UNPRICED) !== 0;
    return this;
  }
}
