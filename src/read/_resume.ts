/**
 * What the session index records of a file so that a later open reads only
 * the bytes appended since (plus the window): the active path with each
 * line's offset, every id, the labels; the settings along that path, read
 * back from the few lines that carry them; and how a backward walk stops at
 * the record and takes the rest from it.
 *
 * @module
 */

import type { PathSteps } from "../context/_path_steps.ts";
import type { ContextBase } from "../context/context.ts";
import { LatestSettings, type Settings } from "../context/settings.ts";
import type { PathEnd } from "../context/tree.ts";
import type { LatestLabels } from "../context/labels.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { FileHandle } from "../_fs.ts";
import { decodeEntry, IssueLog, wholeLine } from "./_decode.ts";
import type { EnvelopeAt } from "./_envelope.ts";
import type { IdFlags } from "./_id_set.ts";
import { LF } from "./lines.ts";

/** The part of a file a walk reads: positional reads over `size` bytes. */
export interface WindowSource {
  /** Reads up to `p.length` bytes at `position`; the count, 0 at the end. */
  read: FileHandle["read"];
  /** The bytes to walk: the file's size. */
  size: number;
}

/** What the windowed read kept. */
export interface WindowLoad {
  /** The window's entries, in file order. */
  entries: SessionEntry[];
  /** The leaf, or null for a session without entries. */
  leafId: string | null;
  /** What the walk learned of the path before the window. */
  base: ContextBase;
  /** Lines looked at. */
  seen: number;
  /** Whether a settings checkpoint ended the walk. */
  checkpoint: boolean;
  /** Whether the walk stopped at what the index recorded. */
  resumed: boolean;
  /** The end of the file's last whole line: what `record` covers. */
  end: number;
  /**
   * When the walk saw every line (or resumed from a record) and the caller
   * asked to keep it (`keepRecord`): the file's record.
   */
  record?: WindowRecord;
  /**
   * When the walk saw every line (or resumed from a record): every id in
   * the file (the record's, kept without it), so a session mints ids that
   * are unique in the whole file without scanning it again.
   */
  fileIds?: IdFlags;
}

/** Options of `loadWindow`. */
export interface WindowOptions {
  /** Whether a settings checkpoint may end the walk (false: walk to the root). */
  checkpoints: boolean;
  /** Lines longer than this are reported and skipped unread. */
  maxLineBytes: number;
  /**
   * Walk to the file's start, never stopping at a checkpoint, so the walk
   * records what a later open needs to skip the bytes before the end of the
   * file (for the session index). A walk that reaches the start without a
   * checkpoint records it anyway.
   */
  record?: boolean;
  /**
   * Keep the record of a walk that saw every line (`WindowLoad.record`): the
   * session index stores it. Without it only the file's ids are kept: the
   * record's active path grows with the file and nothing else reads it.
   * Implied by `record`.
   */
  keepRecord?: boolean;
  /** What the index recorded of the file's first bytes: the walk stops there. */
  resume?: ResumeFrom;
}

/** What a walk in record mode learned of a whole file. */
export interface WindowRecord {
  /** The active path, leaf first, each step with its line's offset. */
  path: PathSteps;
  /** How the path ends. */
  pathEnd: PathEnd;
  /** Labels in effect over the whole file. */
  labels: Record<string, string>;
  /** Every id in the file. */
  ids: IdFlags;
  /** Entry lines in the file. */
  entries: number;
  /** Message entries in the file. */
  messages: number;
}

/** A record of a file's first `offset` bytes, for a walk to stop at. */
export interface ResumeFrom extends WindowRecord {
  /** The bytes recorded: the walk stops before reading below this. */
  offset: number;
  /** Where the file's entries started when it was recorded (the record holds only while they still do). */
  bodyStart: number;
}

/**
 * A backward walk's use of what the index recorded. Lines at or above the
 * recorded bytes were appended since: they are counted, and one that
 * repeats a recorded id drops the record (the walk then goes on as if
 * there were none). Reaching the recorded bytes past the window, the walk
 * stops when the entry it wants is on the recorded path, and the rest of
 * the path, its settings and labels, and the file's counts come from the
 * record.
 */
export class WalkResume {
  /** The record, while it holds. */
  #from: ResumeFrom | undefined;
  /** Where on the recorded path the walk stopped, or -1. */
  #at = -1;
  /** Entry lines and message entries appended since the record. */
  #entries = 0;
  #messages = 0;

  constructor(from: ResumeFrom | undefined) {
    this.#from = from;
  }

  /** Whether the walk stopped at the record (and takes the rest from it). */
  get stopped(): boolean {
    return this.#at >= 0 && this.#from !== undefined;
  }

  /** Whether the line at `offset` is in the recorded bytes. */
  recorded(offset: number): boolean {
    return this.#from !== undefined && offset < this.#from.offset;
  }

  /**
   * The walk, past the window and wanting `id`, reaches the recorded bytes:
   * whether it stops there. It does when `id` is on the recorded path;
   * otherwise (a branch the record does not know) the record is dropped.
   */
  stopAt(id: string): boolean {
    const i = this.#from?.path.indexOf(id) ?? -1;
    if (i < 0) this.#from = undefined;
    else this.#at = i;
    return i >= 0;
  }

  /** Count an entry line (a message or not) at `offset`. */
  count(message: boolean, offset: number): void {
    const from = this.#from;
    if (from === undefined || offset < from.offset) return;
    this.#entries++;
    if (message) this.#messages++;
  }

  /** The line at `offset` has the id of the envelope `at`: a recorded id written again since drops the record. */
  checkBytes(offset: number, at: EnvelopeAt): void {
    const from = this.#from;
    if (
      from !== undefined && offset >= from.offset &&
      from.ids.getBytes(at.bytes, at.idStart, at.idEnd) !== 0
    ) this.#from = undefined;
  }

  /** The same, for an entry parsed in full. */
  check(offset: number, id: string): void {
    const from = this.#from;
    if (
      from !== undefined && offset >= from.offset && from.ids.get(id) !== 0
    ) this.#from = undefined;
  }

  /**
   * What precedes the window, once stopped: the walk's own settings over
   * those of the recorded path up to the stop, its labels over the
   * recorded ones, its steps before the window then the recorded ones.
   */
  async base(
    source: WindowSource,
    walked: {
      settings: LatestSettings;
      labels: LatestLabels;
      before: PathSteps;
    },
    maxLineBytes: number,
  ): Promise<ContextBase> {
    const from = this.#from!;
    const at = await settingsAt(source, from.path, this.#at, { maxLineBytes });
    return {
      settings: walked.settings.fold(at),
      labels: walked.labels.collect(from.labels),
      pathBefore: walked.before.concat(from.path, this.#at),
      pathEnd: from.pathEnd,
    };
  }

  /** The record of the whole file, once stopped: what was walked, over what was recorded. */
  record(
    path: PathSteps,
    ids: IdFlags,
    labels: Record<string, string>,
  ): WindowRecord {
    const from = this.#from!;
    from.ids.addAll(ids);
    return {
      path: path.concat(from.path, this.#at),
      pathEnd: from.pathEnd,
      labels,
      ids: from.ids,
      entries: from.entries + this.#entries,
      messages: from.messages + this.#messages,
    };
  }
}

/** How much of a line is read at first to find its end. */
const _FIRST_READ_BYTES = 4 * 1024;
/** How much of a message line tells its role. */
const _HEAD_BYTES = 1024;
const _ROLE_KEY = '"message":{"role":"';
const _latin1 = new TextDecoder("latin1");

/**
 * The settings folded along the recorded path from the root to step `i`
 * (inclusive), reading only the lines that carry settings: every model and
 * thinking change, and the latest assistant message (for the default model)
 * until a default model change makes it moot. The same entries a backward
 * walk would offer, in the same order.
 *
 * @param source The file.
 * @param path The recorded path (leaf first).
 * @param i The step where the walk stopped.
 * @param options The longest line to read.
 * @returns The settings at step `i`.
 */
export async function settingsAt(
  source: WindowSource,
  path: PathSteps,
  i: number,
  options: { maxLineBytes: number },
): Promise<Settings> {
  const latest = new LatestSettings();
  const quiet = new IssueLog(); // damage here was reported by the full record
  // Each step's first read (a message's head, another entry's line) is a
  // read of its own: the next few are asked for ahead of their turn, so
  // they run at once, and are taken in order.
  const first = new Map<number, Promise<Uint8Array | undefined>>();
  const firstRead = (j: number) => {
    let read = first.get(j);
    if (read === undefined) {
      const offset = path.offset(j);
      read = path.type(j) === "message"
        ? _lineAt(source, offset, _HEAD_BYTES, _HEAD_BYTES)
        : _lineAt(source, offset, options.maxLineBytes);
      read.catch(() => {}); // asked ahead and never taken: no unhandled error
      first.set(j, read);
    }
    return read;
  };
  let ahead = i; // steps before it were considered for reading ahead
  try {
    for (let j = i; j < path.length; j++) {
      const type = path.type(j);
      if (!latest.wants(type)) continue;
      for (; ahead < path.length && ahead < j + _READS_AHEAD; ahead++) {
        if (latest.wants(path.type(ahead))) void firstRead(ahead);
      }
      let bytes = await firstRead(j);
      first.delete(j);
      if (type === "message") {
        if (bytes !== undefined && !_mayBeAssistant(bytes)) continue;
        bytes = await _lineAt(source, path.offset(j), options.maxLineBytes);
      }
      if (bytes === undefined) continue;
      const entry = decodeEntry(wholeLine(bytes, path.offset(j)), quiet);
      if (entry !== undefined) latest.offer(entry);
    }
    return latest.fold();
  } finally {
    await Promise.allSettled(first.values()); // no read under way once the file may close
  }
}

/** Steps whose first reads are asked for ahead of their turn, at most. */
const _READS_AHEAD = 32;

/**
 * Whether a message line may be an assistant's, from its first bytes: this
 * library and omp write `"message":{"role":…` right after the envelope. A
 * line written otherwise is read in full to be sure.
 */
function _mayBeAssistant(bytes: Uint8Array): boolean {
  const head = _latin1.decode(bytes.subarray(0, 1024));
  const at = head.indexOf(_ROLE_KEY);
  return at < 0 || head.startsWith('assistant"', at + _ROLE_KEY.length);
}

/** The bytes of the line at `offset` (without its "\n"), or undefined when longer than `max`. */
async function _lineAt(
  source: WindowSource,
  offset: number,
  max: number,
  first = _FIRST_READ_BYTES,
): Promise<Uint8Array | undefined> {
  let size = Math.min(first, source.size - offset);
  for (;;) {
    const buffer = new Uint8Array(size);
    let got = 0;
    while (got < size) {
      const n = await source.read(buffer.subarray(got), offset + got);
      if (!(n > 0)) break;
      got += n;
    }
    const end = buffer.subarray(0, got).indexOf(LF);
    if (end >= 0) return buffer.subarray(0, end);
    if (got < size || offset + got >= source.size) {
      return buffer.subarray(0, got);
    }
    if (size > max) return undefined;
    size = Math.min(size * 4, source.size - offset);
  }
}
