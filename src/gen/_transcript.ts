/**
 * The shape of a generated transcript: user turns, tool rounds and replies,
 * with compactions, resets, model changes and the branch back placed by
 * size; and its bytes, encoded straight into chunks.
 *
 * The entries come from a generator that is resumed only once the entry
 * before is written, so every decision reads the size written so far. The
 * file ends after the first entry that reaches the target size: the caller
 * stops asking for more.
 *
 * @module
 */

import { encodeEntry, type SessionEntry } from "../format/entries.ts";
import type { ToolCallBlock } from "../format/messages.ts";
import { _BODY_MARK, _Entries } from "./_entries.ts";
import { type _Body, _Rng, _Text } from "./_text.ts";

/** Bytes handed to the sink at a time. */
const CHUNK_BYTES = 1 << 20;
/** `"\n"` inside a JSON string. */
const ESCAPED_NEWLINE = new TextEncoder().encode("\\n");
/** Longest tail written under the branch_summary of `branchBackAtEnd`. */
const BRANCH_TAIL_MAX = 512 * 1024;
/** Entries remembered for picking compaction and branch targets. */
const RECENT_KEPT = 64;

/** Options of {@linkcode generateTranscript} and {@linkcode generateFile}. */
export interface GenerateOptions {
  /** Target size in bytes; the file ends at the first entry boundary at or past it. */
  size: number;
  /** PRNG seed (default 1): the same options give the same bytes. */
  seed?: number;
  /**
   * Bytes between compactions (default 5 MiB). None falls within half of
   * this before the last compaction.
   */
  compactionEvery?: number;
  /** Fractions of the file at which a reset_boundary is written (default [0.3, 0.7]). */
  resetsAt?: number[];
  /**
   * Where the last compaction falls, in bytes before the end (default
   * 3.5 MiB: the final window is ~4 MB whatever the size): at the first
   * tool-round or turn boundary at or past `size - lastCompactionBeforeEnd`.
   * A file no larger than this gets no compaction at all.
   */
  lastCompactionBeforeEnd?: number;
  /** Called with the bytes written so far after each chunk; the last call has the final size. */
  onProgress?: (written: number, total: number) => void;
  /**
   * Branch back at the end (default false): a branch_summary under the turn
   * that ended just before the last compaction's first kept entry, then
   * turns under it for the last min(512 KiB, lastCompactionBeforeEnd / 2)
   * bytes.
   */
  branchBackAtEnd?: boolean;
  /**
   * A settings checkpoint (`custom` entry `xdev.settings`) after every
   * compaction and reset, as this library's writer puts them (default
   * true); false gives what omp writes.
   */
  checkpoints?: boolean;
}

/** What {@linkcode generateTranscript} wrote. */
export interface GenerateResult {
  /** File size in bytes. */
  bytes: number;
  /** Entry lines (every line after the title slot and the header). */
  entries: number;
  /** `compaction` entries written. */
  compactions: number;
  /** `reset_boundary` entries written. */
  resets: number;
  /** Byte offset of the last compaction's line, or -1 when there is none. */
  lastCompactionOffset: number;
  /** Id of the last entry: the session's leaf. */
  leafId: string;
}

/** The options that shape the bytes, checked, the defaults filled in (`resetsAt` sorted). */
export type _Shape = Required<Omit<GenerateOptions, "onProgress">>;

/** An entry to write, with the body of a tool output spliced into it. */
type _Item = readonly [entry: SessionEntry, body?: _Body | undefined];

/** What a recent entry was: a user turn, the end of a turn, or other. */
interface _Recent {
  id: string;
  kind: "user" | "turnEnd" | "other";
  model: number;
}

/** One transcript: the slot, the header, then entries to the target size. */
export class _Transcript {
  readonly #c: _Shape;
  readonly #r: _Rng;
  readonly #e: _Entries;
  readonly #out = new _Chunks();
  #entries = 0;
  #compactions = 0;
  #lastCompactionOffset = -1;
  #recent: _Recent[] = [];
  /** Rounds of tool calls left in the turn; -1 between turns. */
  #roundsLeft = -1;
  #afterUser = false;
  #modelChangeDue = false;
  /** The `resetsAt` written so far. */
  #resetIndex = 0;
  /** Where the last compaction goes (if the file is longer than its distance), until it is written. */
  #finalAt: number | undefined;
  /** Where `branchBackAtEnd` branches, until it has; and the entry it goes back to. */
  #branchAt: number | undefined;
  #branchPoint: _Recent | undefined;

  constructor(shape: _Shape) {
    this.#c = shape;
    this.#r = new _Rng(shape.seed);
    this.#e = new _Entries(this.#r, new _Text(this.#r));
    const { size, lastCompactionBeforeEnd: last } = shape;
    this.#finalAt = size > last ? size - last : undefined;
    this.#branchAt = shape.branchBackAtEnd
      ? size - Math.min(BRANCH_TAIL_MAX, last / 2)
      : undefined;
  }

  /** The file's bytes in chunks of at most 1 MiB, made as they are asked for. */
  *chunks(): Generator<Uint8Array<ArrayBuffer>, void, undefined> {
    for (const [entry, body] of this.#items()) {
      this.#write(entry, body);
      yield* this.#out.take();
      // With branchBackAtEnd the file does not end before the branch.
      if (this.#out.size >= this.#c.size && this.#branchAt === undefined) {
        break;
      }
    }
    yield* this.#out.end();
  }

  /** What {@linkcode chunks} wrote. */
  result(): GenerateResult {
    return {
      bytes: this.#out.size,
      entries: this.#entries,
      compactions: this.#compactions,
      resets: this.#resetIndex,
      lastCompactionOffset: this.#lastCompactionOffset,
      leafId: this.#recent.at(-1)!.id,
    };
  }

  *#items(): Generator<_Item, never, undefined> {
    const { head, entries } = this.#e.opening(this.#c.seed);
    this.#out.copy(head);
    for (const entry of entries) yield [entry];
    for (;;) yield* this.#step();
  }

  /** Events due at this point, then a user turn, a tool round or a reply. */
  *#step(): Generator<_Item> {
    if (!this.#afterUser) yield* this.#events();
    const r = this.#r;
    const ascii = r.chance(0.04);
    if (this.#roundsLeft < 0) {
      this.#roundsLeft = r.chance(0.2) ? 0 : r.range(1, 5);
      this.#afterUser = true;
      yield [this.#e.user(ascii)];
      return;
    }
    this.#afterUser = false;
    if (this.#roundsLeft === 0) {
      this.#roundsLeft = -1;
      yield [this.#e.assistant(ascii, 0)];
      return;
    }
    this.#roundsLeft--;
    const calls = r.chance(0.75) ? 1 : r.chance(0.7) ? 2 : 3;
    const turn = this.#e.assistant(ascii, calls);
    yield [turn];
    for (const block of turn.message.content) {
      if (block.type !== "toolCall") continue;
      const call = block as ToolCallBlock;
      const { entry, body } = this.#e.toolResult(call, r.chance(0.05));
      yield [entry, body];
    }
  }

  /** Compactions, the branch, resets and model changes due now. */
  *#events(): Generator<_Item> {
    const bytes = this.#out.size;
    const { compactionEvery, resetsAt, size } = this.#c;
    const final = this.#finalAt;
    if (final !== undefined) {
      if (bytes >= final) {
        this.#finalAt = undefined;
        yield* this.#compaction(true);
      } else if (
        // compactionEvery after the last one; none just before the final one
        bytes >= Math.max(this.#lastCompactionOffset, 0) + compactionEvery &&
        bytes < final - compactionEvery / 2
      ) {
        yield* this.#compaction(false);
      }
    }
    const branchAt = this.#branchAt;
    if (branchAt !== undefined && bytes >= branchAt) {
      this.#branchAt = undefined;
      yield* this.#branch();
    }
    if (this.#roundsLeft >= 0) return; // mid-turn: the rest waits
    const resetAt = resetsAt[this.#resetIndex];
    if (resetAt !== undefined && bytes >= resetAt * size) {
      this.#resetIndex++;
      yield [this.#e.envelope("reset_boundary", 30)];
      yield* this.#checkpoint();
    }
    if (this.#modelChangeDue || this.#r.chance(0.02)) {
      this.#modelChangeDue = false;
      this.#e.model ^= 1;
      yield [this.#e.modelChange()];
    }
  }

  *#compaction(final: boolean): Generator<_Item> {
    const kept = this.#firstKept();
    if (final) this.#branchPoint = this.#before(kept);
    const offset = this.#out.size;
    const entry = this.#e.compaction(
      this.#recent[kept]?.id ?? null,
      offset - this.#lastCompactionOffset,
    );
    this.#compactions++;
    this.#lastCompactionOffset = offset;
    this.#modelChangeDue = this.#r.chance(0.5);
    yield [entry];
    yield* this.#checkpoint();
  }

  /** The settings checkpoint after a boundary (see the `checkpoints` option). */
  *#checkpoint(): Generator<_Item> {
    if (this.#c.checkpoints) yield [this.#e.checkpoint()];
  }

  /** The user branched back to before the last compaction: a summary under that entry. */
  *#branch(): Generator<_Item> {
    const point = this.#branchPoint ?? this.#before(this.#firstKept());
    if (point === undefined) return;
    this.#e.parent = point.id;
    this.#e.model = point.model;
    this.#roundsLeft = -1;
    this.#recent = [point];
    yield [this.#e.branchSummary(point.id)];
  }

  /** Index in #recent of the first kept entry: the latest user message a few entries back. */
  #firstKept(): number {
    const recent = this.#recent;
    for (let i = recent.length - 3; i >= 0; i--) {
      if (recent[i]!.kind === "user") return i;
    }
    return Math.max(0, recent.length - 3);
  }

  /** The latest turn end before index `kept` (else the entry just before it). */
  #before(kept: number): _Recent | undefined {
    for (let i = kept - 1; i >= 0; i--) {
      if (this.#recent[i]!.kind === "turnEnd") return this.#recent[i];
    }
    return this.#recent[kept - 1] ?? this.#recent[this.#recent.length - 1];
  }

  #write(entry: SessionEntry, body: _Body | undefined): void {
    const line = encodeEntry(entry);
    if (body === undefined) {
      this.#out.line(line);
    } else {
      const at = line.indexOf(_BODY_MARK);
      this.#out.text(line.slice(0, at));
      this.#out.body(body);
      this.#out.line(line.slice(at + _BODY_MARK.length));
    }
    this.#entries++;
    this.#recent.push({
      id: entry.id,
      kind: _kind(entry),
      model: this.#e.model,
    });
    if (this.#recent.length > RECENT_KEPT) this.#recent.shift();
  }
}

/** A turn starts with a user message and ends with an assistant one that stops. */
function _kind(entry: SessionEntry): _Recent["kind"] {
  const { message } = entry as {
    message?: { role: string; stopReason?: unknown };
  };
  if (message?.role === "user") return "user";
  return message?.stopReason === "stop" ? "turnEnd" : "other";
}

/**
 * Lines encoded straight into chunks of {@linkcode CHUNK_BYTES} with one
 * encoder, the full ones queued until taken. Each chunk has its buffer, so
 * a sink may keep it.
 */
class _Chunks {
  readonly #encoder = new TextEncoder();
  #buf = new Uint8Array(CHUNK_BYTES);
  #pos = 0;
  #done = 0;
  #full: Uint8Array<ArrayBuffer>[] = [];

  /** Bytes written so far, queued or not. */
  get size(): number {
    return this.#done + this.#pos;
  }

  /** The full chunks, taken off the queue. */
  take(): Uint8Array<ArrayBuffer>[] {
    return this.#full.splice(0);
  }

  /** The chunks left, the last one short. */
  end(): Uint8Array<ArrayBuffer>[] {
    this.#cut();
    return this.take();
  }

  /** Append `text` and a `"\n"`; cut the chunk when it is nearly full. */
  line(text: string): void {
    this.text(text);
    if (this.#pos === this.#buf.length) this.#cut();
    this.#buf[this.#pos++] = 0x0a;
    if (this.#pos >= CHUNK_BYTES - 64) this.#cut();
  }

  /** Append `text` as UTF-8. */
  text(text: string): void {
    let rest = text;
    for (;;) {
      const into = this.#buf.subarray(this.#pos);
      const { read, written } = this.#encoder.encodeInto(rest, into);
      this.#pos += written;
      if (read === rest.length) return;
      // encodeInto stops on a code point boundary, so the slice is whole.
      rest = rest.slice(read);
      this.#cut();
    }
  }

  /** Append a tool output as the inside of a JSON string, its pieces joined by an escaped `"\n"`. */
  body(pieces: _Body): void {
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) this.copy(ESCAPED_NEWLINE);
      if (typeof piece === "string") {
        this.text(JSON.stringify(piece).slice(1, -1));
      } else {
        this.copy(piece);
      }
    }
  }

  /** Append `bytes` as they are. */
  copy(bytes: Uint8Array): void {
    let rest = bytes;
    while (rest.length > this.#buf.length - this.#pos) {
      const room = this.#buf.length - this.#pos;
      this.#buf.set(rest.subarray(0, room), this.#pos);
      this.#pos += room;
      rest = rest.subarray(room);
      this.#cut();
    }
    this.#buf.set(rest, this.#pos);
    this.#pos += rest.length;
  }

  #cut(): void {
    if (this.#pos === 0) return;
    this.#full.push(this.#buf.subarray(0, this.#pos));
    this.#done += this.#pos;
    this.#pos = 0;
    this.#buf = new Uint8Array(CHUNK_BYTES);
  }
}
