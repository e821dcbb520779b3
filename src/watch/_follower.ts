/**
 * Following a session file as writers append to it: the bytes after the
 * last complete line read, turned into entries once their line ends; the
 * file's identity and size checked at every look, so a cut or a
 * replacement is caught, never read as new lines.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import type { LoadIssue } from "../format/issues.ts";
import { headerVersion } from "../format/header.ts";
import { type FsHandle, seam } from "../fs/_seam.ts";
import { openRegular, readFull } from "../fs/_read.ts";
import { IssueLog } from "../read/_decode.ts";
import { lastEntries, lastLineEnd, lineEndOf } from "./_backward.ts";
import { entryOfLine, lineMigrator } from "./_entry_line.ts";
import { LineAssembler } from "./_line_assembler.ts";
import { readFileHead } from "./_file_head.ts";

/** Bytes read per look at most; more is read at the next look, at once. */
const _READ_BYTES = 4 << 20;
/**
 * Bytes of the line being read checked again at each look: a new line
 * written where a rolled-back one was differs from it within its envelope.
 */
const _CHECK_BYTES = 64 << 10;

/**
 * Where a follower starts: the end, the first entry, a line's offset, or
 * the last N complete entries (read backwards from the end).
 */
export type FollowFrom = "end" | "start" | number | { last: number };

/** A cut or a replacement the follower read past. */
export interface FollowResync {
  /** `truncated`: the file shrank below what was read, or its bytes changed; `replaced`: another file took its name. */
  reason: "truncated" | "replaced";
  /** Where following goes on: the end of the last entry read, found again. */
  offset: number;
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
  readonly #action: string;
  readonly #log: IssueLog;
  readonly #options: FollowerOptions;
  #file!: FsHandle;
  #ino = 0;
  #dev = 0;
  #body = 0;
  #migrate: ReturnType<typeof lineMigrator>;
  readonly #lines: LineAssembler;
  /** The id of the last entry handed out, to find the place again. */
  #anchor: string | undefined;
  /** The entries read before following (`from: { last }`), handed out first. */
  backlog: SessionEntry[] = [];

  private constructor(path: string, options: FollowerOptions) {
    this.#path = path;
    this.#action = options.action;
    this.#options = options;
    this.#log = new IssueLog(options.onIssue);
    this.#lines = new LineAssembler(this.#log);
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
      f.close();
      throw err;
    }
    return f;
  }

  /** Release the file. */
  close(): void {
    this.#file.close();
  }

  /** Look once: entries of the lines completed since the last look. */
  async look(): Promise<Look> {
    let info: Deno.FileInfo;
    try {
      info = await seam().stat(this.#path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new Deno.errors.NotFound(`${this.#action}: the file was removed`);
      }
      throw err;
    }
    if ((info.ino ?? 0) !== this.#ino || info.dev !== this.#dev) {
      return await this.#resync("replaced");
    }
    // The title slot's rewrite changes bytes 0-255 only: no size change,
    // nothing to read.
    if (info.size < this.#lines.readTo) return await this.#resync("truncated");
    if (info.size === this.#lines.readTo) return { entries: [], more: false };
    if (!(await this.#unchanged())) return await this.#resync("truncated");
    const at = this.#lines.readTo;
    const bytes = new Uint8Array(Math.min(info.size - at, _READ_BYTES));
    const n = await this.#readAt(bytes, at);
    const entries = this.#take(bytes.subarray(0, n));
    return { entries, more: this.#lines.readTo < info.size };
  }

  /**
   * Whether the bytes this follower stands on are still there: the "\n"
   * before the line being read, and the start of that line as kept. A cut
   * followed by new bytes (a rolled-back append, then another) does not
   * show in the size; it shows here.
   */
  async #unchanged(): Promise<boolean> {
    const lines = this.#lines;
    if (lines.offset <= this.#body) return true;
    const kept = lines.kept(_CHECK_BYTES);
    const bytes = new Uint8Array(kept.length + 1);
    const n = await this.#readAt(bytes, lines.offset - 1);
    if (n < bytes.length || bytes[0] !== 0x0a) return false;
    for (let i = 0; i < kept.length; i++) {
      if (bytes[i + 1] !== kept[i]) return false;
    }
    return true;
  }

  /** Entries of the lines the new bytes complete. */
  #take(bytes: Uint8Array): SessionEntry[] {
    const out: SessionEntry[] = [];
    this.#lines.take(bytes, (line) => {
      const entry = entryOfLine(line, this.#log, this.#migrate);
      if (entry !== undefined) out.push(entry);
    });
    if (out.length > 0) this.#anchor = out[out.length - 1]!.id;
    return out;
  }

  async #readAt(into: Uint8Array, position: number): Promise<number> {
    await this.#file.seek(position, Deno.SeekMode.Start);
    return await readFull(this.#file, into);
  }

  /** Open the file at the path (again) and read its head; its size. */
  async #attach(): Promise<number> {
    const file = await openRegular(this.#path, this.#action);
    try {
      const info = await file.stat();
      const head = await readFileHead(file, this.#path);
      this.#migrate = lineMigrator(headerVersion(head.header), this.#action);
      this.#file = file;
      this.#ino = info.ino ?? 0;
      this.#dev = info.dev;
      this.#body = head.bodyStart;
      return info.size;
    } catch (err) {
      file.close();
      throw err;
    }
  }

  async #startAt(from: FollowFrom, size: number): Promise<number> {
    if (from === "start") return this.#body;
    if (from === "end") return await lastLineEnd(this.#file, size, this.#body);
    if (typeof from === "object") {
      if (!Number.isSafeInteger(from.last) || from.last < 0) {
        throw new RangeError(
          `${this.#action}: last must be a whole number, got ${from.last}`,
        );
      }
      const read = await lastEntries(
        this.#file,
        size,
        this.#body,
        from.last,
        this.#log,
        this.#migrate,
      );
      this.backlog = read.entries;
      this.#anchor = read.entries.at(-1)?.id;
      return read.end;
    }
    const before = new Uint8Array(1);
    const ok = Number.isSafeInteger(from) && from >= this.#body &&
      from <= size &&
      (from === this.#body || (await this.#readAt(before, from - 1) === 1 &&
        before[0] === 0x0a));
    if (!ok) {
      throw new RangeError(
        `${this.#action} from byte ${from}: no line starts there (the entries lie in bytes ${this.#body}-${size})`,
      );
    }
    return from;
  }

  #restart(offset: number): void {
    this.#lines.restart(offset);
  }

  /**
   * Find the place again after a cut or a replacement: after the line of
   * the last entry handed out; or, when none was, where a new follower
   * would start. Ends the following when that entry is gone.
   */
  async #resync(reason: FollowResync["reason"]): Promise<Look> {
    this.#file.close();
    const size = await this.#attach();
    let offset: number;
    if (this.#anchor !== undefined) {
      offset = await lineEndOf(this.#file, size, this.#body, this.#anchor);
      if (offset < 0) {
        throw new Error(
          `${this.#action}: the file was ${
            reason === "replaced" ? "replaced" : "cut short"
          } and no longer holds the last entry read (${this.#anchor}); open it again`,
        );
      }
    } else {
      offset = this.#options.from === "start"
        ? this.#body
        : await lastLineEnd(this.#file, size, this.#body);
    }
    this.#restart(offset);
    this.#options.onResync?.({ reason, offset });
    return { entries: [], more: true };
  }
}
