/**
 * Damage the loader reads around and reports instead of throwing.
 *
 * @module
 */

/** What kind of damage a {@linkcode LoadIssue} reports. */
export type LoadIssueKind =
  /** Line 1 looks like a title slot but is malformed, or is not 256 bytes. */
  | "title-slot"
  /** The last line ends without "\n" and does not parse: a torn append. */
  | "torn-line"
  /** The last line parses but has no final "\n". */
  | "missing-newline"
  /** A line that is not JSON. */
  | "not-json"
  /** A JSON line that is not an entry (no type or id). */
  | "not-an-entry"
  /** A line of NUL bytes (a crash on a filesystem that preallocates). */
  | "nul-fill"
  /** An empty line. */
  | "blank-line"
  /** A line that is not valid UTF-8 (decoded with U+FFFD in memory only). */
  | "invalid-utf8"
  /** A line longer than the loader's limit; skipped unread. */
  | "oversized-line"
  /** A second entry with an id already seen; the later one wins. */
  | "duplicate-id"
  /** The header's version is newer than this library's. */
  | "future-version"
  /** A blob reference whose blob file is absent; the reference stays. */
  | "missing-blob"
  /** A string that claims to be a blob reference but is not a valid one; never followed. */
  | "bad-blob-ref"
  /** The active path stops early at a missing parent or a cycle. */
  | "path-cut"
  /** A branch marker whose target is not in the session. */
  | "bad-branch-marker"
  /** Two JSON values glued on one line (omp appended after a line without "\n"): the first is kept. */
  | "glued-line"
  /** A complete line that is not JSON but starts with an intact envelope: kept as a chain node. */
  | "damaged-entry"
  /** A referenced blob larger than the 64 MiB read bound: not read; the reference stays. */
  | "blob-too-large"
  /** A referenced blob that cannot be read (permissions, an I/O error, cut while read); the reference stays. */
  | "unreadable-blob"
  /** A referenced blob whose bytes do not hash to its name (cut short or damaged); the reference stays. */
  | "corrupt-blob";

/**
 * One piece of damage found while loading. Messages carry the position,
 * never the line's content.
 */
export interface LoadIssue {
  /** What kind of damage. */
  kind: LoadIssueKind;
  /**
   * 1-based line number; 0 when the issue is not tied to one line, or when
   * its number is not known (a windowed open reads backwards: `offset`
   * places the line).
   */
  line: number;
  /** Byte offset of the line, -1 when unknown. */
  offset: number;
  /** A sentence for humans. */
  message: string;
}

/**
 * A line longer than the loader's limit (`DEFAULT_MAX_LINE_BYTES`, 64
 * MiB): no reader parses it (the loader reports it as `oversized-line` and
 * skips it), so the usage report does not count a call it holds and the
 * search does not search its text; both say where it is instead.
 */
export interface OversizedLine {
  /** The session file. */
  path: string;
  /** The line's offset in it. */
  offset: number;
  /** Its length in bytes (its end of line left out). */
  length: number;
}

/**
 * The order of lines across files: by path (in code unit order), then by
 * offset.
 *
 * @param a A line.
 * @param b Another.
 * @returns Negative when `a` comes first.
 *
 * @example Sorting lines of two files
 * ```ts
 * import { byPlace } from "./issues.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const lines = [{ path: "b", offset: 0 }, { path: "a", offset: 9 }, { path: "a", offset: 3 }];
 * deepEqual(lines.sort(byPlace).map((l) => l.offset), [3, 9, 0]);
 * ```
 */
export function byPlace(
  a: Pick<OversizedLine, "path" | "offset">,
  b: Pick<OversizedLine, "path" | "offset">,
): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.offset - b.offset;
}
