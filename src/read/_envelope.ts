/**
 * The envelope reader: an entry's `type`, `id` and `parentId` read from the
 * first bytes of a line written envelope first, without decoding or parsing
 * the line. This library writes every entry so, and omp every entry but
 * `custom` and `custom_message` (whose own fields come first): those lines
 * are parsed. (A bounded prefix of the rest of a line, for a preview, is
 * `_json_prefix.ts`'s.)
 *
 * @module
 */

import { KNOWN_ENTRY_TYPES } from "../format/entries.ts";
import { hexKey, hexKeyOfBytes } from "../format/_entry_id.ts";

/** The envelope fields a walk over the tree needs. */
export interface Envelope {
  /** The entry's type. */
  type: string;
  /** The entry's id. */
  id: string;
  /** The parent's id, or null for a root. */
  parentId: string | null;
}

const _NOTHING = new Uint8Array(0);

/**
 * Where the envelope's fields sit in a buffer: filled by
 * {@linkcode readEnvelope}, reused from line to line so a walk allocates
 * nothing for the lines it passes.
 */
export class EnvelopeAt {
  /** The buffer the offsets are in. */
  bytes: Uint8Array = _NOTHING;
  typeStart = 0;
  typeEnd = 0;
  idStart = 0;
  idEnd = 0;
  /** -1 for a null parent. */
  parentStart = -1;
  parentEnd = -1;

  /**
   * Let go of the buffer, once its fields are read: an instance kept from
   * line to line would otherwise hold the last read block (megabytes) for
   * as long as it lives.
   */
  release(): void {
    this.bytes = _NOTHING;
  }

  /** The type, as a shared string for the known types. */
  type(): string {
    return typeName(this.bytes, this.typeStart, this.typeEnd);
  }

  /** The id. */
  id(): string {
    return text(this.bytes, this.idStart, this.idEnd);
  }

  /** The parent's id, or null. */
  parentId(): string | null {
    return this.parentStart < 0
      ? null
      : text(this.bytes, this.parentStart, this.parentEnd);
  }

  /** Whether the type is `name` (ASCII). */
  typeIs(name: Uint8Array): boolean {
    return _equal(this.bytes, this.typeStart, this.typeEnd, name);
  }

  /** The three fields as strings. */
  envelope(): Envelope {
    return { type: this.type(), id: this.id(), parentId: this.parentId() };
  }
}

/**
 * The id the walk wants next (the parent of the last path entry), matched
 * against a line's envelope without decoding the line's id. An id of 8
 * lowercase hex digits (what omp and this library mint) is held as its
 * {@linkcode hexKey}, and its text made only when asked for: the walk over
 * a long path sets one from every line's parent bytes. Any other id is
 * held as text and matched by its UTF-8 bytes.
 */
export class WantedId {
  /** The id as a hex key, or -1 (none, or not 8 hex digits). */
  key = -1;
  /** The id's text; undefined until asked for when it is held as a key. */
  #id: string | null | undefined = null;
  /** Its UTF-8 bytes, when it is neither a hex key nor ASCII. */
  #bytes: Uint8Array | undefined;

  /** The id, or null when the path has reached its root. */
  get id(): string | null {
    return this.#id === undefined
      ? (this.#id = this.key.toString(16).padStart(8, "0"))
      : this.#id;
  }

  /** Want `id` (null: nothing). */
  set(id: string | null): void {
    this.#id = id;
    this.key = id === null ? -1 : hexKey(id);
    // deno-lint-ignore no-control-regex
    this.#bytes = this.key >= 0 || id === null || /^[\x00-\x7f]*$/.test(id)
      ? undefined
      : _encoder.encode(id);
  }

  /** Want the parent of the envelope at hand (none for a root). */
  setParent(at: EnvelopeAt): void {
    if (at.parentStart < 0) return this.set(null);
    const key = hexKeyOfBytes(at.bytes, at.parentStart, at.parentEnd);
    if (key < 0) return this.set(at.parentId());
    this.key = key;
    this.#id = undefined;
    this.#bytes = undefined;
  }

  /** Whether the envelope at hand carries the wanted id. */
  matches(at: EnvelopeAt): boolean {
    if (this.key >= 0) {
      return hexKeyOfBytes(at.bytes, at.idStart, at.idEnd) === this.key;
    }
    const id = this.#id;
    if (id === null || id === undefined) return false;
    const bytes = at.bytes;
    const start = at.idStart;
    const want = this.#bytes;
    const length = want === undefined ? id.length : want.length;
    if (at.idEnd - start !== length) return false;
    for (let i = 0; i < length; i++) {
      const c = want === undefined ? id.charCodeAt(i) : want[i];
      if (bytes[start + i] !== c) return false;
    }
    return true;
  }
}

/** Bytes enough to hold any envelope {@linkcode readEnvelope} accepts. */
export const ENVELOPE_BYTES = 9 + 64 + 8 + 128 + 14 + 130 + 1;

const _utf8 = new TextDecoder("utf-8");
const _encoder = new TextEncoder();
const _QUOTE = 0x22;
const _BACKSLASH = 0x5c;
const _OPEN = _encoder.encode('{"type":"');
const _ID = _encoder.encode('","id":"');
const _PARENT = _encoder.encode('","parentId":');
const _NULL = _encoder.encode("null");

/**
 * The text of a short field.
 *
 * @param bytes The buffer.
 * @param start The first byte.
 * @param end The end.
 * @returns The text.
 */
export function text(bytes: Uint8Array, start: number, end: number): string {
  return _utf8.decode(bytes.subarray(start, end));
}

/**
 * Read the envelope at the start of `bytes[start, end)`: `{"type":"T",
 * "id":"I","parentId":null|"P"` then `,` or `}`, with T of 1–64, I of 1–128
 * and P of 0–128 bytes, none holding `"` or `\`.
 *
 * @param bytes The buffer.
 * @param start The line's first byte.
 * @param end The end of the line's content (or of the bytes at hand).
 * @param out Filled with the fields' offsets.
 * @returns Whether the line starts with an envelope.
 */
export function readEnvelope(
  bytes: Uint8Array,
  start: number,
  end: number,
  out: EnvelopeAt,
): boolean {
  if (!_at(bytes, start, end, _OPEN)) return false;
  const typeStart = start + _OPEN.length;
  const typeEnd = _field(bytes, typeStart, end, 64);
  if (typeEnd <= typeStart || !_at(bytes, typeEnd, end, _ID)) return false;
  const idStart = typeEnd + _ID.length;
  const idEnd = _field(bytes, idStart, end, 128);
  if (idEnd <= idStart || !_at(bytes, idEnd, end, _PARENT)) return false;
  let at = idEnd + _PARENT.length;
  let parentStart = -1;
  let parentEnd = -1;
  if (_at(bytes, at, end, _NULL)) at += _NULL.length;
  else if (at < end && bytes[at] === _QUOTE) {
    parentStart = at + 1;
    parentEnd = _field(bytes, parentStart, end, 128);
    if (parentEnd < 0) return false;
    at = parentEnd + 1;
  } else return false;
  if (at >= end || (bytes[at] !== 0x2c && bytes[at] !== 0x7d)) return false;
  out.bytes = bytes;
  out.typeStart = typeStart;
  out.typeEnd = typeEnd;
  out.idStart = idStart;
  out.idEnd = idEnd;
  out.parentStart = parentStart;
  out.parentEnd = parentEnd;
  return true;
}

/**
 * The envelope of a line written envelope first, as strings, or undefined
 * when the line does not start with one.
 *
 * @param bytes The line's bytes.
 * @returns The envelope, or undefined.
 */
export function parseEnvelope(bytes: Uint8Array): Envelope | undefined {
  const at = new EnvelopeAt();
  return readEnvelope(bytes, 0, bytes.length, at) ? at.envelope() : undefined;
}

/** The end of a string field of at most `max` bytes (its closing quote), or -1. */
function _field(
  bytes: Uint8Array,
  start: number,
  end: number,
  max: number,
): number {
  const stop = Math.min(end, start + max + 1);
  for (let i = start; i < stop; i++) {
    const b = bytes[i];
    if (b === _QUOTE) return i;
    if (b === _BACKSLASH) return -1;
  }
  return -1;
}

function _at(
  bytes: Uint8Array,
  at: number,
  end: number,
  want: Uint8Array,
): boolean {
  if (at + want.length > end) return false;
  for (let i = 0; i < want.length; i++) {
    if (bytes[at + i] !== want[i]) return false;
  }
  return true;
}

function _equal(
  bytes: Uint8Array,
  start: number,
  end: number,
  want: Uint8Array,
): boolean {
  return end - start === want.length && _at(bytes, start, end, want);
}

/** The known types, encoded, so a line's type maps to one shared string. */
const _KNOWN: readonly [Uint8Array, string][] = KNOWN_ENTRY_TYPES.map((
  name,
) => [_encoder.encode(name), name]);
const _KNOWN_BY_LENGTH: [Uint8Array, string][][] = [];
for (const known of _KNOWN) {
  (_KNOWN_BY_LENGTH[known[0].length] ??= []).push(known);
}

/**
 * A type's name from its bytes: one shared string for each known type, a
 * new one for others.
 *
 * @param bytes The buffer.
 * @param start The name's first byte.
 * @param end Its end.
 * @returns The name.
 */
export function typeName(
  bytes: Uint8Array,
  start: number,
  end: number,
): string {
  const candidates = _KNOWN_BY_LENGTH[end - start];
  // An indexed loop: a `for...of` would make an iterator on every line.
  for (let i = 0; candidates !== undefined && i < candidates.length; i++) {
    const known = candidates[i]!;
    if (_at(bytes, start, end, known[0])) return known[1];
  }
  return _utf8.decode(bytes.subarray(start, end));
}
