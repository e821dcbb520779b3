/**
 * The lines a facet is handed: the whole lines of a range of a file, each
 * able to give its entry (migrated for a version 1 or 2 file), and a last
 * line without "\n" when it is whole JSON; and where a file's whole lines
 * end.
 *
 * @module
 */

import { asEntry, type SessionEntry } from "../format/entries.ts";
import type { SessionHeader } from "../format/header.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { fs } from "../_fs.ts";
import { decodeEntryLine, IssueLog } from "../read/_decode.ts";
import { readLines } from "../read/lines.ts";
import { readFull } from "../read/_open.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";

/** The file a facet reads, and its session. */
export interface FacetFile {
  /** The file (absolute). */
  path: string;
  /** 0 in a cwd folder; 1 or more inside artifacts folders (subagents). */
  depth: number;
  /** The header. */
  header: SessionHeader;
}

/** One whole line handed to a facet. */
export interface FacetLine {
  /** The line's bytes, without its end of line (empty when it was too long to keep). */
  bytes: Uint8Array;
  /** Its offset in the file. */
  offset: number;
  /** The bytes it takes in the file, its end of line included. */
  size: number;
  /** Its content's length in bytes (its end of line left out). */
  length: number;
  /** Longer than the loader's limit: its bytes are not kept, nor parsed. */
  oversized: boolean;
  /** The entry, parsed on first call (migrated for a version 1 or 2 file); undefined for damage. */
  entry(): SessionEntry | undefined;
}

/** The whole lines of `[from, end)`, each able to give its entry. */
export async function* facetLines(
  file: FacetFile,
  from: number,
  end: number,
): AsyncGenerator<FacetLine> {
  const handle = await fs().open(file.path, { read: true });
  try {
    const version = typeof file.header.version === "number"
      ? file.header.version
      : 1;
    const migrate = recordMigrator(version);
    const quiet = new IssueLog(); // the loader reports damage; a facet skips it
    let record = 1;
    const lines = readLines(handle, {
      start: from,
      end,
      maxLineBytes: DEFAULT_MAX_LINE_BYTES,
    });
    for await (const raw of lines) {
      // The source's buffers are reused: each line keeps a copy.
      const bytes = raw.bytes?.slice();
      const line = { ...raw, bytes, head: bytes ?? raw.head.slice() };
      let parsed: SessionEntry | undefined | null = null;
      const entry = (): SessionEntry | undefined => {
        if (parsed !== null) return parsed;
        const value = decodeEntryLine(line, quiet);
        if (
          value !== null && typeof value === "object" && !Array.isArray(value)
        ) {
          migrate?.({
            index: record++,
            value: value as Record<string, unknown>,
          });
        }
        const checked = asEntry(value);
        parsed = "entry" in checked ? checked.entry : undefined;
        return parsed;
      };
      if (migrate !== undefined) entry(); // a legacy file's ids depend on every line, in order
      yield {
        bytes: line.bytes ?? new Uint8Array(0),
        offset: line.offset,
        size: line.size,
        length: line.length,
        oversized: line.oversized,
        entry,
      };
    }
  } finally {
    await handle?.[Symbol.asyncDispose]();
  }
}

/**
 * The file's last line when it has no "\n" and is whole JSON (an object):
 * `[end, size)` holding no line feed. A torn line (a write under way or cut
 * short) is not one: it waits for its end, or stays damage.
 */
export async function wholeLastLine(
  file: FacetFile,
  size: number,
  end: number,
): Promise<FacetLine | undefined> {
  const length = size - end;
  if (length <= 0 || length > DEFAULT_MAX_LINE_BYTES) return undefined;
  const handle = await fs().open(file.path, { read: true });
  try {
    const bytes = new Uint8Array(length);
    if (await readFull(handle, bytes, end) !== length) return undefined;
    if (bytes.includes(0x0a) || bytes[0] === 0) return undefined;
    const content = bytes[length - 1] === 0x0d
      ? bytes.subarray(0, length - 1)
      : bytes;
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(content));
    } catch {
      return undefined;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return undefined;
    }
    // A version 1 or 2 file's entries are migrated in order from its start:
    // its last line's entry is not made alone (the facets that take a last
    // line read its bytes).
    const legacy = typeof file.header.version !== "number" ||
      file.header.version < 3;
    const checked = asEntry(value);
    const entry = legacy || !("entry" in checked) ? undefined : checked.entry;
    return {
      bytes: content,
      offset: end,
      size: length,
      length: content.length,
      oversized: false,
      entry: () => entry,
    };
  } finally {
    await handle?.[Symbol.asyncDispose]();
  }
}

/**
 * The end of a file's last whole line (just after its last `\n`), at or
 * after `from`: how far the facets read a file the index keeps no state of
 * (one read whole, such as a version 1 or 2 file).
 *
 * @param path The file.
 * @param size Its size.
 * @param from Where its entries start.
 * @returns The offset; `from` when no line after it is whole.
 */
export async function wholeLinesEnd(
  path: string,
  size: number,
  from: number,
): Promise<number> {
  const file = await fs().open(path, { read: true });
  try {
    // A page first: the last line is most often short (a list asks this of
    // every file that changed, and should not read a small file whole).
    let block = new Uint8Array(4096);
    for (let end = size; end > from;) {
      const start = Math.max(from, end - block.length);
      const bytes = block.subarray(0, end - start);
      if (await readFull(file, bytes, start) !== bytes.length) return from;
      const lf = bytes.lastIndexOf(0x0a);
      if (lf !== -1) return start + lf + 1;
      end = start;
      if (block.length < 64 * 1024) block = new Uint8Array(64 * 1024);
    }
    return from;
  } finally {
    await file?.[Symbol.asyncDispose]();
  }
}
