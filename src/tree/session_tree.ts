/**
 * `SessionTree`: the entry tree of a session file with a one-line preview
 * of each entry, read from the first bytes of each line, never whole
 * entries.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import type { SessionHeader } from "../format/header.ts";
import type { LoadIssue } from "../format/issues.ts";
import { openRegular } from "../read/_open.ts";
import { HEAD_BYTES, readLines } from "../read/lines.ts";
import {
  MISSING_PARENT,
  PREVIEW_LATER,
  TOOL_ONLY,
  type TreeTable,
} from "./_table.ts";
import type { TreeFilter } from "./_table.ts";
import { describe } from "./_preview.ts";
import { readTable } from "./_read_table.ts";

/** One entry of a {@linkcode SessionTree}. */
export interface TreeNode {
  /** Its place in the tree's table (file order). */
  index: number;
  /** The entry's id. */
  id: string;
  /** Its parent's id as written (null for a root). */
  parentId: string | null;
  /** The entry's type. */
  type: string;
  /** A message's role, else null. */
  role: string | null;
  /**
   * One line: a message's text start (at most 200 characters), a tool
   * call's name, a tool result's tool and output start, or a short
   * description of another entry (`model anthropic/claude-sonnet-4-5`,
   * `compaction`, `label 1c39e5d1: start` …). Not sanitized for a terminal.
   */
  preview: string;
  /** Its label (the latest `label` entry aimed at it), else null. */
  label: string | null;
  /** Whether it is on the path from the root to the leaf. */
  onActivePath: boolean;
  /** How many entries have it as their parent. */
  children: number;
  /** An assistant turn holding tool calls and no text. */
  toolOnly: boolean;
  /** Its parent is named but not in the file (a cut-off history). */
  missingParent: boolean;
  /** Its line's byte offset. */
  offset: number;
}

/** Options for {@linkcode SessionTree.read}. */
export interface SessionTreeReadOptions {
  /**
   * Called with each damaged line of the body, as the loader reports it (a
   * line taken from its first bytes is not parsed: damage after its
   * envelope goes unseen, as in the windowed open).
   */
  onIssue?: (issue: LoadIssue) => void;
  /**
   * Another leaf than the file's: the tree as it was at that entry (the
   * path from the root to it drawn as the active path). An id the file
   * does not hold is an error.
   */
  leafId?: string;
  /**
   * Whether to read every message's preview now (default true). With
   * false, a message's role is read from its line's first bytes and its
   * `preview` (`""`) and `toolOnly` (false) wait for
   * {@linkcode SessionTree.readPreviews}: drawing a folded outline then
   * costs one pass over the bytes plus the rows drawn. Other entries'
   * previews are read at once either way.
   */
  previews?: boolean;
}

/**
 * The entry tree of a session file: every entry's id, parent, type, role,
 * label and a one-line preview, the leaf and the active path. Reading it
 * costs one pass over the file's bytes and the first 8 KiB of each line,
 * and holds a compact table (a few strings and numbers an entry), never
 * the entries themselves. It keeps the entries the loader keeps: a line
 * written envelope first, complete and ending in `}` is taken from its
 * first bytes; any other line (omp's `custom` and `custom_message`, whose
 * id comes after their payload; a glued or damaged line; every line of a
 * version 1 or 2 file) is decoded whole as the loader decodes it, except a
 * line without an envelope first longer than 1 MiB, which is left out and
 * reported. The file is never modified; no lock is taken.
 *
 * @example The branches of a session omp wrote
 * ```ts
 * import { SessionTree } from "@xdev/session";
 * import { equal, ok } from "node:assert/strict";
 *
 * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
 * const tree = await SessionTree.read(url.pathname);
 * equal(tree.size, 60);
 * const leaf = tree.node(tree.indexOf(tree.leafId!));
 * ok(leaf.onActivePath);
 * const forks = [...tree.nodes()].filter((n) => n.children > 1);
 * ok(forks.length > 0); // a branch point
 * equal(tree.node(0).preview, "model anthropic/claude-sonnet-4-5");
 * ```
 */
export class SessionTree {
  /** The file read. */
  readonly path: string;
  /** Its header. */
  readonly header: SessionHeader;
  /** Its title (the slot's), if any. */
  readonly title: string | undefined;
  /** Bytes read. */
  readonly bytesRead: number;
  readonly #d: TreeTable;

  private constructor(
    path: string,
    header: SessionHeader,
    title: string | undefined,
    bytesRead: number,
    data: TreeTable,
  ) {
    this.path = path;
    this.header = header;
    this.title = title;
    this.bytesRead = bytesRead;
    this.#d = data;
  }

  /**
   * Read the tree of a session file.
   *
   * @param path The session file.
   * @param options A callback for damage; whether to read previews now.
   * @returns The tree.
   * @throws {Error} `Cannot read the tree of "<path>": …` when the file
   * cannot be opened or is not a regular file.
   * @throws {SessionSyntaxError} When it has no readable header.
   */
  static async read(
    path: string,
    options: SessionTreeReadOptions = {},
  ): Promise<SessionTree> {
    const file = await openRegular(
      path,
      `Cannot read the tree of "${path}"`,
    );
    try {
      const { head, end, table } = await readTable(file, path, options);
      if (options.leafId !== undefined && !table.byId.has(options.leafId)) {
        throw new Error(
          `Cannot read the tree of "${path}" at "${options.leafId}": no entry has that id`,
        );
      }
      return new SessionTree(
        path,
        head.header,
        head.slot?.title || undefined,
        end,
        table,
      );
    } finally {
      await file?.[Symbol.asyncDispose]();
    }
  }

  /**
   * The preview a tree shows for an entry (what {@linkcode TreeNode.preview}
   * reads from a line's first bytes), made from the parsed entry.
   *
   * @example Previews of a message and a model change
   * ```ts
   * import { SessionTree } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const timestamp = "2026-10-01T09:00:00.000Z";
   * const text = "Fix\nthe  bug";
   * equal(SessionTree.previewOf({
   *   type: "message", id: "a1", parentId: null, timestamp,
   *   message: { role: "user", content: [{ type: "text", text }] },
   * }), "Fix the bug");
   * equal(SessionTree.previewOf({
   *   type: "model_change", id: "b2", parentId: "a1", timestamp, model: "openai/gpt-5.1",
   * }), "model openai/gpt-5.1");
   * ```
   *
   * @param entry An entry.
   * @returns One line of at most 200 characters, not sanitized for a terminal.
   */
  static previewOf(entry: SessionEntry): string {
    return describe(entry.type, entry as Record<string, unknown>).preview;
  }

  /**
   * Read the previews a tree read with `previews: false` left for later,
   * of the nodes given (those of a drawn outline): each from its line's
   * first 8 KiB, in file order. A line that no longer holds its entry
   * (the file was rewritten since) keeps an empty preview.
   *
   * @example Drawing first, then reading the previews of the rows drawn
   * ```ts
   * import { outlineTree, SessionTree } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * const tree = await SessionTree.read(url.pathname, { previews: false });
   * const rows = outlineTree(tree, { filter: "user" });
   * equal(tree.node(2).preview, "");
   * await tree.readPreviews(rows.flatMap((r) => r.kind === "entry" ? [r.node.index] : []));
   * equal(tree.node(2).preview, "Explain what src/session/store.ts does and list its exports.");
   * ```
   *
   * @param indexes The nodes.
   * @returns Once the previews are read.
   * @throws {Error} `Cannot read the previews of "<path>": …` when the file
   * cannot be read.
   */
  async readPreviews(indexes: Iterable<number>): Promise<void> {
    const d = this.#d;
    const todo = [...new Set(indexes)]
      .filter((i) => (this.#check(i).flags[i]! & PREVIEW_LATER) !== 0)
      .sort((a, b) => d.offsets[a]! - d.offsets[b]!);
    if (todo.length === 0) return;
    const file = await openRegular(
      this.path,
      `Cannot read the previews of "${this.path}"`,
    );
    try {
      for (const i of todo) {
        const start = d.offsets[i]!;
        d.flags[i]! &= ~PREVIEW_LATER;
        // The line's first bytes, and its terminator when it is that short.
        const range = { start, end: start + HEAD_BYTES + 2 };
        for await (const line of readLines(file, range)) {
          d.takePreview(i, line.head);
          break;
        }
      }
    } finally {
      await file?.[Symbol.asyncDispose]();
    }
  }

  /** How many entries the tree holds. */
  get size(): number {
    return this.#d.ids.length;
  }

  /** The leaf's index, -1 for a session without entries. */
  get leaf(): number {
    return this.#d.leaf;
  }

  /** The leaf's id, null for a session without entries. */
  get leafId(): string | null {
    return this.#d.leaf < 0 ? null : this.#d.ids[this.#d.leaf]!;
  }

  /** Damage in the body, as `onIssue` is given it, in file order. */
  get issues(): readonly LoadIssue[] {
    return this.#d.issues;
  }

  /**
   * The index of an entry (the later one, for a duplicate id).
   *
   * @param id The entry's id.
   * @returns Its index, or -1.
   */
  indexOf(id: string): number {
    return this.#d.byId.get(id) ?? -1;
  }

  /**
   * One node, made on demand.
   *
   * @param index Its index, from 0 to `size - 1`.
   * @returns The node.
   * @throws {RangeError} For an index out of range.
   */
  node(index: number): TreeNode {
    const d = this.#check(index);
    return {
      index,
      id: d.ids[index]!,
      parentId: d.parentIds[index]!,
      type: d.types[index]!,
      role: d.roles[index] ?? null,
      preview: d.previews[index]!,
      label: d.labels.get(index) ?? null,
      onActivePath: d.onPath[index] === 1,
      children: d.childStart[index + 1]! - d.childStart[index]!,
      toolOnly: (d.flags[index]! & TOOL_ONLY) !== 0,
      missingParent: (d.flags[index]! & MISSING_PARENT) !== 0,
      offset: d.offsets[index]!,
    };
  }

  /**
   * Every node, in file order.
   *
   * @returns The nodes.
   */
  *nodes(): IterableIterator<TreeNode> {
    for (let i = 0; i < this.size; i++) yield this.node(i);
  }

  /**
   * The parent's index.
   *
   * @param index A node's index.
   * @returns Its parent's index, -1 for a root (or a missing parent).
   */
  parent(index: number): number {
    return this.#check(index).parents[index]!;
  }

  /**
   * The children's indexes, in file order.
   *
   * @param index A node's index.
   * @returns Its children.
   */
  children(index: number): number[] {
    const d = this.#check(index);
    return Array.from(
      d.childList.subarray(d.childStart[index]!, d.childStart[index + 1]!),
    );
  }

  /**
   * The roots (entries without a parent in the file), in file order.
   *
   * @returns Their indexes.
   */
  roots(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.size; i++) {
      if (this.#d.parents[i] === -1) out.push(i);
    }
    return out;
  }

  /**
   * Whether a node is on the active path (root to leaf).
   *
   * @param index A node's index.
   * @returns True when it is.
   */
  isOnActivePath(index: number): boolean {
    return this.#check(index).onPath[index] === 1;
  }

  /**
   * Whether a filter shows a node; the leaf is always shown.
   *
   * @param index A node's index.
   * @param filter The filter.
   * @returns True when shown.
   */
  shows(index: number, filter: TreeFilter): boolean {
    return this.#check(index).shows(index, filter);
  }

  #check(index: number): TreeTable {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) {
      throw new RangeError(
        `Cannot find node ${index} of the tree of "${this.path}": it holds ${this.size}`,
      );
    }
    return this.#d;
  }
}
