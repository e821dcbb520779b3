/**
 * `SessionReader`: what any session can read of what it holds in memory:
 * its header and title, its entries, the entry tree (pi's `getTree`,
 * `getBranch`, `getChildren`, `getLabel`) and the context. `Session` adds
 * opening, creating and writing.
 *
 * @module
 */

import type { SessionContext } from "../context/context.ts";
import { linkTree, pathTo } from "../context/tree.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { SessionHeader } from "../format/header.ts";
import type { LoadIssue } from "../format/issues.ts";
import type { TitleSlot, TitleSource } from "../format/title_slot.ts";
import {
  watchSession,
  type WatchSessionOptions,
} from "../watch/watch_session.ts";
import type { SessionView } from "./_view.ts";
import { EntryAppender } from "./entry_appender.ts";
import type { SessionBuildContextOptions, WindowStats } from "./options.ts";

/** One node of {@linkcode SessionReader.getTree}: an entry and its children (pi's `SessionTreeNode`). */
export interface SessionTreeNode {
  /** The entry. */
  entry: SessionEntry;
  /** The entries whose parent it is, in file order. */
  children: SessionTreeNode[];
  /** Its label (the latest `label` entry aimed at it), if any. */
  label?: string;
}

/** Gives a reader its view (set by the class's static block). */
let _attach: (reader: SessionReader, view: SessionView) => void;

/**
 * Give a reader the view it reads (for `Session`'s constructor; never
 * exported from `mod.ts`).
 */
export function attachView(reader: SessionReader, view: SessionView): void {
  _attach(reader, view);
}

/**
 * The read side of a {@linkcode Session}: everything here reads the entries
 * in memory, never the file. A session opened windowed (the default) holds
 * the window the context needs; open it with `{ window: false }` for the
 * tree of the whole file.
 *
 * (The methods' examples open a fixture with {@linkcode Session.open}.)
 */
export abstract class SessionReader extends EntryAppender {
  #view!: SessionView;

  static {
    _attach = (reader, view) => {
      reader.#view = view;
    };
  }

  /** The file's absolute path (also before a new session reaches disk); undefined for a stream. */
  abstract get path(): string | undefined;

  /** Whether the session's file exists (written, or opened). */
  abstract get onDisk(): boolean;

  /**
   * Follow this session's file: the entries any writer appends from now on
   * (this session's own appends included), as `watchSession`
   * yields them. The session's loaded entries do not change.
   *
   * (See `watchSession` for an example.)
   *
   * @throws {Error} When the session is not on disk yet.
   */
  watch(
    options?: WatchSessionOptions,
  ): AsyncGenerator<SessionEntry, void, undefined> {
    const path = this.path;
    if (path === undefined || !this.onDisk) {
      throw new Error("Cannot watch the session: it is not on disk yet");
    }
    return watchSession(path, options);
  }

  /**
   * The header as on disk (unknown fields kept). A version 1 or 2 file
   * keeps its header until the first write migrates the file to version 3.
   */
  get header(): SessionHeader {
    return this.#view.loaded.header;
  }

  /** The title slot, when line 1 holds a valid one. */
  get titleSlot(): TitleSlot | undefined {
    return this.#view.loaded.slot;
  }

  /**
   * The title: the slot's when there is a slot (an empty slot title means
   * none), else the header's.
   */
  get title(): string | undefined {
    return this.#view.title;
  }

  /** Who set the title, from the slot (else the header). */
  get titleSource(): TitleSource | undefined {
    return this.#view.titleSource;
  }

  /** The active leaf (DESIGN §3.6), or null for a session without entries. */
  get leafId(): string | null {
    return this.#view.leafId;
  }

  /**
   * Whether the file was version 1 or 2 when opened, and migrated in memory.
   * The first append or rename migrates the file itself, in place and whole
   * (as omp does): after it, `header.version` is 3.
   */
  get migrated(): boolean {
    return this.#view.loaded.migrated;
  }

  /** Damage the loader read around, in file order. */
  get issues(): readonly LoadIssue[] {
    return this.#view.loaded.issues;
  }

  /** The entries in memory (the window, then what was appended), in file order. */
  get entries(): readonly SessionEntry[] {
    return this.#view.loaded.entries;
  }

  /** An entry by id, if it is in memory. */
  getEntry(id: string): SessionEntry | undefined {
    return this.#view.loaded.byId.get(id);
  }

  /**
   * The entry tree of the entries in memory (pi's `getTree`): the roots,
   * each with its children, in file order (pi sorts siblings by time; an
   * append-only file is in time order). An entry whose parent is not in
   * memory (a cut-off history, or the start of a window) is a root, as in
   * pi. Built by the one tree builder (`linkTree`), without recursion, so
   * a deep tree cannot overflow the stack.
   *
   * @example The tree, a branch, children and labels of a session omp wrote
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual, equal } from "node:assert/strict";
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * await using s = await Session.open(url.pathname, { window: false });
   * const roots = s.getTree();
   * equal(roots.length, 1);
   * equal(roots[0]!.entry.id, s.entries[0]!.id);
   * const branch = s.getBranch();
   * equal(branch.at(-1)!.id, s.leafId);
   * equal(branch[0]!.id, roots[0]!.entry.id);
   * deepEqual(s.getChildren(roots[0]!.entry.id).map((e) => e.id),
   *   roots[0]!.children.map((n) => n.entry.id));
   * deepEqual(s.getBranch("ffffffff"), []);
   * ```
   *
   * @returns The roots; a session without entries has none.
   */
  getTree(): SessionTreeNode[] {
    const entries = this.#view.loaded.entries;
    const index = new Map<string, number>();
    entries.forEach((e, i) => index.set(e.id, i)); // the later one, for a duplicate id
    const labels = this.#view.labels();
    const nodes: SessionTreeNode[] = entries.map((entry) => {
      const label = labels[entry.id];
      return label === undefined
        ? { entry, children: [] }
        : { entry, children: [], label };
    });
    const { parents } = linkTree(entries.length, (i) => {
      const parent = entries[i]!.parentId;
      return parent ? index.get(parent) ?? -1 : -1;
    });
    const roots: SessionTreeNode[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const p = parents[i]!;
      (p < 0 ? roots : nodes[p]!.children).push(nodes[i]!);
    }
    return roots;
  }

  /**
   * The path from the root to `fromId` (default: the leaf), root first
   * (pi's `getBranch`): every entry type, as `buildContext` walks it. The
   * walk stops at a parent not in memory, or a repeated id.
   *
   * (See {@linkcode SessionReader.getTree} for an example.)
   *
   * @param fromId Where the path ends; an id not in memory gives `[]`.
   * @returns The entries, root first.
   */
  getBranch(fromId?: string): SessionEntry[] {
    const loaded = this.#view.loaded;
    return pathTo(fromId ?? this.#view.leafId, loaded.byId).entries;
  }

  /**
   * The entries whose parent is `id`, in file order (pi's `getChildren`).
   *
   * (See {@linkcode SessionReader.getTree} for an example.)
   *
   * @param id An entry's id.
   * @returns Its children in memory; `[]` for a leaf or an unknown id.
   */
  getChildren(id: string): SessionEntry[] {
    return this.#view.loaded.entries.filter((e) =>
      e.parentId === id && e.id !== id
    );
  }

  /**
   * The label of an entry (pi's `getLabel`): the latest `label` entry aimed
   * at it, over the whole file (a windowed open keeps the labels of the
   * lines it passed).
   *
   * @example A label set on a fixture's entry
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * await using s = await Session.open(url.pathname);
   * const [id, label] = Object.entries(s.buildContext().labels)[0]!;
   * equal(s.getLabel(id), label);
   * equal(s.getLabel("ffffffff"), undefined);
   * ```
   *
   * @param id An entry's id.
   * @returns The label, or undefined.
   */
  getLabel(id: string): string | undefined {
    return this.#view.labels()[id];
  }

  /**
   * Rebuild what the model sees on resume (DESIGN §3.7).
   *
   * @example Rebuilding the context of a fixture
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * await using session = await Session.open(url.pathname);
   * const ctx = session.buildContext();
   * equal(ctx.model, "openai/gpt-5.1-codex");
   * equal(ctx.thinkingLevel, "high");
   * equal(ctx.messages[0]?.role, "compactionSummary");
   * equal(session.buildContext({ leafId: null }).messages.length, 0);
   * ```
   *
   * @param options Another leaf, or omp's reset rule for comparison.
   */
  buildContext(options: SessionBuildContextOptions = {}): SessionContext {
    return this.#view.context(options.leafId, {
      resetRule: options.resetRule ?? "xdev",
    });
  }

  /**
   * What the loader kept and looked at, as of the open: the entries kept,
   * the lines looked at, the distinct bytes read (never more than the
   * file's size) and whether some were left unread.
   *
   * @returns The figures of the open.
   *
   * @example What the windowed open kept
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal, ok } from "node:assert/strict";
   * const path = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url).pathname;
   * const size = (await Deno.stat(path)).size;
   * const stats = (await Session.open(path)).windowStats();
   * // A small file comes whole in the first read: every byte read once,
   * // nothing left out, yet only the window is kept.
   * equal(stats.bytesRead, size);
   * equal(stats.windowed, false);
   * ok(stats.retained < stats.seen);
   * equal((await Session.open(path, { window: false })).windowStats().retained, 60);
   * ```
   */
  windowStats(): WindowStats {
    return this.#view.stats();
  }
}
