/**
 * Reading back a line the index located (its file, offset and size) to
 * decide it: the index keeps no text, so the text comes from the file
 * itself, extracted as the scan extracts it (`_line.ts`). A line that no
 * longer reads as it did when it was indexed (the file was changed behind a
 * search that did not refresh the index) gives nothing: it is not a hit.
 *
 * @module
 */

import { SESSION_VERSION } from "../format/header.ts";
import { quote } from "../fs/_errors.ts";
import {
  fileReaderAt,
  openRegular,
  type ReaderAt,
  readFullAt,
} from "../fs/_read.ts";
import type { FsHandle } from "../fs/_seam.ts";
import { CR, LF } from "../read/_line.ts";
import {
  legacyLineText,
  type LineText,
  lineText,
  type SkipReason,
} from "./_line.ts";
import { SEARCH_TEXT_CHARS, type SearchRole } from "./_text.ts";

/** A line as the index recorded it. */
export interface LocatedLine {
  /** The file. */
  path: string;
  /** The line's offset. */
  offset: number;
  /** The bytes it takes, its end of line included. */
  size: number;
  /** The file's version (a version 1 or 2 line is migrated). */
  version: number;
  /** What it gave when indexed: an entry, or a skipped line. */
  expected:
    | { skip?: undefined; entryId: string; role: SearchRole; timestamp: string }
    | { skip: SkipReason };
}

/** Files kept open at once while reading lines. */
const _OPEN_FILES = 64;
/** Bytes read of a line too long to parse: what `damagedText` decodes. */
const _TOO_LONG_HEAD = SEARCH_TEXT_CHARS * 3;

interface _Open {
  handle: FsHandle;
  reader: ReaderAt;
}

/** Reads located lines, keeping a few files open; close it when done. */
export class LinesAt implements Disposable {
  readonly #files = new Map<string, _Open | null>();

  /**
   * What a located line gives the search, read from its file now.
   *
   * @param line Where it is, and what it gave.
   * @returns Its text, or undefined when it no longer reads as it did.
   * @throws {Error} When its file cannot be read (gone is not an error).
   */
  async text(line: LocatedLine): Promise<LineText | undefined> {
    const file = await this.#open(line.path);
    if (file === null) return undefined;
    const legacy = line.version < SESSION_VERSION;
    const head = !legacy && line.expected.skip === "too-long";
    // The byte before the line too: both ends must be ends of lines.
    const want = (head ? Math.min(line.size, _TOO_LONG_HEAD) : line.size) + 1;
    const bytes = new Uint8Array(want);
    if (await readFullAt(file, bytes, line.offset - 1) < want) return undefined;
    if (bytes[0] !== LF) return undefined;
    let length: number;
    if (head) {
      const tail = new Uint8Array(2);
      const at = line.offset + line.size - 2;
      if (await readFullAt(file, tail, at) < 2 || tail[1] !== LF) {
        return undefined;
      }
      length = line.size - (tail[0] === CR ? 2 : 1);
    } else {
      if (bytes[want - 1] !== LF) return undefined;
      length = line.size - (line.size > 1 && bytes[want - 2] === CR ? 2 : 1);
    }
    const body = bytes.subarray(1, 1 + Math.min(length, want - 1));
    const found = legacy
      ? legacyLineText(body, line.version)
      : lineText(body, length);
    return _asRecorded(found, line, legacy);
  }

  /** Close the files. */
  close(): void {
    for (const open of this.#files.values()) open?.handle.close();
    this.#files.clear();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** The open file, or null when it is gone. */
  async #open(path: string): Promise<ReaderAt | null> {
    const known = this.#files.get(path);
    if (known !== undefined) return known?.reader ?? null;
    let open: _Open | null = null;
    try {
      const handle = await openRegular(path, `Cannot search ${quote(path)}`);
      try {
        open = {
          handle,
          reader: fileReaderAt(handle, (await handle.stat()).size),
        };
      } catch (err) {
        handle.close();
        throw err;
      }
    } catch (err) {
      // Gone since it was indexed: none of its lines is a hit.
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    if (this.#files.size >= _OPEN_FILES) {
      const [oldest, first] = this.#files.entries().next().value!;
      first?.handle.close();
      this.#files.delete(oldest);
    }
    this.#files.set(path, open);
    return open?.reader ?? null;
  }
}

/** `found` when it is what the index recorded, else undefined. */
function _asRecorded(
  found: LineText | undefined,
  line: LocatedLine,
  legacy: boolean,
): LineText | undefined {
  const want = line.expected;
  if (found === undefined) return undefined;
  if (want.skip !== undefined || found.skip !== undefined) {
    return found.skip === want.skip ? found : undefined;
  }
  if (found.role !== want.role || found.timestamp !== want.timestamp) {
    return undefined;
  }
  // A version 1 line read on its own has a stand-in id: keep the recorded one.
  if (legacy) return { ...found, entryId: want.entryId };
  return found.entryId === want.entryId ? found : undefined;
}
