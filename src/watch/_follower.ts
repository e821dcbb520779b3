/**
 * Following a session file as writers append to it: the bytes after those
 * read, fed to a line splitter, each line it completes decoded as the
 * loader decodes it; the file's identity and size checked at every look, so
 * a cut or a replacement is caught, never read as new lines. Where to start
 * and where to go on after a cut are found reading backwards.
 *
 * @module
 */

import { type FileHandle, fs, isNotFound } from "../_fs.ts";
import type { SessionEntry } from "../format/entries.ts";
import { named } from "../format/errors.ts";
import { headerVersion } from "../format/header.ts";
import type { LoadIssue } from "../format/issues.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { openRegular, readFull } from "../read/_open.ts";
import { BackwardLines } from "../read/_backward_lines.ts";
import { decodeEntry, IssueLog } from "../read/_decode.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import { readHead } from "../read/_head.ts";
import { LF, type Line, LineSplitter } from "../read/lines.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";

/** Bytes read per look at most; more is read at the next look, at once. */
const _READ_BYTES = 4 << 20;
/**
 * Bytes of the line being read checked again at each look: a new line
 * written where a rolled-back one was differs from it within its envelope.
 */
const _CHECK_BYTES = 64 << 10;
/** Lines without an envelope first longer than this are not parsed to find an entry's place again. */
const _PARSE_MAX_BYTES = 1 << 20;

/** Where a follower starts (`WatchSessionOptions.from`). */
export type FollowFrom = "end" | "start" | number | { last: number };

/** A cut or a replacement the follower read past, and where it goes on. */
export interface FollowResync {
  reason: "truncated" | "replaced";
  /** Where following goes on: a line's start. */
  offset: number;
  /**
   * The id of the last entry handed out, when one was: following goes on
   * after its line. Absent when none was: after a cut, following goes on
   * from the start of the line that was being read (or the last line
   * boundary before the cut, when the cut went further back); after a
   * replacement, where a new follower would start.
   */
  after?: string;
}

/** What a follower needs besides the path. */
export interface FollowerOptions {
  from: FollowFrom;
  /** What errors say is being done: `Cannot follow "a.jsonl"`. */
  action: string;
  onIssue?: ((issue: LoadIssue) => void) | undefined;
  onResync?: ((event: FollowResync) => void) | undefined;
}

/** What one look found. */
export interface Look {
  entries: SessionEntry[];
  /** Whether bytes remain to read at once. */
  more: boolean;
}

/** A follower of one file; {@linkcode close} releases its handle. */
export class Follower {
  readonly #path: string;
  readonly #options: FollowerOptions;
  readonly #log: IssueLog;
  #file!: FileHandle;
  #ino = 0;
  #dev = 0;
  #body = 0;
  #migrate: ((record: Record<string, unknown>) => void) | undefined;
  #lines = new LineSplitter();
  /** Where the line being read starts (all before it is done); bytes read. */
  #lineStart = 0;
  #readTo = 0;
  /** The first bytes of the line being read, as read: a cut shows when they change. */
  readonly #seen = new Uint8Array(_CHECK_BYTES);
  #seenLength = 0;
  /** The id of the last entry handed out, to find the place again. */
  #anchor: string | undefined;
  /** The entries read before following (`from: { last }`), handed out first. */
  backlog: SessionEntry[] = [];

  private constructor(path: string, options: FollowerOptions) {
    this.#path = path;
    this.#options = options;
    this.#log = new IssueLog(options.onIssue);
  }

  /**
   * Open the file and settle where to start.
   *
   * @throws {RangeError} For a `from` offset where no line starts.
   */
  static async open(path: string, options: FollowerOptions): Promise<Follower> {
    const f = new Follower(path, options);
    const size = await f.#attach();
    try {
      f.#restart(await f.#startAt(options.from, size));
    } catch (err) {
      await f.close();
      throw err;
    }
    return f;
  }

  /** Release the file. */
  async close(): Promise<void> {
    await this.#file.close();
  }

  /** Look once: entries of the lines completed since the last look. */
  async look(): Promise<Look> {
    const info = await fs().stat(this.#path).catch((err) => {
      if (!isNotFound(err)) throw err;
      const gone = named(err, this.#options.action) as Error;
      gone.message = `${this.#options.action}: the file was removed`;
      throw gone;
    });
    if (info.ino !== this.#ino || info.dev !== this.#dev) {
      return await this.#resync("replaced");
    }
    // A rename rewrites the title slot in place: no size change, nothing to read.
    if (info.size < this.#readTo) return await this.#resync("truncated");
    // Nothing new and no line begun: nothing that can have changed.
    const idle = info.size === this.#readTo;
    if (idle && this.#seenLength === 0) return { entries: [], more: false };
    // A line begun and a cut back then rewritten to the same size (a retried
    // line as long as the torn bytes) shows only here, so check it too.
    if (!(await this.#unchanged())) return await this.#resync("truncated");
    if (idle) return { entries: [], more: false };
    const bytes = new Uint8Array(
      Math.min(info.size - this.#readTo, _READ_BYTES),
    );
    const n = await readFull(this.#file, bytes, this.#readTo);
    const entries = this.#take(bytes.subarray(0, n));
    return { entries, more: this.#readTo < info.size };
  }

  /**
   * Whether the "\n" before the line being read, and that line's start as
   * read, are still there: a cut followed by new bytes (a rolled-back
   * append, then another) does not show in the size; it shows here.
   */
  async #unchanged(): Promise<boolean> {
    // The first line of the body has the header's end before it, not
    // always a "\n" (a header written without one): its start alone is checked.
    const lf = this.#lineStart > this.#body ? 1 : 0;
    if (lf + this.#seenLength === 0) return true;
    const bytes = new Uint8Array(lf + this.#seenLength);
    const n = await readFull(this.#file, bytes, this.#lineStart - lf);
    if (n < bytes.length || (lf === 1 && bytes[0] !== LF)) return false;
    for (let i = 0; i < this.#seenLength; i++) {
      if (bytes[i + lf] !== this.#seen[i]) return false;
    }
    return true;
  }

  /** Entries of the lines the new bytes complete. */
  #take(chunk: Uint8Array): SessionEntry[] {
    const out: SessionEntry[] = [];
    const lines = this.#lines.push(chunk);
    for (const line of lines) {
      const entry = decodeEntry(line, this.#log, this.#migrate);
      if (entry !== undefined) out.push(entry);
    }
    // Keep the start of the line left open, to check it at the next look.
    const last = lines.at(-1);
    let from = 0;
    if (last !== undefined) {
      this.#lineStart = last.offset + last.size;
      this.#seenLength = 0;
      from = this.#lineStart - this.#readTo;
    }
    const piece = chunk.subarray(from, from + _CHECK_BYTES - this.#seenLength);
    this.#seen.set(piece, this.#seenLength);
    this.#seenLength += piece.length;
    this.#readTo += chunk.length;
    if (out.length > 0) this.#anchor = out.at(-1)!.id;
    return out;
  }

  /** Open the file at the path (again) and read its head; its size. */
  async #attach(): Promise<number> {
    const action = this.#options.action;
    const file = await openRegular(this.#path, action);
    try {
      const info = await file.stat();
      const head = await readHead(file, this.#path);
      const version = headerVersion(head.header);
      // A version 1 file's ids are minted in file order from its first
      // entry: a line read alone cannot be given one.
      if (version < 2) {
        throw new Error(
          `${action}: a version ${version} file has no entry ids (fork it to read it entry by entry)`,
        );
      }
      const migrate = recordMigrator(version);
      this.#migrate = migrate && ((value) => migrate({ index: 0, value }));
      this.#file = file;
      this.#ino = info.ino;
      this.#dev = info.dev;
      this.#body = head.bodyStart;
      return info.size;
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  async #startAt(from: FollowFrom, size: number): Promise<number> {
    const action = this.#options.action;
    const body = this.#body;
    if (from === "start") return body;
    if (from === "end") return await this.#lastLineEnd(size);
    if (typeof from === "object") {
      if (!Number.isSafeInteger(from.last) || from.last < 0) {
        throw new RangeError(
          `${action}: last must be a whole number, got ${from.last}`,
        );
      }
      const read = await this.#lastEntries(size, from.last);
      this.backlog = read.entries;
      this.#anchor = read.entries.at(-1)?.id;
      return read.end;
    }
    const before = new Uint8Array(1);
    const ok = Number.isSafeInteger(from) && from >= body && from <= size &&
      (from === body ||
        (await readFull(this.#file, before, from - 1) === 1 &&
          before[0] === LF));
    if (!ok) {
      throw new RangeError(
        `${action} from byte ${from}: no line starts there (the entries lie in bytes ${body}-${size})`,
      );
    }
    return from;
  }

  /**
   * The last `count` entries of complete lines, read backwards: the cost is
   * the bytes of those lines (and of the damaged lines among them), not the
   * file's. A last line without its "\n" is being written: it is left for
   * later, and `end` (where following goes on) is its start.
   */
  async #lastEntries(
    size: number,
    count: number,
  ): Promise<{ entries: SessionEntry[]; end: number }> {
    const lines = this.#backward(size);
    let line = await lines.prev();
    if (line === undefined) return { entries: [], end: this.#body };
    const end = _end(line);
    if (!line.terminated) line = await lines.prev();
    const out: SessionEntry[] = [];
    while (line !== undefined && out.length < count) {
      const entry = decodeEntry(
        await lines.complete(line),
        this.#log,
        this.#migrate,
      );
      if (entry !== undefined) out.push(entry);
      if (out.length < count) line = await lines.prev();
    }
    return { entries: out.reverse(), end };
  }

  #restart(offset: number): void {
    this.#lines = new LineSplitter(
      { maxLineBytes: DEFAULT_MAX_LINE_BYTES },
      offset,
      -1,
    );
    this.#lineStart = offset;
    this.#readTo = offset;
    this.#seenLength = 0;
  }

  /**
   * Find the place again after a cut or a replacement: after the line of
   * the last entry handed out. When none was, a cut goes on from the start
   * of the line being read (all before it was read and held no entry), or
   * from the last line boundary before the cut when the cut went further
   * back: a line written again in place of torn bytes is read, once. A
   * replacement goes on where a new follower would start. Ends the
   * following when the last entry handed out is gone.
   */
  async #resync(reason: FollowResync["reason"]): Promise<Look> {
    const old = this.#file;
    const size = await this.#attach();
    await old.close();
    let offset: number;
    if (this.#anchor === undefined && reason === "truncated") {
      offset = await this.#lastLineEnd(Math.min(this.#lineStart, size));
    } else if (this.#anchor !== undefined) {
      offset = await this.#lineEndOf(size, this.#anchor);
      if (offset < 0) {
        throw new Error(
          `${this.#options.action}: the file was ${
            reason === "replaced" ? "replaced" : "cut short"
          } and no longer holds the last entry read (${this.#anchor}); open it again`,
        );
      }
    } else {
      offset = this.#options.from === "start"
        ? this.#body
        : await this.#lastLineEnd(size);
    }
    this.#restart(offset);
    const after = this.#anchor;
    this.#options.onResync?.(
      after === undefined ? { reason, offset } : { reason, offset, after },
    );
    return { entries: [], more: true };
  }

  #backward(
    size: number,
    maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ): BackwardLines {
    const floor = this.#body;
    return new BackwardLines(this.#file, { size, floor, maxLineBytes });
  }

  /**
   * The end of the last line that ends in "\n": where a follower starting
   * at the end begins, so a line being written now is read once complete.
   */
  async #lastLineEnd(size: number): Promise<number> {
    const line = await this.#backward(size).prev();
    return line === undefined ? this.#body : _end(line);
  }

  /**
   * The end of the last complete line holding entry `id`, or -1. Lines
   * with the envelope first are matched by their first bytes; the others
   * (omp's `custom` lines) are parsed when small.
   */
  async #lineEndOf(size: number, id: string): Promise<number> {
    const lines = this.#backward(size, _PARSE_MAX_BYTES);
    const at = new EnvelopeAt();
    const quiet = new IssueLog();
    for (let line = await lines.prev(); line; line = await lines.prev()) {
      if (!line.terminated) continue;
      const end = line.offset + line.size;
      if (readEnvelope(line.head, 0, line.head.length, at)) {
        if (at.id() === id) return end;
        continue;
      }
      if (decodeEntry(await lines.complete(line), quiet)?.id === id) return end;
    }
    return -1;
  }
}

/** The end of a line, or its start when it has no "\n" yet (it is being written). */
function _end(line: Line): number {
  return line.terminated ? line.offset + line.size : line.offset;
}
