/**
 * The compact table of a tree's nodes, in file order: a few strings and
 * numbers an entry, never the entries. Filled a line at a time (each line's
 * envelope and preview from its first bytes, or, where those cannot be
 * trusted, from the line decoded as the loader decodes it), then settled
 * into parents, children, the leaf, the active path and the labels; and
 * which rows each filter shows.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { branchMarkerTarget } from "../format/_branch_marker.ts";
import type { LoadIssue } from "../format/issues.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { linkTree } from "../context/tree.ts";
import { decodeEntry, type IssueLog } from "../read/_decode.ts";
import { EnvelopeAt, readEnvelope } from "../read/_envelope.ts";
import { KeyTable, readJsonPrefix } from "../read/_json_prefix.ts";
import type { Line } from "../read/lines.ts";
import {
  asObject,
  describe,
  type Described,
  PREVIEW_CHARS,
  PREVIEW_KEYS,
} from "./_preview.ts";

/** A flag of a node: an assistant turn with tool calls and no text. */
export const TOOL_ONLY = 1;
/** A flag of a node: its parent is not in the file. */
export const MISSING_PARENT = 4;
/** A flag of a node: a message whose preview is still to be read. */
export const PREVIEW_LATER = 8;

/**
 * Lines without an envelope first (omp's `custom` and `custom_message`,
 * whose own fields come first) are parsed whole up to this size; longer
 * ones are reported and left out, so a tree never parses a huge payload.
 */
const _PARSE_MAX_BYTES = 1 << 20;

/** Bounds of the read of a line's first bytes for its preview. */
const _PREVIEW = {
  stringBytes: 3 * PREVIEW_CHARS,
  depth: 4,
  keys: new KeyTable(PREVIEW_KEYS),
};
/** Bounds of the read of a message's role alone (its content passed over). */
const _ROLE = {
  ..._PREVIEW,
  depth: 2,
  keys: new KeyTable(["message", "role"]),
};
const _CLOSE_BRACE = 0x7d;

/** The common roles, so 100,000 nodes share a few strings. */
const _ROLES = new Map(
  ["user", "assistant", "toolResult", "developer", "custom", "bashExecution"]
    .map((r) => [r, r]),
);

type _Object = Record<string, unknown>;

/**
 * Which entries a tree shows, as pi's and omp's `/tree` name its filters:
 * `default` hides settings and metadata
 * entries, `no-tools` hides tool results and tool-only assistant turns
 * too, `user` shows user messages only, `labeled` labelled entries only,
 * `all` everything. The leaf is always shown.
 */
export type TreeFilter = "default" | "no-tools" | "user" | "labeled" | "all";

/**
 * Entries `default` hides: the settings and metadata omp's tree hides, and
 * the others of the kind (`service_tier_change`, `model_usage`,
 * `title_change`).
 */
const _SETTINGS = new Set([
  "label",
  "custom",
  "model_change",
  "thinking_level_change",
  "service_tier_change",
  "mode_change",
  "ttsr_injection",
  "session_init",
  "credential_pin",
  "model_usage",
  "title_change",
]);

/**
 * A tree's table: {@linkcode TreeTable.take} each line of the body, then
 * {@linkcode TreeTable.settle}. A line written envelope first, complete
 * (ending in "\n") and ending in `}` is what the loader keeps whatever
 * follows the envelope (parsed, the first of two glued values, or a damaged
 * entry's envelope): it is taken from its first bytes. Every other line is
 * decoded whole with `decodeEntry`, as the loader does, and so is every
 * line of a version 1 or 2 file (migrated in file order).
 */
export class TreeTable {
  readonly ids: string[] = [];
  readonly parentIds: (string | null)[] = [];
  readonly types: string[] = [];
  readonly roles: (string | undefined)[] = [];
  readonly previews: string[] = [];
  readonly offsets: number[] = [];
  /** {@linkcode TOOL_ONLY} and the other flags, a byte a node. */
  flags = new Uint8Array(1024);
  /** Index of each node's parent, -1 for a root. */
  parents = new Int32Array(0);
  /** Children of node i: `childList[childStart[i], childStart[i + 1])`, in file order. */
  childStart = new Int32Array(1);
  childList = new Int32Array(0);
  /** Node index → label, the latest `label` entry per target winning. */
  readonly labels = new Map<number, string>();
  /** The leaf's index, -1 without entries. */
  leaf = -1;
  /** 1 for the nodes on the path from the root to the leaf. */
  onPath = new Uint8Array(0);
  /** Id → index (the later one, for a duplicate id). */
  readonly byId = new Map<string, number>();
  readonly #log: IssueLog;
  readonly #at = new EnvelopeAt();
  readonly #migrate: ((record: _Object) => void) | undefined;
  /** Whether messages' previews are left for later (their role is read now). */
  readonly #later: boolean;
  /** `label` entries in file order: target id, label (undefined clears it). */
  readonly #labelOps: [string, string | undefined][] = [];
  /** The last node's branch marker target, if it is a marker. */
  #lastBranchTo: string | undefined;

  /**
   * @param version The header's version (older files are migrated).
   * @param log Where damage goes.
   * @param later Whether to leave messages' previews for later.
   */
  constructor(version: number, log: IssueLog, later: boolean) {
    const migrate = recordMigrator(version);
    let record = 1;
    this.#migrate = migrate && ((value) => migrate({ index: record++, value }));
    this.#log = log;
    this.#later = later;
  }

  /** Damage in the body, in file order. */
  get issues(): LoadIssue[] {
    return this.#log.issues;
  }

  /** Take one line of the body (its views are used during the call only). */
  take(line: Line): void {
    const head = line.head;
    if (this.#migrate === undefined) {
      if (readEnvelope(head, 0, head.length, this.#at)) {
        if (
          line.terminated && line.bytes !== undefined &&
          line.bytes[line.length - 1] === _CLOSE_BRACE
        ) return this.#fromHead(line.offset, head);
      } else if (!line.nul && line.length > _PARSE_MAX_BYTES) {
        const n = line.index + 1;
        this.#log.add(
          "oversized-line",
          n,
          line.offset,
          `line ${n} has no envelope first and is longer than a tree parses (${_PARSE_MAX_BYTES} bytes); it was left out`,
        );
        return;
      }
    }
    const entry = decodeEntry(line, this.#log, this.#migrate);
    if (entry === undefined) return;
    const { type, id } = entry;
    const fields = entry as unknown as _Object;
    this.#add(line.offset, type, id, entry.parentId ?? null, fields);
  }

  /** A trusted line, from its first bytes and the envelope just read. */
  #fromHead(offset: number, head: Uint8Array): void {
    const at = this.#at;
    const type = at.type();
    const id = at.id();
    const parentId = at.parentId();
    if (this.#later && type === "message") {
      const value = readJsonPrefix(head, 0, head.length, _ROLE);
      const role = asObject(asObject(value).message).role;
      if (typeof role === "string") {
        const d = { role, preview: "", toolOnly: false };
        const i = this.#add(offset, type, id, parentId, {}, d);
        this.flags[i]! |= PREVIEW_LATER;
        return;
      }
    }
    const fields = asObject(readJsonPrefix(head, 0, head.length, _PREVIEW));
    this.#add(offset, type, id, parentId, fields);
  }

  /** A row, with what a branch marker or a label entry says; its index. */
  #add(
    offset: number,
    type: string,
    id: string,
    parentId: string | null,
    fields: _Object,
    d: Described = describe(type, fields),
  ): number {
    const index = this.ids.length;
    if (index >= this.flags.length) {
      const grown = new Uint8Array(this.flags.length * 2);
      grown.set(this.flags);
      this.flags = grown;
    }
    this.ids.push(id);
    this.parentIds.push(parentId);
    this.types.push(type);
    this.roles.push(
      d.role === undefined ? undefined : _ROLES.get(d.role) ?? d.role,
    );
    this.previews.push(_ownText(d.preview));
    this.offsets.push(offset);
    this.byId.set(id, index);
    if (d.toolOnly) this.flags[index]! |= TOOL_ONLY;
    this.#lastBranchTo = type === "custom"
      ? branchMarkerTarget({ ...fields, type } as SessionEntry)
      : undefined;
    if (type === "label" && typeof fields.targetId === "string") {
      const label = typeof fields.label === "string" && fields.label !== ""
        ? fields.label
        : undefined;
      this.#labelOps.push([fields.targetId, label]);
    }
    return index;
  }

  /** Whether a filter shows node `i`; the leaf is always shown. */
  shows(i: number, filter: TreeFilter): boolean {
    const type = this.types[i]!;
    if (i === this.leaf || filter === "all") return true;
    if (filter === "user") {
      return type === "message" && this.roles[i] === "user";
    }
    if (filter === "labeled") return this.labels.has(i);
    if (_SETTINGS.has(type)) return false;
    if (filter !== "no-tools" || type !== "message") return true;
    return this.roles[i] !== "toolResult" && (this.flags[i]! & TOOL_ONLY) === 0;
  }

  /**
   * A preview left for later, from the first bytes of its line, when they
   * still hold entry `i` (else it stays empty).
   */
  takePreview(i: number, head: Uint8Array): void {
    const at = this.#at;
    if (!readEnvelope(head, 0, head.length, at) || at.id() !== this.ids[i]) {
      return;
    }
    const fields = asObject(readJsonPrefix(head, 0, head.length, _PREVIEW));
    const d = describe(at.type(), fields);
    this.previews[i] = _ownText(d.preview);
    if (d.toolOnly) this.flags[i]! |= TOOL_ONLY;
  }

  /**
   * Settle parents, children, the leaf, the active path and the labels.
   *
   * @param leafId Another leaf than the file's (its index, when it holds
   * it): the path drawn active is then the root to it.
   */
  settle(leafId?: string): void {
    const n = this.ids.length;
    const byId = this.byId;
    const flags = this.flags = this.flags.slice(0, n);
    const links = linkTree(n, (i) => {
      const p = this.parentIds[i];
      if (p === null || p === undefined) return -1;
      const at = byId.get(p);
      if (at === undefined) flags[i]! |= MISSING_PARENT;
      return at ?? -1;
    });
    const parents = this.parents = links.parents;
    this.childStart = links.childStart;
    this.childList = links.childList;
    // The last entry, or a last branch marker's target (`resolveLeaf`'s rule).
    const to = this.#lastBranchTo;
    const own = to === undefined ? n - 1 : byId.get(to) ?? n - 1;
    const leaf = this.leaf = leafId === undefined
      ? own
      : byId.get(leafId) ?? own;
    const onPath = this.onPath = new Uint8Array(n);
    for (let i = leaf; i >= 0 && onPath[i] === 0; i = parents[i]!) {
      onPath[i] = 1;
    }
    for (const [target, label] of this.#labelOps) {
      const i = byId.get(target);
      if (i === undefined) continue;
      if (label === undefined) this.labels.delete(i);
      else this.labels.set(i, label);
    }
  }
}

/**
 * A string of its own: a preview cut from a longer decoded text would
 * otherwise keep that text alive (a slice points into its source).
 */
function _ownText(text: string): string {
  return text.length < 13 ? text : (text + " ").slice(0, -1);
}
