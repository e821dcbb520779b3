/**
 * The fields of an entry a call is read from, taken from a line's
 * skeleton without `JSON.parse`, where the WebAssembly pass over the line
 * (`_wasm_fields.ts`) gave up: the walk checks the whole text is JSON
 * (as the parse would) but builds only the few values
 * {@linkcode requestUsage} reads (`type`, `id`, `message`, `usage`, its
 * counts and cost, `model`, `stopReason`...), so an assistant turn's
 * content is passed over, not turned into objects for the collector.
 *
 * Where the walk is unsure it gives up, and the caller parses: a key or
 * a wanted string holding an escape (a long string's placeholder among
 * them), a wanted value that is an array, text that is not JSON, nesting
 * past {@linkcode _DEPTH}. The skeleton's strings are already checked
 * (`_wasm.ts`): a string here ends at the first quote not escaped.
 *
 * @module
 */

import {
  type Fields,
  fieldsObject,
  lastString,
  readNumber,
  startFields,
  UNSURE,
  WANTED_FIELDS,
} from "./_field_values.ts";

/** The wanted keys' bytes, by length, with their index in {@linkcode WANTED_FIELDS}. */
const _BY_LENGTH: { index: number; bytes: Uint8Array }[][] = [];
for (const [index, name] of WANTED_FIELDS.entries()) {
  (_BY_LENGTH[name.length] ??= []).push({
    index,
    bytes: new TextEncoder().encode(name),
  });
}

const _ERROR_MESSAGE = WANTED_FIELDS.indexOf("errorMessage");

/** Nesting the walk follows before it gives up (the parse has no such limit). */
const _DEPTH = 512;

const _QUOTE = 0x22, _BACKSLASH = 0x5c, _COMMA = 0x2c, _COLON = 0x3a;
const _OPEN_OBJECT = 0x7b, _CLOSE_OBJECT = 0x7d;
const _OPEN_ARRAY = 0x5b, _CLOSE_ARRAY = 0x5d;

/**
 * The wanted fields of the JSON object in `bytes[start, end)`, a line's
 * skeleton; undefined when the walk is unsure (parse the line instead).
 *
 * @param bytes The skeleton's buffer.
 * @param start Where it starts.
 * @param end Where it ends.
 * @returns An object holding the wanted keys the entry has, at every depth
 * they were built at; it and the objects in it are reused by the next
 * call, so read them first.
 */
export function entryFields(
  bytes: Uint8Array,
  start: number,
  end: number,
): object | undefined {
  const w = _walk;
  w.bytes = bytes;
  w.at = start;
  w.end = end;
  startFields();
  try {
    w.space();
    if (bytes[w.at] !== _OPEN_OBJECT) return undefined;
    const value = w.object(0);
    w.space();
    return w.at === end ? value : undefined;
  } catch (err) {
    if (err === UNSURE) return undefined;
    throw err;
  }
}

class _Walk {
  bytes: Uint8Array = new Uint8Array(0);
  at = 0;
  end = 0;

  /** Skip JSON whitespace. */
  space(): void {
    const b = this.bytes;
    let i = this.at;
    while (i < this.end) {
      const c = b[i]!;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
    this.at = i;
  }

  /** The object at `at` (its `{`), its wanted keys built. */
  object(depth: number): Fields {
    if (depth > _DEPTH) throw UNSURE;
    const b = this.bytes;
    const out = fieldsObject();
    this.at++;
    this.space();
    if (b[this.at] === _CLOSE_OBJECT) {
      this.at++;
      return out;
    }
    for (;;) {
      if (b[this.at] !== _QUOTE) throw UNSURE;
      const index = this.key();
      this.space();
      if (b[this.at] !== _COLON) throw UNSURE;
      this.at++;
      this.space();
      if (index === -1) this.skip(depth + 1);
      else out.set(index, this.wanted(index, depth + 1));
      this.space();
      const c = b[this.at];
      this.at++;
      if (c === _CLOSE_OBJECT) return out;
      if (c !== _COMMA) throw UNSURE;
      this.space();
    }
  }

  /** The index of the key at `at` when it is wanted, else -1; `at` past it. */
  key(): number {
    const b = this.bytes;
    const from = this.at + 1;
    let i = from;
    while (i < this.end && b[i] !== _QUOTE) {
      if (b[i] === _BACKSLASH) throw UNSURE; // an escaped key may be any key
      i++;
    }
    if (i >= this.end) throw UNSURE;
    this.at = i + 1;
    const candidates = _BY_LENGTH[i - from];
    if (candidates === undefined) return -1;
    // An indexed loop: `for...of` made an iterator and its results for
    // every key of every line.
    next: for (let j = 0; j < candidates.length; j++) {
      const c = candidates[j]!;
      for (let k = 0; k < c.bytes.length; k++) {
        if (b[from + k] !== c.bytes[k]) continue next;
      }
      return c.index;
    }
    return -1;
  }

  /** The value of a wanted key: built, or the walk gives up. */
  wanted(index: number, depth: number): unknown {
    const b = this.bytes;
    const c = b[this.at];
    if (c === _QUOTE) return this.string(index);
    if (c === _OPEN_OBJECT) return this.object(depth);
    if (c === _OPEN_ARRAY) throw UNSURE;
    return this.scalar();
  }

  /**
   * The string at `at`, the value of wanted key `index`. One with an
   * escape is given up on, unless only its truth counts (`errorMessage`):
   * a string with an escape is never empty. The string each key had last
   * is kept, and given again when the bytes are the same (a model, a
   * provider, a stop reason repeat from call to call).
   */
  string(index: number): string {
    const b = this.bytes;
    const from = this.at + 1;
    let i = from;
    for (; i < this.end; i++) {
      const c = b[i]!;
      if (c === _QUOTE) break;
      if (c === _BACKSLASH) {
        if (index !== _ERROR_MESSAGE) throw UNSURE;
        this.skipString();
        return "\\";
      }
    }
    if (i >= this.end) throw UNSURE;
    this.at = i + 1;
    return lastString(index, b, from, i);
  }

  /** Pass over the string at `at`. */
  skipString(): void {
    const b = this.bytes;
    let i = this.at + 1;
    while (i < this.end) {
      const c = b[i]!;
      if (c === _QUOTE) {
        this.at = i + 1;
        return;
      }
      i += c === _BACKSLASH ? 2 : 1;
    }
    throw UNSURE;
  }

  /** Pass over the value at `at`, checking it is JSON. */
  skip(depth: number): void {
    if (depth > _DEPTH) throw UNSURE;
    const b = this.bytes;
    const c = b[this.at];
    if (c === _QUOTE) return this.skipString();
    if (c !== _OPEN_OBJECT && c !== _OPEN_ARRAY) {
      this.scalar();
      return;
    }
    const close = c === _OPEN_OBJECT ? _CLOSE_OBJECT : _CLOSE_ARRAY;
    this.at++;
    this.space();
    if (b[this.at] === close) {
      this.at++;
      return;
    }
    for (;;) {
      if (close === _CLOSE_OBJECT) {
        if (b[this.at] !== _QUOTE) throw UNSURE;
        this.skipString();
        this.space();
        if (b[this.at] !== _COLON) throw UNSURE;
        this.at++;
        this.space();
      }
      this.skip(depth + 1);
      this.space();
      const next = b[this.at];
      this.at++;
      if (next === close) return;
      if (next !== _COMMA) throw UNSURE;
      this.space();
    }
  }

  /** The number, `true`, `false` or `null` at `at`. */
  scalar(): number | boolean | null {
    const b = this.bytes;
    const c = b[this.at];
    if (c === 0x74) return this.word(_TRUE, true);
    if (c === 0x66) return this.word(_FALSE, false);
    if (c === 0x6e) return this.word(_NULL, null);
    return this.number();
  }

  word<T>(bytes: Uint8Array, value: T): T {
    const b = this.bytes;
    if (this.at + bytes.length > this.end) throw UNSURE;
    for (let k = 0; k < bytes.length; k++) {
      if (b[this.at + k] !== bytes[k]) throw UNSURE;
    }
    this.at += bytes.length;
    return value;
  }

  /** The number at `at`. */
  number(): number {
    return readNumber(this);
  }
}

/** The walk, reused from line to line. */
const _walk = new _Walk();

const _TRUE = new TextEncoder().encode("true");
const _FALSE = new TextEncoder().encode("false");
const _NULL = new TextEncoder().encode("null");
