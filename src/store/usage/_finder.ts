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
 * ~70 bytes). In the same memory a line found is read by `fields`
 * (`_wasm_fields.ts`: where a call's values are), or where that gives up,
 * its skeleton is made (its long strings left out), which parses several
 * times faster than the line. Where WebAssembly SIMD is unavailable the
 * search runs in JavaScript and lines are parsed whole.
 *
 * @module
 */

import { skeletonTable, usageWasm } from "./_wasm.ts";
import { FIELDS_AUX, FIELDS_RECORDS, fieldsAux } from "./_wasm_fields.ts";
import { WANTED_FIELDS } from "./_field_values.ts";

/** The bytes looked for. */
export const USAGE_KEY: Uint8Array = new TextEncoder().encode('"usage"');

/** Bytes past a chunk the finder may load (their matches are ignored). */
const _SLACK = 32;
const _PAGE = 65536;

/** A buffer and a search over it. */
export interface UsageFinder {
  /** The buffer, from this finder's place in it (see {@linkcode UsageFinder.at}). */
  readonly bytes: Uint8Array;
  /** Bytes a read takes. */
  readonly capacity: number;
  /**
   * Bytes before a read's place in a region: the end of the chunk before
   * (a line under way, up to this long) is copied there.
   */
  readonly reserve: number;
  /** Where `bytes` starts in the whole memory. */
  readonly offset: number;
  /** The whole memory: two regions of `reserve + capacity` bytes (and slack). */
  readonly memory: Uint8Array;
  /**
   * The same search over the buffer from `offset` bytes into region `region`
   * (0 or 1): a read goes into one region while the other is searched.
   */
  at(region: number, offset: number): UsageFinder;
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
  /**
   * Where the wanted values of the line at `[from, end)` of `bytes` are:
   * the records written (`_wasm_fields.ts`), or -1 where it must be read
   * another way.
   */
  fields(from: number, end: number): number;
  /** Where {@linkcode UsageFinder.fields} writes: 16 bytes a record. */
  readonly records: Int32Array;
  /** The first line feed in `[from, end)` of `bytes`, or -1. */
  lf(from: number, end: number): number;
  /** The last line feed in `[from, at)` of `bytes`, or -1. */
  lfBack(from: number, at: number): number;
}

/** The search's functions over the whole memory (absolute offsets). */
interface _Search {
  find(from: number, end: number): number;
  skeleton(from: number, end: number): number;
  fields(from: number, end: number): number;
  lf(from: number, end: number): number;
  lfBack(from: number, at: number): number;
}

/** The layout of a finder's memory: two regions, then the skeleton's output. */
function _layout(capacity: number) {
  const reserve = Math.ceil(capacity / 4 / 16) * 16;
  const region = reserve + capacity + _SLACK;
  return { reserve, region, outAt: 2 * region };
}

/**
 * A finder over a buffer of `capacity` bytes a read.
 *
 * @param capacity The largest read.
 * @returns The finder (WebAssembly where it can run, else JavaScript), at region 0's start.
 */
export function usageFinder(capacity: number): UsageFinder {
  const module = _module();
  if (module === undefined) return _jsFinder(capacity);
  // region 0 | region 1 | skeleton out | table, then the fields' aux | records
  const { outAt } = _layout(capacity);
  const tableAt = outAt + capacity + _SLACK; // and the fields' aux, from it
  const recordsAt = Math.ceil((tableAt + FIELDS_AUX) / 16) * 16;
  const pages = Math.ceil((recordsAt + FIELDS_RECORDS * 16) / _PAGE);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  const skeleton = instance.exports.skeleton as (
    from: number,
    end: number,
    out: number,
    table: number,
  ) => number;
  const fields = instance.exports.fields as (
    from: number,
    end: number,
    rec: number,
    aux: number,
  ) => number;
  const all = new Uint8Array(memory.buffer);
  all.set(fieldsAux(WANTED_FIELDS, skeletonTable()), tableAt);
  const search: _Search = {
    find: instance.exports.find as (from: number, end: number) => number,
    lf: instance.exports.lf as (from: number, end: number) => number,
    lfBack: instance.exports.lfBack as (from: number, at: number) => number,
    skeleton: (from, end) => {
      if (end - from > capacity) return -1; // longer than `out`: parsed whole
      const n = skeleton(from, end, outAt, tableAt);
      return n < 0 ? -1 : n - outAt;
    },
    fields: (from, end) => fields(from, end, recordsAt, tableAt),
  };
  const records = new Int32Array(memory.buffer, recordsAt, FIELDS_RECORDS * 4);
  return _finderAt(
    capacity,
    all,
    all.subarray(outAt, tableAt),
    records,
    search,
    0,
  );
}

/** A finder whose `bytes` start at `offset` of `memory`. */
function _finderAt(
  capacity: number,
  memory: Uint8Array,
  out: Uint8Array,
  records: Int32Array,
  search: _Search,
  offset: number,
): UsageFinder {
  const { reserve, region } = _layout(capacity);
  const regionEnd = (Math.floor(offset / region) + 1) * region;
  const o = offset;
  return {
    bytes: memory.subarray(o, regionEnd),
    capacity,
    reserve,
    offset,
    memory,
    out,
    records,
    at: (r, at) =>
      _finderAt(capacity, memory, out, records, search, r * region + at),
    find: (from, end) => {
      const i = search.find(o + from, o + end);
      return i < 0 ? -1 : i - o;
    },
    lf: (from, end) => {
      const i = search.lf(o + from, o + end);
      return i < 0 ? -1 : i - o;
    },
    lfBack: (from, at) => {
      const i = search.lfBack(o + from, o + at);
      return i < 0 ? -1 : i - o;
    },
    skeleton: (from, end) => search.skeleton(o + from, o + end),
    fields: (from, end) => search.fields(o + from, o + end),
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
  const memory = new Uint8Array(_layout(capacity).outAt);
  const search: _Search = {
    find: (from, end) => findUsage(memory, from, end),
    lf: (from, end) => {
      const i = memory.indexOf(0x0a, from);
      return i < end ? i : -1;
    },
    lfBack: (from, at) => {
      const i = at > 0 ? memory.lastIndexOf(0x0a, at - 1) : -1;
      return i >= from ? i : -1;
    },
    skeleton: () => -1,
    fields: () => -1,
  };
  return _finderAt(
    capacity,
    memory,
    new Uint8Array(0),
    new Int32Array(0),
    search,
    0,
  );
}

let _compiled: WebAssembly.Module | null | undefined = undefined;

/**
 * The compiled search, to hand to a helper thread (a compiled module posts
 * to a Worker as it is): the helper then neither assembles nor compiles it.
 *
 * @returns The module, or null where this runtime cannot run it.
 */
export function finderModule(): WebAssembly.Module | null {
  return _module() ?? null;
}

/**
 * Use the search another thread compiled ({@linkcode finderModule}).
 *
 * @param module It, or null (the JavaScript search).
 */
export function adoptFinderModule(module: WebAssembly.Module | null): void {
  _compiled ??= module;
}

function _module(): WebAssembly.Module | undefined {
  if (_compiled === undefined) {
    try {
      _compiled = new WebAssembly.Module(usageWasm());
    } catch {
      _compiled = null; // no SIMD here: the JavaScript search
    }
  }
  return _compiled ?? undefined;
}
