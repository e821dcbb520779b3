/**
 * The scan: each session file read once, line by line, from the line
 * source, a few files at a time (the event loop turns by itself between
 * their reads). A line is decoded only when the query's bytes (the needle)
 * are in it, or when its envelope is not at its start and the tree needs
 * its id; its envelope comes from its first bytes. The tree (each entry's
 * parent) settles the active path of a file with hits, as the loader
 * settles it: the last entry, or the target of a last branch marker, then
 * parents up to the root.
 *
 * A file's hits are its own until it is read to its end: a file that
 * fails midway is reported and gives none.
 *
 * @module
 */

import { type FileHandle, fs, isNotFound } from "../_fs.ts";
import { pathTo, resolveLeaf } from "../context/tree.ts";
import type { SessionEntry } from "../format/entries.ts";
import { SessionSyntaxError } from "../format/errors.ts";
import { headerVersion } from "../format/header.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { IssueLog } from "../read/_decode.ts";
import { openRegular, readFull } from "../read/_open.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import { type Head, HeadReader } from "../read/_head.ts";
import { type Line, readLines } from "../read/lines.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";
import { HEAD_BYTES, mapLimit } from "../store/_session_files.ts";
import { sessionInfo } from "../store/session_info.ts";
import type { HitList, SessionLabel } from "./_hits.ts";
import type { ByteNeedle } from "./_needle.ts";
import {
  type DecodedLine,
  decodeSearchLine,
  lineText,
  SEARCH_HEAD_BYTES,
  SEARCH_LINE_BYTES,
} from "./_text.ts";

/** Options of {@linkcode scanFiles}. */
export interface ScanOptions {
  /** The byte filter; undefined decodes every line that may hold text. */
  needle: ByteNeedle | undefined;
  /** Skip files last modified before this (ms since the epoch): not opened. */
  sinceMs?: number | undefined;
  /** A file that cannot be searched. */
  onSkip?: ((path: string, reason: string) => void) | undefined;
  /** After each file. */
  onFile?: (() => void) | undefined;
}

/**
 * Files read at once: enough that a small file's opens and reads overlap
 * another's work, few enough that their buffers stay small.
 */
const _IN_FLIGHT = 8;
const _CLOSE_BRACE = 0x7d;

/**
 * Scan `paths` into `hits`. The hits do not depend on the order the files
 * are read in (a list of the newest).
 *
 * @param paths The files.
 * @param hits Where matches go.
 * @param options The filter, the date, the reports.
 * @returns How many files were read as sessions.
 */
export async function scanFiles(
  paths: readonly string[],
  hits: HitList,
  options: ScanOptions,
): Promise<number> {
  let sessions = 0;
  await mapLimit(paths, _IN_FLIGHT, async (path) => {
    if (await _scanPath(path, hits, options)) sessions++;
    options.onFile?.();
  });
  return sessions;
}

/**
 * Scan one file; a file that cannot be searched is reported, one gone is
 * passed over. Whether it was read as a session.
 */
async function _scanPath(
  path: string,
  hits: HitList,
  options: ScanOptions,
): Promise<boolean> {
  let file: FileHandle;
  try {
    const since = options.sinceMs;
    if (since !== undefined && (await fs().stat(path)).mtimeMs < since) {
      return false; // not opened
    }
    file = await openRegular(path, "cannot read the first bytes");
  } catch (err) {
    if (!isNotFound(err)) options.onSkip?.(path, _message(err));
    return false;
  }
  let session = false;
  try {
    const info = await file.stat();
    const lines = readLines(file, {
      end: info.size,
      maxLineBytes: DEFAULT_MAX_LINE_BYTES,
      maxFirstLineBytes: HEAD_BYTES,
      headBytes: SEARCH_HEAD_BYTES,
    });
    const head = await _head(lines, path, info.size);
    if (typeof head === "string") {
      options.onSkip?.(path, head);
      return false;
    }
    session = true;
    const scan = new _FileScan(path, head, hits.fork(), options.needle);
    for await (const line of lines) {
      const reading = scan.take(line, file); // a promise only when it reads
      if (reading !== undefined) await reading;
    }
    if (scan.hits.hits.length > 0) {
      const { id, title } = sessionInfo(path, info, head);
      scan.label(title === undefined ? { id } : { id, title });
    }
    hits.merge(scan.hits);
  } catch (err) {
    if (!isNotFound(err)) {
      options.onSkip?.(path, `cannot be searched: ${_message(err)}`);
    }
  } finally {
    await file.close();
  }
  return session;
}

/**
 * The head from the file's first lines, read as the list reads it (from
 * its first {@linkcode HEAD_BYTES}: a header further in is not one), or
 * why the file is not a session. The lines after it are left to read.
 */
async function _head(
  lines: AsyncGenerator<Line>,
  path: string,
  size: number,
): Promise<Head | string> {
  const reader = new HeadReader(path, new IssueLog());
  let seen = 0;
  let end = 0;
  try {
    for (;;) {
      const next = await lines.next();
      if (next.done) return reader.finish(seen, end);
      end = next.value.offset + next.value.size;
      if (size > HEAD_BYTES && end > HEAD_BYTES) {
        return `no complete header within the first ${HEAD_BYTES} bytes`;
      }
      seen++;
      if (reader.take(next.value)) return reader.head!;
    }
  } catch (err) {
    if (err instanceof SessionSyntaxError) return err.reason;
    if (isNotFound(err)) throw err;
    return `cannot read the first bytes: ${_message(err)}`;
  }
}

/**
 * One file's lines taken in order: each entry into the tree, each line
 * that may match into the file's hits.
 */
class _FileScan {
  /** The file's hits. */
  readonly hits: HitList;
  readonly #path: string;
  readonly #needle: ByteNeedle | undefined;
  /** A version 1 or 2 file's migration: its ids come from every line, in order. */
  readonly #migrate: ((record: Record<string, unknown>) => void) | undefined;
  /** Each entry's id and parent (the rest of the entry is not kept). */
  readonly #tree = new Map<string, SessionEntry>();
  #last: SessionEntry | undefined;
  readonly #env = new EnvelopeAt();

  constructor(
    path: string,
    head: Head,
    hits: HitList,
    needle: ByteNeedle | undefined,
  ) {
    this.#path = path;
    this.hits = hits;
    this.#needle = needle;
    const migrate = recordMigrator(headerVersion(head.header));
    let record = 1;
    this.#migrate = migrate === undefined
      ? undefined
      : (value) => migrate({ index: record++, value });
  }

  /**
   * Take the next line.
   *
   * @param line The line.
   * @param file The file, for the last byte of a line too long to keep.
   * @returns A promise when the line's last byte must be read.
   */
  take(line: Line, file: FileHandle): Promise<void> | undefined {
    if (line.length === 0 || line.nul) return;
    if (line.length > DEFAULT_MAX_LINE_BYTES) {
      // The loader skips it unread: so does the search, and says where.
      const { offset, length } = line;
      this.hits.oversized.push({ path: this.#path, offset, length });
      return;
    }
    if (this.#migrate !== undefined) {
      return this.#decoded(line, decodeSearchLine(line, this.#migrate), true);
    }
    if (line.length > SEARCH_LINE_BYTES) {
      // A last line without "\n" too long to parse cannot be told from a
      // write under way: passed over. Another is searched by its start.
      if (!line.terminated) return;
      line = { ...line, bytes: undefined, oversized: true };
    }
    const flagged = this.#needle?.in(line.bytes ?? line.head) ?? true;
    const head = line.head;
    // A line whose envelope is at its start, and which ends as an object
    // does, is in the tree without being parsed (as the loader's window
    // trusts it); a line cut short is parsed, as omp reads it.
    if (line.terminated && readEnvelope(head, 0, head.length, this.#env)) {
      if (line.bytes !== undefined) {
        const closed = line.bytes[line.length - 1] === _CLOSE_BRACE;
        return this.#envelope(line, closed, flagged);
      }
      return _lastByte(file, line).then((last) =>
        this.#envelope(line, last === _CLOSE_BRACE, flagged)
      );
    }
    return this.#unenveloped(line, flagged);
  }

  /** Give the file's hits their session, and mark them on or off its active path. */
  label(session: SessionLabel): void {
    const tree = this.#tree;
    const last = this.#last === undefined ? [] : [this.#last];
    const onPath = new Set(
      pathTo(resolveLeaf(last, tree), tree).entries.map((e) => e.id),
    );
    for (const hit of this.hits.hits) {
      hit.onActivePath = onPath.has(hit.entryId);
      hit.session = session;
    }
  }

  /** A line that starts with an envelope (read into `#env`). */
  #envelope(line: Line, closed: boolean, flagged: boolean): undefined {
    if (!closed) return this.#unenveloped(line, flagged);
    const env = this.#env;
    const node = _node(env.type(), env.id(), env.parentId());
    this.#tree.set(node.id, node);
    this.#last = node;
    if (node.type === "custom" && line.bytes !== undefined) {
      // A branch marker re-points the leaf: its target is in its body.
      const entry = decodeSearchLine(line).entry;
      if (entry !== undefined) this.#last = { ...entry, id: node.id };
    }
    if (flagged) this.#text(line);
  }

  /** A line without an envelope at its start: parsed for the tree, unless too long. */
  #unenveloped(line: Line, flagged: boolean): undefined {
    if (line.oversized) {
      if (flagged) this.#text(line);
      return;
    }
    return this.#decoded(line, decodeSearchLine(line), flagged);
  }

  #decoded(line: Line, decoded: DecodedLine, flagged: boolean): undefined {
    const entry = decoded.entry;
    if (entry !== undefined) {
      this.#tree.set(entry.id, _node(entry.type, entry.id, entry.parentId));
      this.#last = entry;
    }
    if (flagged) this.#text(line, decoded);
  }

  #text(line: Line, decoded?: DecodedLine): void {
    const found = lineText(line, decoded);
    if (found !== undefined) this.hits.take(this.#path, line.offset, found);
  }
}

/** What the tree keeps of an entry. */
function _node(
  type: string,
  id: string,
  parentId: string | null | undefined,
): SessionEntry {
  return {
    type,
    id,
    parentId: parentId ?? null,
    timestamp: "",
  } as SessionEntry;
}

/** The last byte of a line whose content was not kept. */
async function _lastByte(file: FileHandle, line: Line): Promise<number> {
  const byte = new Uint8Array(1);
  const n = await readFull(file, byte, line.offset + line.length - 1);
  return n === 1 ? byte[0]! : -1;
}

function _message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
