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
