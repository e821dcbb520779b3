/**
 * Finding `"usage"` in bytes fast: the one pre-filter of a usage pass. A
 * line without those seven bytes records no model call (an assistant turn
 * and a side call both carry a `"usage"` key), so a pass looks for them in
 * whole chunks and parses only the lines they fall in. Inside a JSON string
 * a quote is always escaped (`\"`), so the bytes appear only as a key (or
 * a bare `"usage"` value): text that merely mentions usage is passed over.
 *
 * The search runs in a few hundred bytes of WebAssembly with 128-bit SIMD
 * (`_wasm.ts`): a chunk is read straight into its memory and scanned 16
 * bytes a step, several times faster than `indexOf` in a loop (V8's
 * `Uint8Array#indexOf` costs ~0.2 µs a call, and JSON has a quote every
 * ~70 bytes). The same memory gives a line's skeleton, its long strings
 * left out, which parses several times faster than the line. Where
 * WebAssembly SIMD is unavailable the search runs in JavaScript and lines
 * are parsed whole.
 *
 * @module
 */

import { skeletonTable, USAGE_WASM } from "./_wasm.ts";

/** The bytes looked for. */
export const USAGE_KEY: Uint8Array = new TextEncoder().encode('"usage"');

/** Bytes past a chunk the finder may load (their matches are ignored). */
const _SLACK = 32;
const _PAGE = 65536;
const _TABLE = 256;

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
  /**
   * The skeleton of the JSON text at `[from, end)` of `bytes` (strings
   * longer than `SKELETON_KEEP` bytes written `"\u0001"`), in `out`: its
   * length, or -1 when the text must be parsed whole (a string cut short
   * or not valid JSON, or no WebAssembly here).
   */
  skeleton(from: number, end: number): number;
  /** Where {@linkcode UsageFinder.skeleton} writes. */
  readonly out: Uint8Array;
  /** The first line feed in `[from, end)` of `bytes`, or -1. */
  lf(from: number, end: number): number;
  /** The last line feed in `[from, at)` of `bytes`, or -1. */
  lfBack(from: number, at: number): number;
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
  // chunk | slack | skeleton out | table
  const outAt = capacity + _SLACK;
  const tableAt = outAt + capacity + _SLACK;
  const pages = Math.ceil((tableAt + _TABLE) / _PAGE);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  const find = instance.exports.find as (from: number, end: number) => number;
  const skeleton = instance.exports.skeleton as (
    from: number,
    end: number,
    out: number,
    table: number,
  ) => number;
  const all = new Uint8Array(memory.buffer);
  all.set(skeletonTable(), tableAt);
  const lf = instance.exports.lf as (from: number, end: number) => number;
  const lfBack = instance.exports.lfBack as (
    from: number,
    at: number,
  ) => number;
  return {
    bytes: all.subarray(0, capacity + _SLACK),
    capacity,
    find,
    lf,
    lfBack,
    skeleton: (from, end) => {
      const n = skeleton(from, end, outAt, tableAt);
      return n < 0 ? -1 : n - outAt;
    },
    out: all.subarray(outAt, tableAt),
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
    lf: (from, end) => {
      const i = bytes.indexOf(0x0a, from);
      return i < end ? i : -1;
    },
    lfBack: (from, at) => {
      const i = at > 0 ? bytes.lastIndexOf(0x0a, at - 1) : -1;
      return i >= from ? i : -1;
    },
    skeleton: () => -1,
    out: new Uint8Array(0),
  };
}

let _compiled: WebAssembly.Module | null | undefined = undefined;

function _module(): WebAssembly.Module | undefined {
  if (_compiled === undefined) {
    try {
      _compiled = new WebAssembly.Module(USAGE_WASM);
    } catch {
      _compiled = null; // no SIMD here: the JavaScript search
    }
  }
  return _compiled ?? undefined;
}
