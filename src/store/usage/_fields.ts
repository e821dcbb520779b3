/**
 * The fields of an entry a call is read from, taken from a line's
 * skeleton without `JSON.parse`: the walk checks the whole text is JSON
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

import { asciiText } from "../../read/_ascii.ts";

/** The keys whose values are built: every key `requestUsage` reads, at any depth. */
const _WANTED = [
  "type",
  "id",
  "timestamp",
  "message",
  "role",
  "model",
  "provider",
  "api",
  "usage",
  "stopReason",
  "errorMessage",
  "input",
  "output",
  "cacheRead",
  "cacheWrite",
  "totalTokens",
  "cost",
  "total",
  "orchestration",
] as const;

// The fields an object set are one 32-bit mask (`_Fields.clear`).
if (_WANTED.length > 31) throw new Error("too many wanted keys for a mask");

/** The wanted keys' bytes, by length, with their index in {@linkcode _WANTED}. */
const _BY_LENGTH: { index: number; bytes: Uint8Array }[][] = [];
for (const [index, name] of _WANTED.entries()) {
  (_BY_LENGTH[name.length] ??= []).push({
    index,
    bytes: new TextEncoder().encode(name),
  });
}

/**
 * An object of the walk: every wanted key a field, undefined where the
 * text has none (as reading a missing key gives). One shape for all, so
 * storing a field costs what a plain field store costs, not a keyed store
 * growing a new object's shape.
 */
class _Fields {
  type: unknown = undefined;
  id: unknown = undefined;
  timestamp: unknown = undefined;
  message: unknown = undefined;
  role: unknown = undefined;
  model: unknown = undefined;
  provider: unknown = undefined;
  api: unknown = undefined;
  usage: unknown = undefined;
  stopReason: unknown = undefined;
  errorMessage: unknown = undefined;
  input: unknown = undefined;
  output: unknown = undefined;
  cacheRead: unknown = undefined;
  cacheWrite: unknown = undefined;
  totalTokens: unknown = undefined;
  cost: unknown = undefined;
  total: unknown = undefined;
  orchestration: unknown = undefined;

  /** Bit `i`: field `i` set since the last clear (only those are cleared: all 19 were ~5 % of a pass). */
  #set = 0;

  /** Every field set undefined again, for the next line. */
  clear(): void {
    for (let m = this.#set; m !== 0; m &= m - 1) {
      this.set(31 - Math.clz32(m & -m), undefined);
    }
    this.#set = 0;
  }

  set(index: number, value: unknown): void {
    this.#set |= 1 << index;
    // deno-fmt-ignore
    switch (index) {
      case 0: this.type = value; break;
      case 1: this.id = value; break;
      case 2: this.timestamp = value; break;
      case 3: this.message = value; break;
      case 4: this.role = value; break;
      case 5: this.model = value; break;
      case 6: this.provider = value; break;
      case 7: this.api = value; break;
      case 8: this.usage = value; break;
      case 9: this.stopReason = value; break;
      case 10: this.errorMessage = value; break;
      case 11: this.input = value; break;
      case 12: this.output = value; break;
      case 13: this.cacheRead = value; break;
      case 14: this.cacheWrite = value; break;
      case 15: this.totalTokens = value; break;
      case 16: this.cost = value; break;
      case 17: this.total = value; break;
      case 18: this.orchestration = value; break;
    }
  }
}

/**
 * The objects of the walks, reused from line to line: a pass reads a
 * line's call from them before it walks the next line, and a fresh set
 * per line (~700 bytes) was a third of a pass's garbage.
 */
const _pool: _Fields[] = [];
let _used = 0;

function _fieldsObject(): _Fields {
  let f = _pool[_used];
  if (f === undefined) _pool.push(f = new _Fields());
  else f.clear();
  _used++;
  return f;
}

const _ERROR_MESSAGE = _WANTED.indexOf("errorMessage");

/** Nesting the walk follows before it gives up (the parse has no such limit). */
const _DEPTH = 512;

const _QUOTE = 0x22, _BACKSLASH = 0x5c, _COMMA = 0x2c, _COLON = 0x3a;
const _OPEN_OBJECT = 0x7b, _CLOSE_OBJECT = 0x7d;
const _OPEN_ARRAY = 0x5b, _CLOSE_ARRAY = 0x5d;

/** Thrown (and caught in {@linkcode entryFields}) where the walk gives up. */
const _UNSURE = Symbol("unsure");

const _decoder = new TextDecoder();

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
  _used = 0;
  try {
    w.space();
    if (bytes[w.at] !== _OPEN_OBJECT) return undefined;
    const value = w.object(0);
    w.space();
    return w.at === end ? value : undefined;
  } catch (err) {
    if (err === _UNSURE) return undefined;
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
  object(depth: number): _Fields {
    if (depth > _DEPTH) throw _UNSURE;
    const b = this.bytes;
    const out = _fieldsObject();
    this.at++;
    this.space();
    if (b[this.at] === _CLOSE_OBJECT) {
      this.at++;
      return out;
    }
    for (;;) {
      if (b[this.at] !== _QUOTE) throw _UNSURE;
      const index = this.key();
      this.space();
      if (b[this.at] !== _COLON) throw _UNSURE;
      this.at++;
      this.space();
      if (index === -1) this.skip(depth + 1);
      else out.set(index, this.wanted(index, depth + 1));
      this.space();
      const c = b[this.at];
      this.at++;
      if (c === _CLOSE_OBJECT) return out;
      if (c !== _COMMA) throw _UNSURE;
      this.space();
    }
  }

  /** The index of the key at `at` when it is wanted, else -1; `at` past it. */
  key(): number {
    const b = this.bytes;
    const from = this.at + 1;
    let i = from;
    while (i < this.end && b[i] !== _QUOTE) {
      if (b[i] === _BACKSLASH) throw _UNSURE; // an escaped key may be any key
      i++;
    }
    if (i >= this.end) throw _UNSURE;
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
    if (c === _OPEN_ARRAY) throw _UNSURE;
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
        if (index !== _ERROR_MESSAGE) throw _UNSURE;
        this.skipString();
        return "\\";
      }
    }
    if (i >= this.end) throw _UNSURE;
    this.at = i + 1;
    return _lastString(index, b, from, i);
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
    throw _UNSURE;
  }

  /** Pass over the value at `at`, checking it is JSON. */
  skip(depth: number): void {
    if (depth > _DEPTH) throw _UNSURE;
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
        if (b[this.at] !== _QUOTE) throw _UNSURE;
        this.skipString();
        this.space();
        if (b[this.at] !== _COLON) throw _UNSURE;
        this.at++;
        this.space();
      }
      this.skip(depth + 1);
      this.space();
      const next = b[this.at];
      this.at++;
      if (next === close) return;
      if (next !== _COMMA) throw _UNSURE;
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
    if (this.at + bytes.length > this.end) throw _UNSURE;
    for (let k = 0; k < bytes.length; k++) {
      if (b[this.at + k] !== bytes[k]) throw _UNSURE;
    }
    this.at += bytes.length;
    return value;
  }

  /** A JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
  number(): number {
    const b = this.bytes;
    const from = this.at;
    let i = from;
    const negative = b[i] === 0x2d;
    if (negative) i++;
    let whole = 0;
    if (b[i] === 0x30) i++;
    else if (_digit(b[i])) {
      while (_digit(b[i])) whole = whole * 10 + (b[i++]! - 0x30);
    } else throw _UNSURE;
    const digits = i - from - (negative ? 1 : 0);
    let plain = true;
    let fraction = 0, part = 0, exponent = 0;
    if (b[i] === 0x2e) {
      plain = false;
      i++;
      if (!_digit(b[i])) throw _UNSURE;
      while (_digit(b[i])) {
        part = part * 10 + (b[i++]! - 0x30);
        fraction++;
      }
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      plain = false;
      exponent = 1;
      i++;
      if (b[i] === 0x2b || b[i] === 0x2d) i++;
      if (!_digit(b[i])) throw _UNSURE;
      while (_digit(b[i])) i++;
    }
    if (i > this.end) throw _UNSURE;
    this.at = i;
    // Up to 15 digits an integer is exact; so is a fraction of up to 15
    // digits in all, its digits over a power of ten (both exact doubles:
    // one division rounds correctly, as the parse does). Else the text is
    // read as the parse reads it.
    if (plain && digits <= 15) return negative ? -whole : whole;
    if (fraction > 0 && exponent === 0 && digits + fraction <= 15) {
      const v = (whole * _POW10[fraction]! + part) / _POW10[fraction]!;
      return negative ? -v : v;
    }
    return Number(asciiText(b, from, i));
  }
}

/** The walk, reused from line to line. */
const _walk = new _Walk();

/** Powers of ten exact as doubles. */
const _POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

/** Per wanted key: the bytes and string of its last string value. */
const _last: { bytes: Uint8Array; length: number; text: string }[] = _WANTED
  .map(() => ({ bytes: new Uint8Array(128), length: -1, text: "" }));

/** The string of `b[from, to)`, the last one `index` had when the bytes match. */
function _lastString(
  index: number,
  b: Uint8Array,
  from: number,
  to: number,
): string {
  const last = _last[index]!;
  const n = to - from;
  if (n === last.length) {
    let k = 0;
    while (k < n && b[from + k] === last.bytes[k]) k++;
    if (k === n) return last.text;
  }
  let ascii = true;
  for (let k = from; k < to; k++) if (b[k]! >= 0x80) ascii = false;
  const text = ascii
    ? asciiText(b, from, to)
    : _decoder.decode(b.subarray(from, to));
  if (n <= last.bytes.length) {
    const kept = last.bytes;
    for (let k = 0; k < n; k++) kept[k] = b[from + k]!;
    last.length = n;
    last.text = text;
  }
  return text;
}

const _TRUE = new TextEncoder().encode("true");
const _FALSE = new TextEncoder().encode("false");
const _NULL = new TextEncoder().encode("null");

function _digit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}
