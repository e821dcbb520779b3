/**
 * Building a session's tree from its lines: each line's envelope and a
 * preview read from its first bytes, or, where the first bytes cannot be
 * trusted, the line decoded as the loader decodes it.
 *
 * @module
 */

import { branchMarkerTarget, type SessionEntry } from "../format/entries.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { decodeEntry, type IssueLog } from "../read/decode.ts";
import { EnvelopeAt, readEnvelope } from "../read/envelope.ts";
import { KeyTable, readJsonPrefix } from "../read/json_prefix.ts";
import type { Line } from "../read/lines.ts";
import {
  describe,
  type Described,
  PREVIEW_CHARS,
  PREVIEW_KEYS,
} from "./_preview.ts";
import { NodeTable, type TreeData } from "./_table.ts";

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

type _Object = Record<string, unknown>;

/**
 * Takes lines one at a time, then settles the tree. A line written envelope
 * first, complete (ending in "\n") and ending in `}` is what the loader
 * keeps whatever follows the envelope (parsed, the first of two glued
 * values, or a damaged entry's envelope): it is taken from its first bytes.
 * Every other line is decoded whole with `decodeEntry`, as the loader does,
 * and so is every line of a version 1 or 2 file (migrated in file order).
 */
export class TreeBuilder {
  readonly #table = new NodeTable();
  readonly #log: IssueLog;
  readonly #at = new EnvelopeAt();
  readonly #migrate: ((record: _Object) => void) | undefined;
  /** Whether messages' previews are left for later (their role is read now). */
  readonly #later: boolean;

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

  /**
   * Take one line of the body.
   *
   * @param line The line (its views are used during the call only).
   */
  take(line: Line): void {
    const at = this.#at;
    const head = line.head;
    if (this.#migrate === undefined) {
      if (readEnvelope(head, 0, head.length, at)) {
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
    const fields = entry as unknown as _Object;
    const { type, id } = entry;
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
      const role = _object(_object(value).message).role;
      if (typeof role === "string") {
        const d = { role, preview: "", toolOnly: false };
        this.#table.later(this.#table.add(offset, type, id, parentId, d));
        return;
      }
    }
    const fields = _object(readJsonPrefix(head, 0, head.length, _PREVIEW));
    this.#add(offset, type, id, parentId, fields);
  }

  /** A node, with what a branch marker or a label entry says. */
  #add(
    offset: number,
    type: string,
    id: string,
    parentId: string | null,
    fields: _Object,
  ): void {
    this.#table.add(offset, type, id, parentId, describe(type, fields));
    if (type === "custom") {
      const to = branchMarkerTarget({ ...fields, type } as SessionEntry);
      if (to !== undefined) this.#table.branchTo(to);
    } else if (type === "label" && typeof fields.targetId === "string") {
      const label = typeof fields.label === "string" && fields.label !== ""
        ? fields.label
        : undefined;
      this.#table.label(fields.targetId, label);
    }
  }

  /**
   * Settle the tree.
   *
   * @returns The table.
   */
  finish(): TreeData {
    return this.#table.settle(this.#log.issues);
  }
}

/**
 * A message's preview from the first bytes of its line, when they still
 * hold entry `id`.
 *
 * @param head The line's first bytes.
 * @param id The entry's id.
 * @returns Its role, preview and tool-only flag, or undefined.
 */
export function previewOfHead(
  head: Uint8Array,
  id: string,
): Described | undefined {
  const at = new EnvelopeAt();
  if (!readEnvelope(head, 0, head.length, at) || at.id() !== id) {
    return undefined;
  }
  const value = readJsonPrefix(head, 0, head.length, _PREVIEW);
  return describe(at.type(), _object(value));
}

function _object(value: unknown): _Object {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as _Object
    : {};
}
