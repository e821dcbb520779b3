/**
 * Finding `"usage"` in bytes fast: the one pre-filter of a usage pass. A
 * line without those seven bytes records no model call (an assistant turn
 * and a side call both carry a `"usage"` key), so a pass looks for them in
 * whole chunks and parses only the lines they fall in. Inside a JSON string
 * a quote is always escaped (`\"`), so the bytes appear only as a key (or
 * a bare `"usage"` value): text that merely mentions usage is passed over.
 *
 * The search runs in a few hundred bytes of WebAssembly with 128-bit SIMD
 * (`USAGE_FINDER_WASM`): a chunk is read straight into its memory and
 * scanned 16 bytes a step, several times faster than `indexOf` in a loop
 * (V8's `Uint8Array#indexOf` costs ~0.2 µs a call, and JSON has a quote
 * every ~70 bytes). Where WebAssembly SIMD is unavailable the same search
 * runs in JavaScript.
 *
 * @module
 */

/** The bytes looked for. */
export const USAGE_KEY: Uint8Array = new TextEncoder().encode('"usage"');

/** Bytes past a chunk the finder may load (their matches are ignored). */
const _SLACK = 32;
const _PAGE = 65536;

/** A buffer and a search over it. */
export interface UsageFinder {
  /** The buffer (a chunk is read into it); `capacity` bytes usable. */
  readonly bytes: Uint8Array;
  /** Bytes a chunk may take. */
  readonly capacity: number;
  /**
   * The first offset in `[from, end)` where `"usage"` starts and ends at or
   * before `end`, or -1.
   */
  find(from: number, end: number): number;
}

/**
 * A finder over a buffer of `capacity` bytes.
 *
 * @param capacity The largest chunk.
 * @returns The finder (WebAssembly where it can run, else JavaScript).
 */
export function usageFinder(capacity: number): UsageFinder {
  const module = _module();
  if (module === undefined) return _jsFinder(capacity);
  const pages = Math.ceil((capacity + _SLACK) / _PAGE);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  const find = instance.exports.find as (from: number, end: number) => number;
  const bytes = new Uint8Array(memory.buffer);
  return {
    bytes,
    capacity,
    find,
  };
}

/** The JavaScript search: each quote, then the six bytes after it. */
export function findUsage(
  bytes: Uint8Array,
  from: number,
  end: number,
): number {
  const last = end - USAGE_KEY.length;
  for (
    let i = bytes.indexOf(0x22, from);
    i !== -1 && i <= last;
    i = bytes.indexOf(0x22, i + 1)
  ) {
    if (
      bytes[i + 6] === 0x22 && bytes[i + 1] === 0x75 && bytes[i + 2] === 0x73 &&
      bytes[i + 3] === 0x61 && bytes[i + 4] === 0x67 && bytes[i + 5] === 0x65
    ) return i;
  }
  return -1;
}

function _jsFinder(capacity: number): UsageFinder {
  const bytes = new Uint8Array(capacity + _SLACK);
  return {
    bytes,
    capacity,
    find: (from, end) => findUsage(bytes, from, end),
  };
}

let _compiled: WebAssembly.Module | null | undefined = undefined;

function _module(): WebAssembly.Module | undefined {
  if (_compiled === undefined) {
    try {
      _compiled = new WebAssembly.Module(USAGE_FINDER_WASM);
    } catch {
      _compiled = null; // no SIMD here: the JavaScript search
    }
  }
  return _compiled ?? undefined;
}

// --- the module, assembled here (no toolchain needed) -----------------------

const I32 = 0x7f, EMPTY = 0x40;
const BLOCK = 0x02, LOOP = 0x03, IF = 0x04, END = 0x0b, BR = 0x0c;
const BR_IF = 0x0d, RETURN = 0x0f, GET = 0x20, SET = 0x21;
const I64_LOAD = 0x29, I32_CONST = 0x41, I64_CONST = 0x42, I32_EQZ = 0x45;
const I64_EQ = 0x51, I32_LE_S = 0x4c, I32_GE_S = 0x4e, I32_CTZ = 0x68;
const I32_ADD = 0x6a, I32_SUB = 0x6b, I32_AND = 0x71, I64_AND = 0x83;
const SIMD = 0xfd, V128_LOAD = 0x00, SPLAT = 0x0f, EQ = 0x23, AND = 0x4e;
const BITMASK = 0x64;

/** Unsigned LEB128. */
function _u(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128. */
function _s(n: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(n & 0x7fn);
    n >>= 7n;
    const done = (n === 0n && (b & 0x40) === 0) ||
      (n === -1n && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}

function _section(id: number, body: number[]): number[] {
  return [id, ..._u(body.length), ...body];
}

function _name(s: string): number[] {
  return [..._u(s.length), ...new TextEncoder().encode(s)];
}

/** `v128.load offset=k` at `local 2` (i), compared bytewise with `c`. */
function _eqAt(k: number, c: number): number[] {
  // deno-fmt-ignore
  return [GET, 2, SIMD, V128_LOAD, 0, ..._u(k),
    I32_CONST, ..._s(BigInt(c)), SIMD, SPLAT, SIMD, EQ];
}

/**
 * `find(from, end) -> i32` over the imported memory: 16 offsets a step
 * whose byte is `"`, whose byte +4 is `g` and whose byte +6 is `"`, then
 * each such offset's 7 bytes compared as one masked i64.
 */
function _body(): number[] {
  const low7 = _s(0x00ffffffffffffffn);
  const pattern = _s(0x0022656761737522n); // '"usage"' little-endian
  // locals: 0 from, 1 end, 2 i, 3 mask, 4 p
  // deno-fmt-ignore
  const code = [
    GET, 0, SET, 2,                                  // i = from
    BLOCK, EMPTY, LOOP, EMPTY,                       // for (;;) {
    GET, 2, GET, 1, I32_CONST, 6, I32_SUB, I32_GE_S, BR_IF, 1, // if (i >= end - 6) break
    ..._eqAt(0, 0x22), ..._eqAt(4, 0x67), SIMD, AND, // m = '"' at i, 'g' at i+4,
    ..._eqAt(6, 0x22), SIMD, AND,                    //   '"' at i+6, per lane
    SIMD, BITMASK, SET, 3,                           // mask = bitmask(m)
    BLOCK, EMPTY, LOOP, EMPTY,                       // while (mask) {
    GET, 3, I32_EQZ, BR_IF, 1,
    GET, 2, GET, 3, I32_CTZ, I32_ADD, SET, 4,        //   p = i + ctz(mask)
    GET, 3, GET, 3, I32_CONST, 1, I32_SUB, I32_AND, SET, 3, // mask &= mask - 1
    GET, 4, I32_CONST, 7, I32_ADD, GET, 1, I32_LE_S, IF, EMPTY, // if (p + 7 <= end
    GET, 4, I64_LOAD, 0, 0, I64_CONST, ...low7, I64_AND, //   && 7 bytes at p
    I64_CONST, ...pattern, I64_EQ, IF, EMPTY,        //   == '"usage"')
    GET, 4, RETURN, END, END,                        //   return p
    BR, 0, END, END,                                 // }
    GET, 2, I32_CONST, 16, I32_ADD, SET, 2, BR, 0,   // i += 16
    END, END,                                        // }
    I32_CONST, ..._s(-1n),                           // return -1
    END,
  ];
  const locals = [1, 3, I32]; // three i32 locals
  const fn = [...locals, ...code];
  return [1, ..._u(fn.length), ...fn];
}

/** The finder's WebAssembly module (memory imported as `env.memory`). */
// deno-fmt-ignore
export const USAGE_FINDER_WASM: Uint8Array<ArrayBuffer> = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,                // magic, version
  ..._section(1, [1, 0x60, 2, I32, I32, 1, I32]),               // (i32, i32) -> i32
  ..._section(2, [1, ..._name("env"), ..._name("memory"), 0x02, 0x00, 1]),
  ..._section(3, [1, 0]),                                       // one function
  ..._section(7, [1, ..._name("find"), 0x00, 0]),               // exported
  ..._section(10, _body()),
]);
