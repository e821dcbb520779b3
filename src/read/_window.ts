/**
 * The windowed read: a session's window, found by reading the file
 * backwards from the end (DESIGN §4).
 *
 * The window is the active path from the leaf back to the governing reset or
 * compaction window; only its lines are kept and fully parsed. Past the
 * window the walk goes on along the path with envelope checks only, keeping
 * the settings entries the context needs (models, thinking level) and the
 * labels, until the root or a settings checkpoint, which holds those
 * settings as of its position: files this library writes carry one after
 * every compaction and reset, so they open in O(window); other files (omp's)
 * cost a byte scan of the part before the window, still without parsing it
 * or holding it.
 *
 * @module
 */

import type { ContextBase, PathStep } from "../context/context.ts";
import { LatestLabels } from "../context/labels.ts";
import { LatestSettings } from "../context/settings.ts";
import type { PathEnd } from "../context/tree.ts";
import { asCheckpoint, type SettingsCheckpoint } from "../format/checkpoint.ts";
import {
  asEntry,
  branchMarkerTarget,
  type SessionEntry,
} from "../format/entries.ts";
import { decodeLine, type IssueLog } from "./_decode.ts";
import { type Envelope, parseEnvelope } from "./_envelope.ts";
import type { Line, ReaderAt } from "./_line.ts";
import { readLinesBackward } from "./_lines_backward.ts";

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
  /** Bytes read. */
  bytes: number;
  /** Whether a settings checkpoint ended the walk. */
  checkpoint: boolean;
}

/** Path lines before the window up to this size are parsed, not trusted on their envelope. */
const _PARSE_PATH_LINE_BYTES = 4 * 1024;
const _CLOSE_BRACE = 0x7d;

/** Where the walk is: at the leaf, in the window, in a compaction's kept part, or past the window. */
type _Phase = "leaf" | "window" | "kept" | "settings";

/**
 * Load the window of a version 3 session by reading backwards.
 *
 * @param source The file, by position.
 * @param bodyStart The offset of the first entry line (after the header).
 * @param log Where damage goes.
 * @param useCheckpoints Whether a settings checkpoint may end the walk
 * (false: walk to the root, for a complete active path).
 * @returns The window, or undefined when the path cannot be completed
 * backwards (a missing parent, a branch marker whose target is absent, a
 * parent written after its child): the caller then reads the whole file,
 * which is slower but settles those cases exactly as a full read does.
 */
export async function loadWindow(
  source: ReaderAt,
  bodyStart: number,
  log: IssueLog,
  useCheckpoints = true,
): Promise<WindowLoad | undefined> {
  const walk = new _BackwardWalk(log, useCheckpoints);
  let lowest = source.size;
  for await (const line of readLinesBackward(source)) {
    if (line.offset < bodyStart) break;
    lowest = line.offset;
    if (walk.step(line) === "done") break;
  }
  return walk.finish(source.size - lowest);
}

/** The state of one backward walk from the leaf. */
class _BackwardWalk {
  readonly #log: IssueLog;
  readonly #useCheckpoints: boolean;
  readonly #retained: SessionEntry[] = [];
  readonly #before: PathStep[] = [];
  readonly #labels = new LatestLabels();
  readonly #settings = new LatestSettings();
  readonly #onPath = new Set<string>();
  /** Ids of the lines walked past: a wanted id among them has a later duplicate. */
  readonly #passed = new Set<string>();
  #checkpoint: SettingsCheckpoint | undefined;
  #phase: _Phase = "leaf";
  #want: string | null = null;
  #leafId: string | null = null;
  #firstKept: string | null = null;
  #pathEnd: PathEnd = "root";
  #seen = 0;
  /** Set when only a full read can settle the path. */
  #unsettled = false;

  constructor(log: IssueLog, useCheckpoints: boolean) {
    this.#log = log;
    this.#useCheckpoints = useCheckpoints;
  }

  /** Take the next line (walking backwards); "done" ends the walk. */
  step(line: Line): "more" | "done" {
    this.#seen++;
    const env = line.bytes.length > 0 ? parseEnvelope(line.bytes) : undefined;
    const onWant = env !== undefined && env.id === this.#want;
    const full = env === undefined || this.#mustParse(env, onWant, line);
    if (onWant && !full && line.bytes[line.bytes.length - 1] !== _CLOSE_BRACE) {
      return "more"; // damaged: not an entry, as in a full read
    }
    let entry: SessionEntry | undefined;
    let step: Envelope;
    if (full) {
      entry = this.#parse(line);
      if (entry === undefined) return "more";
      step = {
        id: entry.id,
        type: entry.type,
        parentId: entry.parentId || null,
      };
    } else step = env!;
    // A checkpoint already counts the labels of every line before it.
    if (this.#checkpoint === undefined && entry !== undefined) {
      this.#labels.offer(entry);
    }
    return this.#follow(step, entry, line.offset);
  }

  /** The window, or undefined when the path needs a full read. */
  finish(bytes: number): WindowLoad | undefined {
    const checkpoint = this.#checkpoint !== undefined;
    if (this.#unsettled || (this.#want !== null && !checkpoint)) return;
    // The window's own settings are folded by the context; the rest here.
    this.#retained.reverse();
    this.#before.reverse();
    const cp = this.#checkpoint;
    return {
      entries: this.#retained,
      leafId: this.#leafId,
      base: {
        settings: this.#settings.fold(cp),
        labels: this.#labels.collect(cp?.labels),
        pathBefore: this.#before,
        pathEnd: this.#pathEnd,
      },
      seen: this.#seen,
      bytes,
      checkpoint,
    };
  }

  /**
   * Parse a line only when it can matter: the leaf, the window, settings on
   * the path, labels anywhere. Other path lines before the window are parsed
   * when small, so that a damaged one ends the path as it does in a full
   * read; a large one (a tool output) is checked for its closing brace only.
   */
  #mustParse(env: Envelope, onWant: boolean, line: Line): boolean {
    if (this.#phase === "leaf" || env.type === "label") return true;
    if (!onWant) return false;
    return this.#phase !== "settings" || env.type === "custom" ||
      this.#settings.wants(env.type) ||
      line.bytes.length <= _PARSE_PATH_LINE_BYTES;
  }

  #parse(line: Line): SessionEntry | undefined {
    const value = decodeLine(line, this.#log);
    if (value === undefined) return undefined;
    const checked = asEntry(value);
    if ("reason" in checked) {
      this.#log.add(
        "not-an-entry",
        0,
        line.offset,
        `the line at byte ${line.offset} was skipped: ${checked.reason}`,
      );
      return undefined;
    }
    return checked.entry;
  }

  /** Follow the path through one entry (parsed, or known by its envelope). */
  #follow(
    step: Envelope,
    entry: SessionEntry | undefined,
    offset: number,
  ): "more" | "done" {
    const { id } = step;
    if (this.#phase === "leaf") {
      const to = branchMarkerTarget(entry!);
      this.#leafId = to ?? id;
      this.#want = this.#leafId;
      this.#phase = "window";
      if (to !== undefined) {
        this.#passed.add(id);
        return "more"; // the marker itself is not on the path
      }
    }
    if (this.#want === null && this.#checkpoint !== undefined) return "done"; // the root: nothing left to learn
    if (id !== this.#want) {
      this.#passed.add(id);
      if (this.#onPath.has(id)) {
        this.#log.add(
          "duplicate-id",
          0,
          offset,
          `the line at byte ${offset} repeats a later entry's id; the later entry wins`,
        );
      }
      return "more";
    }
    if (this.#onPath.has(id)) {
      this.#pathEnd = "cycle";
      this.#want = null;
      this.#phase = "settings";
      return "more";
    }
    this.#onPath.add(id);
    this.#passed.add(id);
    this.#want = step.parentId;
    // The wanted entry has a later duplicate, which a full read would take:
    // only a full read settles that.
    if (this.#want !== null && this.#passed.has(this.#want)) {
      this.#unsettled = true;
      return "done";
    }
    return this.#phase === "settings"
      ? this.#pastWindow(step, entry)
      : this.#inWindow(entry!);
  }

  /** An entry of the window (or a compaction's kept part). */
  #inWindow(entry: SessionEntry): "more" | "done" {
    this.#retained.push(entry);
    // A checkpoint inside the window: its settings are those of the path up
    // to it, and folding the window over them again changes nothing, so the
    // walk can end where the window does.
    if (this.#checkpoint === undefined && this.#useCheckpoints) {
      this.#checkpoint = asCheckpoint(entry);
    }
    if (this.#phase === "window" && entry.type === "reset_boundary") {
      this.#phase = "settings";
    } else if (this.#phase === "window" && entry.type === "compaction") {
      const kept = entry.firstKeptEntryId;
      this.#firstKept = typeof kept === "string" && kept.length > 0
        ? kept
        : null;
      this.#phase = this.#firstKept === null ? "settings" : "kept";
    } else if (this.#phase === "kept" && entry.id === this.#firstKept) {
      this.#phase = "settings";
    }
    return this.#phase === "settings" && this.#checkpoint !== undefined
      ? "done"
      : "more";
  }

  /** A path entry before the window: only its settings matter. */
  #pastWindow(
    step: Envelope,
    entry: SessionEntry | undefined,
  ): "more" | "done" {
    this.#before.push({ id: step.id, type: step.type });
    if (entry === undefined) return "more";
    const cp = this.#useCheckpoints ? asCheckpoint(entry) : undefined;
    if (cp !== undefined) {
      this.#checkpoint = cp;
      return "done";
    }
    this.#settings.offer(entry);
    return "more";
  }
}
