/**
 * Building a session's tree from its lines' first bytes: a compact table of
 * nodes (ids, parents, types, roles, previews, flags) in file order, then
 * the children, the leaf, the active path and the labels over it.
 *
 * @module
 */

import type { LoadIssue, LoadIssueKind } from "../format/issues.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { EnvelopeAt, readEnvelope, text } from "../read/_envelope.ts";
import {
  branchTarget,
  describe,
  PREVIEW_CHARS,
  PREVIEW_KEYS,
} from "./_preview.ts";
import type { LineHead } from "./_heads.ts";
import { KeyTable, readJsonPrefix } from "./_json_prefix.ts";
import { NodeTable, type TreeData } from "./_table.ts";

/**
 * Lines without an envelope first (omp's `custom` and `custom_message`)
 * whose id lies past their first bytes are parsed whole up to this size;
 * longer ones are reported and left out.
 */
export const PARSE_MAX_BYTES = 1 << 20;

/** Bounds of the read of a line's first bytes. */
export const PREVIEW_LIMITS = {
  stringBytes: 3 * PREVIEW_CHARS,
  depth: 4,
  keys: new KeyTable(PREVIEW_KEYS),
};
const _utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** A line whose id lies past its first bytes: parsed whole after the scan. */
export interface Deferred {
  index: number;
  offset: number;
  size: number;
  line: number;
}

/** Takes lines one at a time, then settles the tree. */
export class TreeBuilder {
  readonly table = new NodeTable();
  readonly deferred: Deferred[] = [];
  readonly issues: LoadIssue[] = [];
  readonly #envelope = new EnvelopeAt();
  readonly #migrate: ReturnType<typeof recordMigrator>;
  #record = 1;
  #line: number;

  /** Whether messages' previews are left for later (their role is read now). */
  readonly #later: boolean;

  /**
   * @param version The header's version (older files are migrated).
   * @param firstLine The 1-based number of the first line to come.
   * @param later Whether to leave messages' previews for later.
   */
  constructor(version: number, firstLine: number, later: boolean) {
    this.#migrate = recordMigrator(version);
    this.#line = firstLine;
    this.#later = later;
  }

  /** Take one line. */
  take(line: LineHead): void {
    const at = this.#line++;
    const { bytes, start, end } = line;
    if (end === start) {
      if (line.terminated) this.#issue("blank-line", at, line, "is blank");
      return;
    }
    if (bytes[start] === 0) {
      this.#issue("nul-fill", at, line, "starts with NUL (a crash left it)");
      return;
    }
    const envelope = this.#envelope;
    if (
      this.#migrate === undefined && readEnvelope(bytes, start, end, envelope)
    ) {
      // A last line without its newline counts when it parses (the
      // loader keeps it too); otherwise it is an append cut short.
      if (!line.terminated && _parse(line) === undefined) {
        this.#issue("torn-line", at, line, "is torn (an append cut short)");
        return;
      }
      const type = envelope.type();
      const parentId = envelope.parentId();
      const role = this.#later && type === "message"
        ? roleOf(bytes, envelope.idEnd, end)
        : undefined;
      if (role !== undefined) {
        const index = this.table.add(line.offset);
        const d = { role, preview: "", toolOnly: false };
        this.table.fill(index, type, envelope.id(), parentId, d);
        this.table.later(index);
        return;
      }
      const value = readJsonPrefix(bytes, start, end, PREVIEW_LIMITS);
      const fields = _isObject(value) ? value : {};
      this.#add(type, envelope.id(), parentId, line.offset, fields);
      return;
    }
    // No envelope first: omp's custom lines, older versions, or damage.
    if (!line.whole && !line.terminated) {
      this.#issue("torn-line", at, line, "is torn (an append cut short)");
      return;
    }
    let value = line.whole ? _parse(line) : undefined;
    if (line.whole && !_isObject(value)) {
      const torn = !line.terminated;
      this.#issue(
        torn ? "torn-line" : "not-json",
        at,
        line,
        torn ? "is torn (an append cut short)" : "is not a JSON object",
      );
      return;
    }
    if (!line.whole && this.#migrate === undefined) {
      if (line.size > PARSE_MAX_BYTES) {
        this.#issue(
          "oversized-line",
          at,
          line,
          "has no envelope first and is too long to parse",
        );
        return;
      }
      const index = this.#add("", "", null, line.offset, {});
      this.deferred.push({
        index,
        offset: line.offset,
        size: line.size,
        line: at,
      });
      return;
    }
    // An older version's long line: what its first bytes hold is enough
    // to migrate it (it gets its id and parent in file order).
    value ??= readJsonPrefix(bytes, start, end, PREVIEW_LIMITS);
    if (!_isObject(value)) {
      this.#issue("not-json", at, line, "is not a JSON object");
      return;
    }
    this.#migrate?.({ index: this.#record++, value });
    this.takeValue(value, line.offset, at);
  }

  /**
   * Take a line's whole parsed value (or, for older versions, its migrated
   * first bytes): a node when it holds a type and an id.
   *
   * @param value The fields.
   * @param offset The line's offset.
   * @param at Its line number.
   * @param index The node reserved for it, when deferred.
   */
  takeValue(
    value: Record<string, unknown>,
    offset: number,
    at: number,
    index?: number,
  ): void {
    const { type, id, parentId } = value;
    if (typeof type !== "string" || typeof id !== "string" || id === "") {
      this.#issue("not-an-entry", at, { offset }, "has no type or id");
      // A reserved node stays empty: it is left out at the end.
      return;
    }
    const parent = typeof parentId === "string" ? parentId : null;
    if (index === undefined) this.#add(type, id, parent, offset, value);
    else this.#fill(index, type, id, parent, value);
  }

  /** Decode and parse a deferred line's bytes. */
  takeDeferred(d: Deferred, bytes: Uint8Array): void {
    let value: unknown;
    try {
      value = JSON.parse(_utf8.decode(bytes));
    } catch {
      value = undefined;
    }
    if (!_isObject(value)) {
      this.#issue("not-json", d.line, d, "is not JSON");
      return;
    }
    this.takeValue(value, d.offset, d.line, d.index);
  }

  #add(
    type: string,
    id: string,
    parentId: string | null,
    offset: number,
    fields: Record<string, unknown>,
  ): number {
    const index = this.table.add(offset);
    if (type !== "") this.#fill(index, type, id, parentId, fields);
    return index;
  }

  #fill(
    index: number,
    type: string,
    id: string,
    parentId: string | null,
    fields: Record<string, unknown>,
  ): void {
    this.table.fill(index, type, id, parentId, describe(type, fields));
    if (type === "custom") {
      const to = branchTarget(fields);
      if (to !== undefined) this.table.branchTo(index, to);
    } else if (type === "label" && typeof fields.targetId === "string") {
      const label = typeof fields.label === "string" && fields.label !== ""
        ? fields.label
        : undefined;
      this.table.label(index, fields.targetId, label);
    }
  }

  #issue(
    kind: LoadIssueKind,
    at: number,
    line: { offset: number },
    state: string,
  ): void {
    this.issues.push({
      kind,
      line: at,
      offset: line.offset,
      message: `line ${at} ${state} and was left out of the tree`,
    });
  }

  /** Settle the tree. */
  finish(): TreeData {
    return this.table.settle(this.issues);
  }
}

function _isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A message's preview from the first bytes of its line, when they still
 * hold entry `id`.
 *
 * @param head The line's first bytes (possibly with more lines after).
 * @param id The entry's id.
 * @returns Its role, preview and tool-only flag, or undefined.
 */
export function previewOfHead(
  head: Uint8Array,
  id: string,
): ReturnType<typeof describe> | undefined {
  const nl = head.indexOf(0x0a);
  const end = nl < 0 ? head.length : nl;
  const at = new EnvelopeAt();
  if (!readEnvelope(head, 0, end, at) || at.id() !== id) return undefined;
  const value = readJsonPrefix(head, 0, end, PREVIEW_LIMITS);
  return describe(at.type(), _isObject(value) ? value : {});
}

/** The common roles, so 100,000 nodes share a few strings. */
const _ROLES = new Map(
  ["user", "assistant", "toolResult", "developer", "custom", "bashExecution"]
    .map((r) => [r, r]),
);
/** `"role":"` as bytes. */
const _ROLE = new TextEncoder().encode('"role":"');
/** Bytes after the id searched for a message's role: past the parent and the timestamp. */
const _ROLE_WITHIN = 240;

/**
 * A message line's role from its bytes, without parsing it: the first
 * `"role":"…"` after the envelope (`"timestamp":…,"message":{"role":…`,
 * as omp and this library write it), or undefined when it is not there.
 *
 * @param bytes The buffer.
 * @param from Where to search from (the end of the id).
 * @param end The end of the bytes at hand.
 * @returns The role.
 */
export function roleOf(
  bytes: Uint8Array,
  from: number,
  end: number,
): string | undefined {
  const stop = Math.min(end, from + _ROLE_WITHIN);
  for (let i = bytes.indexOf(0x22, from); i >= 0 && i < stop;) {
    let k = 0;
    while (k < _ROLE.length && bytes[i + k] === _ROLE[k]) k++;
    if (k === _ROLE.length) {
      const s = i + k;
      const close = bytes.indexOf(0x22, s);
      if (close < 0 || close >= end || close - s > 64) return undefined;
      for (let j = s; j < close; j++) if (bytes[j] === 0x5c) return undefined;
      const role = text(bytes, s, close);
      return _ROLES.get(role) ?? role;
    }
    i = bytes.indexOf(0x22, i + 1);
  }
  return undefined;
}

/** A whole line parsed, or undefined when it is not JSON. */
function _parse(line: LineHead): unknown {
  try {
    return JSON.parse(_utf8.decode(line.bytes.subarray(line.start, line.end)));
  } catch {
    return undefined;
  }
}
