/**
 * The options of `Session`'s factories and methods.
 *
 * @module
 */

import type { ResetRule } from "../context/context.ts";
import type { LoadIssue } from "../format/issues.ts";
import type { TitleSource } from "../format/title_slot.ts";

/** How a session writes (for `Session.open` and `Session.create`). */
export interface SessionWriteOptions {
  /** `syncData` after every append and title rewrite. Default false. */
  sync?: boolean;
  /** How long to wait for another writer's lock, ms. Default 500 (omp's). */
  lockTimeoutMs?: number;
  /**
   * Tool-result text blocks longer than this many characters are stored as
   * blobs. Off by default: omp does not resolve text blobs.
   */
  textBlobThreshold?: number;
  /** The clock for timestamps (tests). Default `() => new Date()`. */
  now?: () => Date;
}

/** Options for `Session.open`. */
export interface SessionOpenOptions extends SessionWriteOptions {
  /**
   * The data dir whose `blobs/` holds the blobs the session references.
   * Default: the nearest ancestor of the file that holds a `blobs/` folder.
   */
  dataDir?: string;
  /** Resolve blob references when the context is built. Default true. */
  resolveBlobs?: boolean;
  /** Called with each piece of damage as the loader reads around it. */
  onIssue?: (issue: LoadIssue) => void;
  /**
   * Lines longer than this many bytes are reported (`oversized-line`) and
   * skipped unread, never held in memory. Default 64 MiB.
   */
  maxLineBytes?: number;
  /**
   * Keep only the window (default true): the file is read backwards from
   * the end and only the active path back to the governing reset or
   * compaction window is parsed and kept. False reads and keeps every line.
   */
  window?: boolean;
  /**
   * Let a settings checkpoint end the backward walk (default true): the
   * open then costs the window alone, and `activePath` starts at the
   * checkpoint. False walks back to the root (reading, not keeping, the
   * rest of the file) for a complete `activePath`.
   */
  checkpoints?: boolean;
}

/** Options for `Session.fromStream`. */
export interface SessionFromStreamOptions {
  /** A name for the stream in errors and issues. Default `"<stream>"`. */
  name?: string;
  /** The data dir whose `blobs/` holds the referenced blobs; none by default. */
  dataDir?: string;
  /** Resolve blob references. Default true (when a data dir is given). */
  resolveBlobs?: boolean;
  /** Called with each piece of damage as the loader reads around it. */
  onIssue?: (issue: LoadIssue) => void;
  /** Lines longer than this are reported and skipped unread. Default 64 MiB. */
  maxLineBytes?: number;
}

/** Options for `Session.create`. */
export interface SessionCreateOptions extends SessionWriteOptions {
  /** The working directory the session belongs to (made absolute). */
  cwd: string;
  /** The data dir. Default: `resolveDataDir()` (`XDEV_DATA_DIR`, the config, `~/.xdev/agent`). */
  dataDir?: string;
  /** The file. Default: `<dataDir>/sessions/<cwd slug>/<timestamp>_<id>.jsonl`. */
  path?: string;
  /** The session id. Default: a new UUIDv7. */
  id?: string;
  /** The session this one was forked from (an id), or a subagent's parent (a path). */
  parentSession?: string;
  /** A first title. */
  title?: string;
  /** Who set it; `subagent` marks a child session that is never resumed. */
  titleSource?: TitleSource;
  /** More header fields, kept as given. */
  header?: Record<string, unknown>;
}

/** Options for `Session.buildContext`. */
export interface SessionBuildContextOptions {
  /** Another leaf than the session's. */
  leafId?: string | null;
  /** How a compaction reaching back past a reset is settled; default `xdev`. */
  resetRule?: ResetRule;
}

/**
 * What the loader kept and looked at, as of the open (appends since do not
 * change it).
 */
export interface WindowStats {
  /** Entries kept in memory. */
  retained: number;
  /**
   * Lines the loader looked at, each once: the title slot and header lines,
   * then every line the walk stepped over (blank and damaged ones too),
   * whether it was parsed or passed by on its envelope. Lines the open left
   * unread are not counted.
   */
  seen: number;
  /**
   * Whether the open left part of the file unread: exactly
   * `bytesRead < ` the file's size at the open. A windowed open that walked
   * back to the start (no checkpoint or compaction ended it early), or a
   * file small enough for the first read, is not windowed, even though
   * entries off the active path are not kept.
   */
  windowed: boolean;
  /**
   * Distinct bytes of the file (or stream) read: each byte once, however
   * many reads covered it, so never more than the file's size.
   */
  bytesRead: number;
}
