/**
 * Reading the first bytes of a JSON line as far as they go, keeping only
 * the members asked for: a small value whose strings are cut to a bound,
 * whose objects and arrays cut by the end of the bytes are marked so. The
 * members not asked for are passed over with byte searches, never decoded,
 * and the read stops at the first string longer than the bound, so a
 * line's head costs what its structure costs, not what its text weighs.
 * The same byte-level pass finds where a line's first value ends, for a
 * line holding two values glued together.
 *
 * @module
 */

const _QUOTE = 0x22;
const _BACKSLASH = 0x5c;
const _utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** The mark of a container (object, array) the end of the read cut short. */
const _CUT = Symbol("cut");

/**
 * Whether an object or array from {@linkcode readJsonPrefix} was cut short
 * by the end of the bytes (its later members are missing).
 *
 * @param value A value it returned.
 * @returns True for a container that was cut.
 */
export function isCut(value: unknown): boolean {
  return typeof value === "object" && value !== null &&
    (value as { [_CUT]?: true })[_CUT] === true;
}

/** Limits of {@linkcode readJsonPrefix}. */
export interface JsonPrefixLimits {
  /**
   * Bytes of a string decoded: a longer string keeps its first bytes and
   * ends the read (what follows it is not needed for a preview).
   */
  stringBytes: number;
  /** Nesting below which objects and arrays are skipped (read as undefined). */
  depth: number;
  /**
   * The members of objects that are read (array items always are): the
   * others are passed over with a byte search and left out.
   */
  keys: KeyTable;
}

/** Member names, matched against a line's bytes without decoding them. */
export class KeyTable {
  readonly #byLength: [Uint8Array, string][][] = [];

  /** @param names The names. */
  constructor(names: Iterable<string>) {
    const encoder = new TextEncoder();
    for (const name of names) {
      const bytes = encoder.encode(name);
      (this.#byLength[bytes.length] ??= []).push([bytes, name]);
    }
  }

  /** The name in `bytes[start, end)`, when it is one of the table's. */
  match(bytes: Uint8Array, start: number, end: number): string | undefined {
    const candidates = this.#byLength[end - start];
    if (candidates === undefined) return undefined;
    outer: for (const [want, name] of candidates) {
      for (let i = 0; i < want.length; i++) {
        if (bytes[start + i] !== want[i]) continue outer;
      }
      return name;
    }
    return undefined;
  }
}

/**
 * The value at the start of `bytes[start, end)`, as far as the bytes go:
 * strings longer than `stringBytes` keep their first bytes (whole
 * characters), a string cut by the end keeps what is there, containers
 * cut by the end keep their members so far ({@linkcode isCut} tells), and
 * containers deeper than `depth` are skipped. Bytes that are not JSON end
 * the value where they start, as the end of the bytes would.
 *
 * @param bytes The buffer.
 * @param start The first byte of the value.
 * @param end The end of the bytes at hand.
 * @param limits The bounds.
 * @returns The value, or undefined when not even its start is readable.
 */
export function readJsonPrefix(
  bytes: Uint8Array,
  start: number,
  end: number,
  limits: JsonPrefixLimits,
): unknown {
  // Cut to `end`, so the byte searches inside stop there too.
  const view = end < bytes.length ? bytes.subarray(0, end) : bytes;
  return new _Reader(view, start, end, limits).value(0);
}

/** A reader over one value; once `ended`, every step returns what it has. */
class _Reader {
  #at: number;
  #ended = false;
  readonly #bytes: Uint8Array;
  readonly #end: number;
  readonly #limits: JsonPrefixLimits;

  constructor(
    bytes: Uint8Array,
    start: number,
    end: number,
    limits: JsonPrefixLimits,
  ) {
    this.#bytes = bytes;
    this.#at = start;
    this.#end = end;
    this.#limits = limits;
  }

  value(depth: number): unknown {
    const b = this.#peek();
    if (b === 0x7b) return this.#object(depth);
    if (b === 0x5b) return this.#array(depth);
    if (b === _QUOTE) return this.#string();
    return b < 0 ? undefined : this.#scalar();
  }

  #object(depth: number): Record<string, unknown> | undefined {
    if (depth >= this.#limits.depth) return this.#skip();
    const out: Record<string, unknown> = {};
    this.#at++;
    if (this.#peek() === 0x7d) return this.#close(out);
    while (!this.#ended) {
      if (this.#peek() !== _QUOTE) return this.#cutShort(out);
      const keyEnd = this.#stringEnd(this.#at + 1, this.#end);
      if (keyEnd < 0) return this.#cutShort(out);
      const key = this.#limits.keys.match(this.#bytes, this.#at + 1, keyEnd);
      this.#at = keyEnd + 1;
      if (this.#peek() !== 0x3a) return this.#cutShort(out);
      this.#at++;
      if (key === undefined) this.#skipValue();
      else {
        const value = this.value(depth + 1);
        if (value !== undefined) out[key] = value;
      }
      const next = this.#peek();
      if (next === 0x7d) return this.#close(out);
      if (next !== 0x2c) return this.#cutShort(out);
      this.#at++;
    }
    return this.#cutShort(out);
  }

  #array(depth: number): unknown[] | undefined {
    if (depth >= this.#limits.depth) return this.#skip();
    const out: unknown[] = [];
    this.#at++;
    if (this.#peek() === 0x5d) return this.#close(out);
    while (!this.#ended) {
      const value = this.value(depth + 1);
      if (value !== undefined) out.push(value);
      const next = this.#peek();
      if (next === 0x5d) return this.#close(out);
      if (next !== 0x2c) return this.#cutShort(out);
      this.#at++;
    }
    return this.#cutShort(out);
  }

  #close<T extends object>(value: T): T {
    this.#at++;
    return value;
  }

  /** A container the end of the read cut short. */
  #cutShort<T extends object>(value: T): T {
    (value as { [_CUT]?: true })[_CUT] = true;
    return this.#stop(value);
  }

  /** End the read here (the bytes ran out, or are not JSON). */
  #stop<T>(value: T): T {
    this.#ended = true;
    return value;
  }

  /** Pass over a value that is not kept. */
  #skipValue(): void {
    const b = this.#peek();
    if (b === 0x7b || b === 0x5b) this.#skip();
    else if (b === _QUOTE) {
      const close = this.#stringEnd(this.#at + 1, this.#end);
      if (close < 0) this.#stop(undefined);
      else this.#at = close + 1;
    } else if (b >= 0) this.#scalarEnd();
  }

  /** Skip a container too deep to keep: strings by byte search, brackets counted. */
  #skip(): undefined {
    let nesting = 0;
    const bytes = this.#bytes;
    for (let i = this.#at; i < this.#end; i++) {
      const b = bytes[i];
      if (b === _QUOTE) {
        i = this.#stringEnd(i + 1, this.#end);
        if (i < 0) break;
      } else if (b === 0x7b || b === 0x5b) nesting++;
      else if ((b === 0x7d || b === 0x5d) && --nesting === 0) {
        this.#at = i + 1;
        return undefined;
      }
    }
    return this.#stop(undefined);
  }

  /**
   * A string; one longer than the bound, or cut by the end, keeps its
   * first bytes and ends the read.
   */
  #string(): string {
    const start = this.#at + 1;
    const max = this.#limits.stringBytes;
    const close = this.#stringEnd(start, Math.min(this.#end, start + max + 1));
    if (close < 0) {
      return this.#stop(_decode(this.#bytes, start, this.#end, max));
    }
    this.#at = close + 1;
    return _decode(this.#bytes, start, close, max);
  }

  /** The closing quote of a string whose content starts at `from`, before `limit`, or -1. */
  #stringEnd(from: number, limit: number): number {
    const bytes = this.#bytes;
    // Short strings (ids, times, names) end sooner than a search call costs.
    const near = Math.min(limit, from + 32);
    let i = from;
    for (; i < near; i++) {
      const b = bytes[i];
      if (b === _QUOTE) return i;
      if (b === _BACKSLASH) i++;
    }
    while (i < limit) {
      const q = bytes.indexOf(_QUOTE, i);
      if (q < 0 || q >= limit) return -1;
      let slashes = 0;
      while (q - slashes - 1 >= from && bytes[q - slashes - 1] === _BACKSLASH) {
        slashes++;
      }
      if (slashes % 2 === 0) return q;
      i = q + 1;
    }
    return -1;
  }

  /** The end of a scalar (a number, true, false, null) starting here, or -1. */
  #scalarEnd(): number {
    const bytes = this.#bytes;
    for (let i = this.#at; i < this.#end; i++) {
      const b = bytes[i]!;
      if (b === 0x2c || b === 0x7d || b === 0x5d || b <= 0x20) {
        this.#at = i;
        return i;
      }
    }
    return this.#stop(-1); // a number may go on past the bytes
  }

  #scalar(): unknown {
    const start = this.#at;
    const end = this.#scalarEnd();
    if (end < 0) return undefined;
    const word = _utf8.decode(this.#bytes.subarray(start, end));
    if (word === "true") return true;
    if (word === "false") return false;
    if (word === "null") return null;
    const n = Number(word);
    return word === "" || Number.isNaN(n) ? this.#stop(undefined) : n;
  }

  /** The next byte that is not white space (the reader moves to it), or -1. */
  #peek(): number {
    const bytes = this.#bytes;
    while (this.#at < this.#end && !this.#ended) {
      const b = bytes[this.#at]!;
      if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return b;
      this.#at++;
    }
    this.#ended = true;
    return -1;
  }
}

/**
 * The text of a string's content `bytes[start, stop)`, at most `max` bytes
 * of it, cut before a partial character or escape; escapes are resolved.
 */
function _decode(
  bytes: Uint8Array,
  start: number,
  stop: number,
  max: number,
): string {
  let end = Math.min(stop, start + max);
  if (end < stop) {
    // Back off a partial UTF-8 character.
    while (end > start && (bytes[end]! & 0xc0) === 0x80) end--;
  }
  // Back off a partial escape: an odd run of backslashes, or a \uXXXX cut
  // short, within the last 6 bytes.
  if (end < stop) {
    for (let i = end - 1; i >= Math.max(start, end - 6); i--) {
      if (bytes[i] !== _BACKSLASH) continue;
      let run = 1;
      while (i - run >= start && bytes[i - run] === _BACKSLASH) run++;
      if (
        run % 2 === 1 &&
        (i === end - 1 || (bytes[i + 1] === 0x75 && end - i < 6))
      ) end = i;
      break;
    }
  }
  const raw = _utf8.decode(bytes.subarray(start, end));
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw; // a lone surrogate escape or a raw control: keep the bytes' text
  }
}

/**
 * Where the first JSON object or array of `bytes` ends (just past its
 * closing bracket), found by matching brackets outside strings; -1 when it
 * does not close. What omp leaves when it appends after a line that lacks
 * its newline is two objects glued together: omp keeps the first, so does
 * the decoder. Whether the bytes are valid JSON is for `JSON.parse` to say.
 *
 * @param bytes A line's bytes, starting with `{` or `[`.
 * @returns The offset just past the first value, or -1.
 *
 * @example Two objects glued together
 * ```ts
 * import { firstValueEnd } from "./_json_prefix.ts";
 * import { equal } from "node:assert/strict";
 * const bytes = new TextEncoder().encode('{"a":"}"}{"b":2}');
 * equal(firstValueEnd(bytes), 9);
 * ```
 */
export function firstValueEnd(bytes: Uint8Array): number {
  const open = bytes[0];
  if (open !== 0x7b && open !== 0x5b) return -1;
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === _QUOTE) {
      for (i++; i < bytes.length && bytes[i] !== _QUOTE; i++) {
        if (bytes[i] === _BACKSLASH) i++; // the escaped byte
      }
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return -1;
}
