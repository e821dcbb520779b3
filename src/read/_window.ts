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

import { PathSteps } from "../context/_path_steps.ts";
import {
  WalkResume,
  type WindowLoad,
  type WindowOptions,
  type WindowRecord,
  type WindowSource,
} from "./_resume.ts";
import { LatestLabels } from "../context/labels.ts";
import { LatestSettings } from "../context/settings.ts";
import type { PathEnd } from "../context/tree.ts";
import { asCheckpoint, type SettingsCheckpoint } from "../format/checkpoint.ts";
import type { SessionEntry } from "../format/entries.ts";
import { branchMarkerTarget } from "../format/_branch_marker.ts";
import { BackwardLines } from "./_backward_lines.ts";
import { decodeEntry, type IssueLog } from "./_decode.ts";
import {
  ENVELOPE_BYTES,
  EnvelopeAt,
  readEnvelope,
  WantedId,
} from "./_envelope.ts";
import { IdFlags } from "./_id_set.ts";
import type { Line } from "./lines.ts";

const _CLOSE_BRACE = 0x7d;
const _LABEL = new TextEncoder().encode("label");
const _MESSAGE = new TextEncoder().encode("message");
/** Flags of an id in the walk: walked past; on the path. */
const _PASSED = 1;
const _ON_PATH = 2;

/** What a step tells the walk: go on, or stop. */
type _Step = "more" | "done";

/** Where the walk is: at the leaf, in the window, in a compaction's kept part, or past the window. */
type _Phase = "leaf" | "window" | "kept" | "settings";

/**
 * Load the window of a version 3 session by reading backwards.
 *
 * @param source The file, by position.
 * @param bodyStart The offset of the first entry line (after the header).
 * @param log Where damage goes.
 * @param options Checkpoints, the longest line, and what the index recorded.
 * @returns The window, or undefined when the path cannot be completed
 * backwards (a missing parent, a branch marker whose target is absent, a
 * parent written after its child): the caller then reads the whole file,
 * which is slower but settles those cases exactly as a full read does.
 */
export async function loadWindow(
  source: WindowSource,
  bodyStart: number,
  log: IssueLog,
  options: WindowOptions,
): Promise<WindowLoad | undefined> {
  const lines = new BackwardLines(source, {
    floor: bodyStart,
    size: source.size,
    headBytes: ENVELOPE_BYTES,
    maxLineBytes: options.maxLineBytes,
    readAhead: true,
  });
  const walk = new _BackwardWalk(log, options);
  try {
    for (let first = true;; first = false) {
      const line = await lines.prev();
      // The bytes up to the end of the last whole line are what can be recorded.
      if (first) {
        walk.end = line === undefined || line.terminated
          ? source.size
          : line.offset;
      }
      if (line === undefined) {
        walk.reachedStart = true;
        break;
      }
      if (await walk.step(line, lines) === "done") break;
    }
  } finally {
    await lines.settle(); // no read under way once the file may close
  }
  return await walk.finish(source);
}

/** The state of one backward walk from the leaf. */
class _BackwardWalk {
  readonly #log: IssueLog;
  readonly #useCheckpoints: boolean;
  /** Whether the load keeps the record (else only its ids). */
  readonly #keepRecord: boolean;
  readonly #maxLineBytes: number;
  readonly #retained: SessionEntry[] = [];
  readonly #before = new PathSteps();
  /** The whole active path walked (window included), with offsets. */
  readonly #path = new PathSteps();
  readonly #resume: WalkResume;
  /** Whether every line down to the first entry was stepped over. */
  reachedStart = false;
  /** The end of the file's last whole line. */
  end = 0;
  /** Entry lines and message entries seen (complete counts when the walk reached the start). */
  #entries = 0;
  #messages = 0;
  readonly #labels = new LatestLabels();
  readonly #settings = new LatestSettings();
  /** Every id walked past ({@linkcode _PASSED}), and those on the path ({@linkcode _ON_PATH}). */
  readonly #ids = new IdFlags();
  readonly #at = new EnvelopeAt();
  #checkpoint: SettingsCheckpoint | undefined;
  #phase: _Phase = "leaf";
  readonly #wanted = new WantedId();
  #leafId: string | null = null;
  #firstKept: string | null = null;
  #pathEnd: PathEnd = "root";
  #seen = 0;
  /** Set when only a full read can settle the path. */
  #unsettled = false;

  constructor(log: IssueLog, options: WindowOptions) {
    this.#log = log;
    this.#resume = new WalkResume(options.resume);
    this.#useCheckpoints = options.checkpoints && options.record !== true;
    this.#keepRecord = options.record === true || options.keepRecord === true;
    this.#maxLineBytes = options.maxLineBytes;
  }

  /**
   * Take `line` (walking backwards); "done" ends the walk. The line's
   * content is read only when it must be parsed.
   */
  step(line: Line, lines: BackwardLines): _Step | Promise<_Step> {
    if (this.#resume.recorded(line.offset) && this.#stopsAtRecord()) {
      return "done";
    }
    this.#seen++;
    const at = this.#at;
    const head = line.head;
    const hasEnvelope = line.length > 0 && !line.nul &&
      readEnvelope(head, 0, head.length, at);
    if (hasEnvelope) {
      this.#count(at.typeIs(_MESSAGE), line.offset);
      this.#resume.checkBytes(line.offset, at);
    }
    const onWant = hasEnvelope && this.#wanted.matches(at);
    if (hasEnvelope && !onWant && !this.#mustParse(at, false, "")) {
      return this.#passBy(at, line.offset);
    }
    if (hasEnvelope && onWant) {
      const type = at.type();
      if (!this.#mustParse(at, true, type)) {
        // Trusted on its envelope, as a full read keeps a damaged line with
        // an intact envelope; a line cut short is no entry in either.
        if (!line.terminated || lines.lastByte !== _CLOSE_BRACE) return "more";
        return this.#followEnvelope(at, type, line.offset);
      }
    }
    if (line.bytes !== undefined || line.oversized || line.nul) {
      return this.#parsed(line, hasEnvelope);
    }
    return lines.complete(line).then((l) => this.#parsed(l, hasEnvelope));
  }

  #count(message: boolean, offset: number): void {
    this.#entries++;
    if (message) this.#messages++;
    this.#resume.count(message, offset);
  }

  /** At the recorded bytes: only past the window may the record end the walk. */
  #stopsAtRecord(): boolean {
    const id = this.#wanted.id;
    return this.#phase === "settings" && id !== null &&
      this.#resume.stopAt(id);
  }

  /** A line parsed in full: labels, then the path. */
  #parsed(line: Line, counted: boolean): _Step {
    const entry = decodeEntry(line, this.#log);
    if (entry === undefined) return "more";
    if (!counted) this.#count(entry.type === "message", line.offset);
    this.#resume.check(line.offset, entry.id);
    // A checkpoint already counts the labels of every line before it.
    if (this.#checkpoint === undefined) this.#labels.offer(entry);
    const parentId = entry.parentId || null;
    return this.#follow(entry.id, entry.type, parentId, entry, line.offset);
  }

  /** The window, or undefined when the path needs a full read. */
  async finish(source: WindowSource): Promise<WindowLoad | undefined> {
    const resumed = this.#resume.stopped;
    const checkpoint = this.#checkpoint !== undefined;
    if (
      this.#unsettled ||
      (this.#wanted.id !== null && !checkpoint && !resumed)
    ) return;
    // The window's own settings are folded by the context; the rest here.
    this.#retained.reverse();
    const cp = this.#checkpoint;
    const base = resumed
      ? await this.#resume.base(source, {
        settings: this.#settings,
        labels: this.#labels,
        before: this.#before,
      }, this.#maxLineBytes)
      : {
        settings: this.#settings.fold(cp),
        labels: this.#labels.collect(cp?.labels),
        pathBefore: this.#before,
        pathEnd: this.#pathEnd,
      };
    const load: WindowLoad = {
      entries: this.#retained,
      leafId: this.#leafId,
      base,
      seen: this.#seen,
      checkpoint,
      resumed,
      end: this.end,
    };
    const record = this.#record(resumed, checkpoint, base.labels);
    if (record !== undefined) {
      load.fileIds = record.ids;
      if (this.#keepRecord) load.record = record;
    }
    return load;
  }

  /** The file's record, when the walk saw every line (or resumed from one). */
  #record(
    resumed: boolean,
    checkpoint: boolean,
    labels: Record<string, string>,
  ): WindowRecord | undefined {
    if (resumed) return this.#resume.record(this.#path, this.#ids, labels);
    if (checkpoint || !this.reachedStart) return undefined;
    // Walked to the start without a checkpoint: every line was seen.
    return {
      path: this.#path,
      pathEnd: this.#pathEnd,
      labels: this.#labels.collect(),
      ids: this.#ids,
      entries: this.#entries,
      messages: this.#messages,
    };
  }

  /**
   * Parse a line only when it can matter: the leaf, the window, labels
   * (until a checkpoint holds them), and on the path before the window the
   * entries that carry settings (and `custom`, which may be a checkpoint).
   */
  #mustParse(at: EnvelopeAt, onWant: boolean, type: string): boolean {
    if (this.#phase === "leaf") return true;
    if (this.#checkpoint === undefined && at.typeIs(_LABEL)) return true;
    if (!onWant) return false;
    return this.#phase !== "settings" || type === "custom" ||
      this.#settings.wants(type);
  }

  /** A line off the path: remembered, so a later want of its id is caught. */
  #passBy(at: EnvelopeAt, offset: number): "more" {
    const { bytes, idStart, idEnd } = at;
    return this.#passed(
      this.#ids.addBytes(bytes, idStart, idEnd, _PASSED),
      offset,
    );
  }

  /** An id walked past that was already on the path: the later entry wins. */
  #passed(had: number, offset: number): "more" {
    if ((had & _ON_PATH) === 0) return "more";
    this.#log.add(
      "duplicate-id",
      0,
      offset,
      `the line at byte ${offset} repeats a later entry's id; the later entry wins`,
    );
    return "more";
  }

  /** Follow the path through one entry (parsed, or known by its envelope). */
  #follow(
    id: string,
    type: string,
    parentId: string | null,
    entry: SessionEntry | undefined,
    offset: number,
  ): _Step {
    if (this.#phase === "leaf") {
      const to = branchMarkerTarget(entry!);
      this.#leafId = to ?? id;
      this.#wanted.set(this.#leafId);
      this.#phase = "window";
      if (to !== undefined) {
        this.#ids.add(id, _PASSED);
        return "more"; // the marker itself is not on the path
      }
    }
    if (this.#wanted.id === null && this.#checkpoint !== undefined) {
      return "done"; // the root: nothing left to learn
    }
    if (id !== this.#wanted.id) {
      return this.#passed(this.#ids.add(id, _PASSED), offset);
    }
    if ((this.#ids.add(id, _PASSED | _ON_PATH) & _ON_PATH) !== 0) {
      return this.#cycle();
    }
    this.#wanted.set(parentId);
    if (this.#wantedSeen()) {
      this.#unsettled = true;
      return "done";
    }
    this.#path.add(id, type, offset);
    return this.#phase === "settings"
      ? this.#pastWindow(id, type, entry, offset)
      : this.#inWindow(entry!);
  }

  /**
   * {@linkcode #follow} through the wanted entry known by its envelope
   * alone: past the window, a line not parsed (only then is it not
   * parsed). An id of 8 hex digits stays a number, so no text is made for
   * the line: the long walk of a file without checkpoints takes this way
   * for nearly every line.
   */
  #followEnvelope(at: EnvelopeAt, type: string, offset: number): _Step {
    const key = this.#wanted.key;
    if (key < 0) {
      return this.#follow(
        this.#wanted.id!,
        type,
        at.parentId(),
        undefined,
        offset,
      );
    }
    if ((this.#ids.addKey(key, _PASSED | _ON_PATH) & _ON_PATH) !== 0) {
      return this.#cycle();
    }
    this.#wanted.setParent(at);
    if (this.#wantedSeen()) {
      this.#unsettled = true;
      return "done";
    }
    this.#path.addKey(key, type, offset);
    this.#before.addKey(key, type, offset);
    return "more";
  }

  /** The path came back to an entry already on it: it ends there. */
  #cycle(): "more" {
    this.#pathEnd = "cycle";
    this.#wanted.set(null);
    this.#phase = "settings";
    return "more";
  }

  /**
   * Whether the id now wanted was walked past already: it has a later
   * duplicate, which a full read would take (or the parent was written
   * after its child), and only a full read settles that.
   */
  #wantedSeen(): boolean {
    const wanted = this.#wanted;
    if (wanted.key >= 0) return this.#ids.getKey(wanted.key) !== 0;
    return wanted.id !== null && this.#ids.get(wanted.id) !== 0;
  }

  /** An entry of the window (or a compaction's kept part). */
  #inWindow(entry: SessionEntry): _Step {
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
    id: string,
    type: string,
    entry: SessionEntry | undefined,
    offset: number,
  ): _Step {
    this.#before.add(id, type, offset);
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
