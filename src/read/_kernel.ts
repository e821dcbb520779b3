/**
 * The search scan's byte kernel (in `read/`, beside the backward walk's
 * newline finder, whose instruction encoder `_wasm.ts` it shares): one pass
 * over a buffer that reports, in order, every newline, every place where a
 * needle's two anchor bytes both match (a candidate, checked afterwards byte
 * by byte), and every `\u` (a JSON escape, which can hide a needle's
 * character). It runs as a small WebAssembly module using 16-byte SIMD
 * (about 5 ms per 100 MB, against ~60 ms for `indexOf(10)` alone), assembled
 * below from its instructions; where WebAssembly SIMD is missing, the same
 * events come from a plain loop.
 *
 * @module
 */

import {
  ADD,
  AND,
  and,
  anyTrue,
  bitmask,
  BLOCK,
  br,
  brIf,
  compile,
  CTZ,
  END,
  eq,
  EQZ,
  GE,
  get,
  i32,
  IF,
  type KernelSource,
  load,
  LOOP,
  LT,
  OR,
  or,
  set,
  SHL,
  SHR,
  splat,
  STORE,
  SUB,
  tee,
  XOR,
} from "./_wasm.ts";

/** Event kinds, in an event's top 4 bits; the low 28 bits are its position. */
export const NEWLINE = 0;
export const CANDIDATE = 1;
export const ESCAPE = 2;

/** Bytes a buffer may hold, and where in memory it starts. */
export const BUFFER_BYTES = (1 << 20) + (1 << 12);
/** Where the events go (one 32-bit word each: at most one per byte). */
const _OUT = BUFFER_BYTES + 256;
const _PAGES = Math.ceil((_OUT + BUFFER_BYTES * 4) / 65536);

/** What to look for besides newlines. */
export interface KernelScan {
  /** First position examined. */
  start: number;
  /** Positions before this are examined; bytes up to `end + lookahead` must be valid. */
  end: number;
  /** The first anchor's distance from a candidate's start, or -1 for no candidates. */
  first: number;
  /** The second anchor's distance from a candidate's start. */
  second: number;
  /** The bytes the first anchor may be (two, possibly equal). */
  firstBytes: readonly [number, number];
  /** The bytes the second anchor may be. */
  secondBytes: readonly [number, number];
  /** Report `\u` too. */
  escapes: boolean;
}

/** A kernel over its own buffer. */
export interface Kernel {
  /** The buffer scanned (BUFFER_BYTES, then slack the kernel may read). */
  readonly buffer: Uint8Array;
  /** The events of the last scan. */
  readonly events: Uint32Array;
  /** Scan; returns how many events it wrote. */
  scan(spec: KernelScan): number;
}

let _module: WebAssembly.Module | null | undefined;

/**
 * A kernel: the SIMD module when this runtime has WebAssembly SIMD, else
 * the plain loop.
 *
 * @param plain Use the plain loop (tests compare the two).
 * @returns A kernel with its own memory.
 */
export function makeKernel(plain = false): Kernel {
  if (!plain) {
    if (_module === undefined) _module = compile(_source());
    if (_module !== null) return _wasmKernel(_module);
  }
  return _plainKernel();
}

function _wasmKernel(module: WebAssembly.Module): Kernel {
  const instance = new WebAssembly.Instance(module, {});
  const memory = instance.exports.mem as WebAssembly.Memory;
  const run = instance.exports.scan as (...args: number[]) => number;
  const buffer = new Uint8Array(memory.buffer, 0, _OUT);
  const events = new Uint32Array(memory.buffer, _OUT, BUFFER_BYTES);
  return {
    buffer,
    events,
    scan: (s) =>
      run(
        s.start,
        s.end,
        Math.max(0, s.first),
        s.second,
        ...(s.first >= 0 ? s.firstBytes : [10, 10]),
        ...(s.first >= 0 ? s.secondBytes : [10, 10]),
        ...(s.escapes ? [0x5c, 0x75] : [10, 10]),
      ),
  };
}

/** The same events from a loop over the bytes. */
function _plainKernel(): Kernel {
  const buffer = new Uint8Array(_OUT);
  const events = new Uint32Array(BUFFER_BYTES);
  return {
    buffer,
    events,
    scan: (s) => {
      let n = 0;
      const [a0, b0] = s.firstBytes;
      const [a1, b1] = s.secondBytes;
      for (let p = s.start; p < s.end; p++) {
        const b = buffer[p]!;
        const x = buffer[p + s.first];
        const y = buffer[p + s.second];
        if (b === 10) events[n++] = p;
        else if (s.escapes && b === 0x5c && buffer[p + 1] === 0x75) {
          events[n++] = p | (ESCAPE << 28);
        } else if (
          s.first >= 0 && (x === a0 || x === b0) && (y === a1 || y === b1)
        ) events[n++] = p | (CANDIDATE << 28);
      }
      return n;
    },
  };
}

// --- The WebAssembly module, assembled from its instructions. ---

/**
 * `scan(start, end, first, second, a0, b0, a1, b1, e0, e1) -> events`:
 * params 0–9 (e0 e1: the escape's two bytes), then i32 and v128 locals. Each 16-byte block is compared whole;
 * only a block with an event pays for its bit masks. A candidate is never
 * reported where a newline or an escape is (no needle starts with either),
 * nor an escape where a newline is: so anchors and escape bytes set to
 * "\n" turn them off.
 */
function _code(): number[] {
  const [p, end, first, second] = [0, 1, 2, 3];
  const [out, nl, cand, esc, all, bit] = [10, 11, 12, 13, 14, 15];
  const [vnl, va0, vb0, va1, vb1, vbs, vu, mnl, mc, me, w] = [
    16,
    17,
    18,
    19,
    20,
    21,
    22,
    23,
    24,
    25,
    26,
  ];
  // deno-fmt-ignore
  return [
    ...i32(10), ...splat, ...set(vnl),
    ...get(4), ...splat, ...set(va0),
    ...get(5), ...splat, ...set(vb0),
    ...get(6), ...splat, ...set(va1),
    ...get(7), ...splat, ...set(vb1),
    ...get(8), ...splat, ...set(vbs),
    ...get(9), ...splat, ...set(vu),
    ...i32(_OUT), ...set(out),
    ...BLOCK, ...LOOP,
    ...get(p), ...get(end), ...GE, ...brIf(1),
    ...get(p), ...load, ...tee(w), ...get(vnl), ...eq, ...set(mnl),
    ...get(w), ...get(vbs), ...eq,
    ...get(p), ...i32(1), ...ADD, ...load, ...get(vu), ...eq, ...and, ...set(me),
    ...get(p), ...get(first), ...ADD, ...load, ...tee(w),
    ...get(va0), ...eq, ...get(w), ...get(vb0), ...eq, ...or,
    ...get(p), ...get(second), ...ADD, ...load, ...tee(w), ...get(va1), ...eq,
    ...get(w), ...get(vb1), ...eq, ...or, ...and, ...set(mc),
    ...get(mnl), ...get(mc), ...or, ...get(me), ...or, ...anyTrue, ...IF,
    ...get(mnl), ...bitmask, ...set(nl),
    ...get(me), ...bitmask, ...get(nl), ...i32(-1), ...XOR, ...AND, ...set(esc),
    ...get(mc), ...bitmask, ...get(nl), ...get(esc), ...OR, ...i32(-1), ...XOR,
    ...AND, ...set(cand),
    ...get(nl), ...get(cand), ...OR, ...get(esc), ...OR, ...set(all),
    // The last block: only the lanes before `end`.
    ...get(end), ...get(p), ...SUB, ...i32(16), ...LT, ...IF,
    ...get(all), ...i32(1), ...get(end), ...get(p), ...SUB, ...SHL,
    ...i32(1), ...SUB, ...AND, ...set(all),
    ...END,
    ...BLOCK, ...LOOP,
    ...get(all), ...EQZ, ...brIf(1),
    ...get(all), ...CTZ, ...set(bit),
    ...get(out),
    ...get(p), ...get(bit), ...ADD,
    ...get(cand), ...get(bit), ...SHR, ...i32(1), ...AND,
    ...get(esc), ...get(bit), ...SHR, ...i32(1), ...AND, ...i32(1), ...SHL,
    ...OR, ...i32(28), ...SHL, ...OR,
    ...STORE,
    ...get(out), ...i32(4), ...ADD, ...set(out),
    ...get(all), ...get(all), ...i32(1), ...SUB, ...AND, ...set(all),
    ...br(0),
    ...END, ...END,
    ...END,
    ...get(p), ...i32(16), ...ADD, ...set(p),
    ...br(0),
    ...END, ...END,
    ...get(out), ...i32(_OUT), ...SUB, ...i32(2), ...SHR,
    ...END,
  ];
}

/** The module. */
function _source(): KernelSource {
  return {
    name: "scan",
    params: 10,
    i32Locals: 6,
    v128Locals: 11,
    code: _code(),
    pages: _PAGES,
  };
}
