/**
 * The values a call is read from, as the walk of a line's skeleton
 * (`_fields.ts`) builds them, or as they are built from the records of the
 * WebAssembly pass that found them (`_wasm_fields.ts`): the objects (one
 * shape, from a pool), the strings (kept per key: they repeat from call to
 * call) and the numbers (read as `JSON.parse` reads them).
 *
 * @module
 */

import { asciiText } from "../../read/_ascii.ts";
import { RECORD } from "./_wasm_fields.ts";

/** The keys whose values are built: every key `requestUsage` reads, at any depth. */
export const WANTED_FIELDS: readonly string[] = [
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
];
// The fields an object set are one 32-bit mask (`Fields.clear`).
if (WANTED_FIELDS.length > 31) {
  throw new Error("too many wanted keys for a mask");
}

/**
 * An object of the walk: every wanted key a field, undefined where the
 * text has none (as reading a missing key gives). One shape for all, so
 * storing a field costs what a plain field store costs, not a keyed store
 * growing a new object's shape.
 */
export class Fields {
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
const _pool: Fields[] = [];
let _used = 0;

export function fieldsObject(): Fields {
  let f = _pool[_used];
  if (f === undefined) _pool.push(f = new Fields());
  else f.clear();
  _used++;
  return f;
}

/** A new set of objects from the pool: those of the walk before are reused. */
export function startFields(): void {
  _used = 0;
}

/** Thrown where the walk gives up (and caught where it starts). */
export const UNSURE: unique symbol = Symbol("unsure");

const _decoder = new TextDecoder();

/** Per wanted key: the bytes and string of its last string value. */
const _last: { bytes: Uint8Array; length: number; text: string }[] =
  WANTED_FIELDS
    .map(() => ({ bytes: new Uint8Array(128), length: -1, text: "" }));

/**
 * The string of `b[from, to)`, the value of wanted key `index`: the last
 * one it had when the bytes match (a model, a provider, a stop reason
 * repeat from call to call).
 *
 * @param index The key's number.
 * @param b The bytes.
 * @param from Where the string starts (past its quote).
 * @param to Where it ends.
 * @returns The string.
 */
export function lastString(
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

/** Where a number is read: the bytes, the place (moved past it), the end. */
export interface Cursor {
  bytes: Uint8Array;
  at: number;
  end: number;
}

/**
 * The JSON number at `c.at`, `c.at` moved past it:
 * `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
 *
 * @param c Where it is.
 * @returns Its value, as `JSON.parse` reads it.
 */
export function readNumber(c: Cursor): number {
  const b = c.bytes;
  const from = c.at;
  let i = from;
  const negative = b[i] === 0x2d;
  if (negative) i++;
  let whole = 0;
  if (b[i] === 0x30) i++;
  else if (_digit(b[i])) {
    while (_digit(b[i])) whole = whole * 10 + (b[i++]! - 0x30);
  } else throw UNSURE;
  const digits = i - from - (negative ? 1 : 0);
  let plain = true;
  let fraction = 0, part = 0, exponent = 0;
  if (b[i] === 0x2e) {
    plain = false;
    i++;
    if (!_digit(b[i])) throw UNSURE;
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
    if (!_digit(b[i])) throw UNSURE;
    while (_digit(b[i])) i++;
  }
  if (i > c.end) throw UNSURE;
  c.at = i;
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

/** Powers of ten exact as doubles. */
const _POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

function _digit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

/** The place of {@linkcode recordedFields}' numbers read as text. */
const _cursor: Cursor = { bytes: new Uint8Array(0), at: 0, end: 0 };

/** The records' numbers, read as f64 (a view of the same memory). */
let _values: Float64Array | undefined;

/** The objects being built from records, and the keys they go under. */
const _open: Fields[] = [];
const _openNames: number[] = [];

/**
 * What the walk (`entryFields`) gives, built from the records the
 * WebAssembly `fields` wrote for a line (`_wasm_fields.ts`): it checked the
 * text and found the wanted values, so only those are read here.
 *
 * @param memory The memory the records' offsets are in.
 * @param records The records: four numbers each (a value: the last two as an f64).
 * @param count How many.
 * @returns The entry's wanted fields, as `entryFields` gives them (reused
 * by the next call); undefined if a number is not what it checked.
 */
export function recordedFields(
  memory: Uint8Array,
  records: Int32Array,
  count: number,
): object | undefined {
  const c = _cursor;
  c.bytes = memory;
  startFields();
  let top = fieldsObject();
  const entry = top;
  let depth = 0;
  if (_values?.buffer !== records.buffer) {
    _values = new Float64Array(records.buffer, records.byteOffset);
  }
  const values = _values;
  try {
    for (let r = 0; r < count * 4; r += 4) {
      const kind = records[r]! & 0xff, name = records[r]! >> 8;
      const start = records[r + 1]!, end = records[r + 2]!;
      // deno-fmt-ignore
      switch (kind) {
        case RECORD.string: top.set(name, lastString(name, memory, start, end)); break;
        case RECORD.number: c.at = start; c.end = end; top.set(name, readNumber(c)); break;
        case RECORD.value: top.set(name, values[(r >> 1) + 1]); break;
        case RECORD.true: top.set(name, true); break;
        case RECORD.false: top.set(name, false); break;
        case RECORD.null: top.set(name, null); break;
        case RECORD.open:
          _open[depth] = top;
          _openNames[depth++] = name;
          top = fieldsObject();
          break;
        case RECORD.close: {
          const done = top;
          top = _open[--depth]!;
          top.set(_openNames[depth]!, done);
          break;
        }
      }
    }
  } catch (err) {
    if (err === UNSURE) return undefined;
    throw err;
  }
  return entry;
}
