/**
 * The search scan's byte kernel (in `read/`, beside the backward walk's
 * newline finder, whose instruction encoder `_wasm.ts` it shares): one pass
 * over a buffer that reports, in order, every newline, every place where a
 * needle's two anchor bytes both match (a candidate, checked afterwards byte
 * by byte), and every `\u` (a JSON escape, which can hide a needle's
 * character). It runs as a small WebAssembly module using 16-byte SIMD,
 * 128 bytes per question (about 5 ms per 100 MB, against ~60 ms for
 * `indexOf(10)` alone), assembled below from its instructions; where
 * WebAssembly SIMD is missing, the same events come from a plain loop.
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
  ELSE,
  END,
  eq,
  EQZ,
  GE,
  get,
  i32,
  IF,
  type KernelSource,
  load,
  loadAt,
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

/** Bytes one scan examines at most (its events fit the events' space). */
export const SPAN_BYTES = (1 << 20) + (1 << 12);
/** Bytes read at a time into a region (see {@linkcode REGION_BYTES}). */
export const READ_BYTES = 4 << 20;
/**
 * The buffer is two regions of this many bytes: a read goes into one
 * while the other is scanned (`readAheadAt` in `fs/_read.ts`). Pages of
 * the second are mapped only where a file is large enough to read ahead.
 */
export const REGION_BYTES = READ_BYTES + (1 << 12);
/** Bytes kept before a read's place in a region (the end of the chunk before). */
const _KEPT = 128;
const _ALIGN = 64;

/**
 * Where a read at file offset `position` goes in region `region` of the
 * buffer: after the bytes kept, at the offset's alignment (mod 64), as the
 * copy from the page cache runs about 10 % faster so.
 *
 * @param region 0 or 1.
 * @param position The file offset read from.
 * @returns The place in the buffer.
 */
export function readPlace(region: number, position: number): number {
  return region * REGION_BYTES + _KEPT + position % _ALIGN;
}

/**
 * The part of `buffer` a read at `at` (its {@linkcode readPlace}) fills.
 *
 * @param buffer The kernel's buffer.
 * @param at The read's place.
 * @param position The file offset read from.
 * @returns Up to {@linkcode READ_BYTES}, ending at a multiple of 64 of the file.
 */
export function readSpan(
  buffer: Uint8Array,
  at: number,
  position: number,
): Uint8Array {
  return buffer.subarray(at, at + READ_BYTES - position % _ALIGN);
}

/** Where the events go (one 32-bit word each: at most one per byte scanned). */
const _OUT = 2 * REGION_BYTES + 256;
const _PAGES = Math.ceil((_OUT + SPAN_BYTES * 4) / 65536);

/** What to look for besides newlines. */
export interface KernelScan {
  /** First position examined. */
  start: number;
  /** Positions before this are examined (at most {@linkcode SPAN_BYTES} of them); bytes up to `end + lookahead` must be valid. */
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
  /** The buffer scanned (two regions of REGION_BYTES, then slack the kernel may read). */
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

/** Kernels kept for the next scan: at most this many (each ~12 MiB, mapped as used). */
const _IDLE_KERNELS = 1;
const _idle: Kernel[] = [];

/**
 * A kernel for one scan, to give back with {@linkcode releaseKernel}: the
 * last one given back when there is one. A fresh kernel's memory costs
 * more than it seems: its pages are mapped on first use, and the scan that
 * reads into them runs at about half the speed (a 100 MB scan took 25 ms
 * instead of 12 with a fresh kernel each time).
 *
 * @returns A kernel no one else is using.
 */
export function borrowKernel(): Kernel {
  return _idle.pop() ?? makeKernel();
}

/**
 * Give back a kernel from {@linkcode borrowKernel}, for the next scan.
 *
 * @param kernel The kernel, no longer used.
 */
export function releaseKernel(kernel: Kernel): void {
  if (_idle.length < _IDLE_KERNELS && !_idle.includes(kernel)) {
    _idle.push(kernel);
  }
}

function _wasmKernel(module: WebAssembly.Module): Kernel {
  const instance = new WebAssembly.Instance(module, {});
  const memory = instance.exports.mem as WebAssembly.Memory;
  const run = instance.exports.scan as (...args: number[]) => number;
  const buffer = new Uint8Array(memory.buffer, 0, _OUT);
  const events = new Uint32Array(memory.buffer, _OUT, SPAN_BYTES);
  return {
    buffer,
    events,
    scan: (s) => {
      const on = s.first >= 0;
      const [t0, m0] = _anchor(on ? s.firstBytes : _OFF);
      const [t1, m1] = _anchor(on ? s.secondBytes : _OFF);
      return run(
        s.start,
        s.end,
        Math.max(0, s.first),
        s.second,
        t0,
        m0,
        t1,
        m1,
        s.escapes ? 1 : 0,
      );
    },
  };
}

/** Anchor bytes that never make a candidate (a newline is reported first). */
const _OFF = [10, 10] as const;

/**
 * An anchor's two bytes as one comparison: `(byte | mask) === target`,
 * with `mask` the bits in which they differ. When they differ in one bit
 * (a letter's two cases), it takes exactly the two; else a few more bytes,
 * which only makes more candidates (each is checked byte by byte after).
 */
function _anchor([a, b]: readonly [number, number]): [number, number] {
  const mask = a ^ b;
  return [a | mask, mask];
}

/** The same events from a loop over the bytes. */
function _plainKernel(): Kernel {
  const buffer = new Uint8Array(_OUT);
  const events = new Uint32Array(SPAN_BYTES);
  return {
    buffer,
    events,
    scan: (s) => {
      let n = 0;
      const [t0, m0] = _anchor(s.firstBytes);
      const [t1, m1] = _anchor(s.secondBytes);
      for (let p = s.start; p < s.end; p++) {
        const b = buffer[p]!;
        const x = buffer[p + s.first]!;
        const y = buffer[p + s.second]!;
        if (b === 10) events[n++] = p;
        else if (s.escapes && b === 0x5c && buffer[p + 1] === 0x75) {
          events[n++] = p | (ESCAPE << 28);
        } else if (
          s.first >= 0 && (x | m0) === t0 && (y | m1) === t1
        ) events[n++] = p | (CANDIDATE << 28);
      }
      return n;
    },
  };
}

// --- The WebAssembly module, assembled from its instructions. ---

/** Bytes the main loop takes at a time: four 16-byte vectors. */
const _STRIDE = 128;

// Parameters, then i32 locals, then v128 locals.
const [_P, _END, _FIRST, _SECOND, _T0, _M0, _T1, _M1, _ESC] = [
  0,
  1,
  2,
  3,
  4,
  5,
  6,
  7,
  8,
];
const _PARAMS = 9;
const [_OUTP, _NL, _CAND, _ESCS, _ALL, _BIT, _Q, _PF, _PS] = [
  9,
  10,
  11,
  12,
  13,
  14,
  15,
  16,
  17,
];
const _I32_LOCALS = 9;
const [_VNL, _VT0, _VM0, _VT1, _VM1, _VBS, _VU, _W, _MNL, _MC, _ME, _ACC] = [
  18,
  19,
  20,
  21,
  22,
  23,
  24,
  25,
  26,
  27,
  28,
  29,
];
const _V128_LOCALS = 12;

/**
 * `scan(start, end, first, second, t0, m0, t1, m1, escapes) -> events`.
 * The main loop takes 64 bytes at a time and asks one question of them:
 * is there a newline, a candidate (both anchors, each `(byte | m) === t`)
 * or, when `escapes` is 1, a `\u`? Only when there is does it go over its
 * four 16-byte blocks for their bit masks (`_block`); the last bytes (fewer
 * than 64) go through `_block` directly. A candidate is never reported
 * where a newline or an escape is (no needle starts with either), nor an
 * escape where a newline is: so anchors set to "\n" turn candidates off.
 */
function _code(): number[] {
  // deno-fmt-ignore
  return [
    ...i32(10), ...splat, ...set(_VNL),
    ...get(_T0), ...splat, ...set(_VT0),
    ...get(_M0), ...splat, ...set(_VM0),
    ...get(_T1), ...splat, ...set(_VT1),
    ...get(_M1), ...splat, ...set(_VM1),
    // Escape bytes, or "\n\n" (never reported) when escapes are off.
    ...get(_ESC), ...IF, ...i32(0x5c), ...splat, ...set(_VBS),
    ...i32(0x75), ...splat, ...set(_VU),
    ...ELSE, ...get(_VNL), ...set(_VBS), ...get(_VNL), ...set(_VU), ...END,
    ...i32(_OUT), ...set(_OUTP),
    ...get(_ESC), ...IF,
    ...get(_FIRST), ...EQZ, ...IF, ..._mainLoop(true, true),
    ...ELSE, ..._mainLoop(true, false), ...END,
    ...ELSE,
    ...get(_FIRST), ...EQZ, ...IF, ..._mainLoop(false, true),
    ...ELSE, ..._mainLoop(false, false), ...END,
    ...END,
    // The rest, 16 bytes at a time.
    ...BLOCK, ...LOOP,
    ...get(_P), ...get(_END), ...GE, ...brIf(1),
    ...get(_P), ...set(_Q), ..._block(),
    ...get(_P), ...i32(16), ...ADD, ...set(_P),
    ...br(0),
    ...END, ...END,
    ...get(_OUTP), ...i32(_OUT), ...SUB, ...i32(2), ...SHR,
    ...END,
  ];
}

/** 64 bytes at a time while 64 remain; a block with an event goes to `_block`. */
function _mainLoop(escapes: boolean, atStart: boolean): number[] {
  const any: number[] = [];
  for (let k = 0; k < _STRIDE / 16; k++) {
    const at = k * 16;
    // deno-fmt-ignore
    any.push(
      ...get(_P), ...loadAt(at), ...tee(_W), ...get(_VNL), ...eq,
      ...(atStart ? get(_W) : [...get(_PF), ...loadAt(at)]),
      ...get(_VM0), ...or, ...get(_VT0), ...eq,
      ...get(_PS), ...loadAt(at), ...get(_VM1), ...or, ...get(_VT1), ...eq,
      ...and, ...or,
      ...(escapes
        ? [
          ...get(_W), ...get(_VBS), ...eq,
          ...get(_P), ...loadAt(at + 1), ...get(_VU), ...eq, ...and, ...or,
        ]
        : []),
      ...(k === 0 ? [] : or),
    );
  }
  // deno-fmt-ignore
  return [
    ...BLOCK, ...LOOP,
    ...get(_END), ...get(_P), ...i32(_STRIDE), ...ADD, ...LT, ...brIf(1),
    ...get(_P), ...get(_FIRST), ...ADD, ...set(_PF),
    ...get(_P), ...get(_SECOND), ...ADD, ...set(_PS),
    ...any, ...anyTrue, ...IF,
    ...get(_P), ...set(_Q),
    ...BLOCK, ...LOOP,
    ..._block(),
    ...get(_Q), ...i32(16), ...ADD, ...tee(_Q),
    ...get(_P), ...i32(_STRIDE), ...ADD, ...GE, ...brIf(1),
    ...br(0),
    ...END, ...END,
    ...END,
    ...get(_P), ...i32(_STRIDE), ...ADD, ...set(_P),
    ...br(0),
    ...END, ...END,
  ];
}

/** The events of the 16 bytes at `q` (those before `end`), in order. */
function _block(): number[] {
  // deno-fmt-ignore
  return [
    ...get(_Q), ...load, ...tee(_W), ...get(_VNL), ...eq, ...set(_MNL),
    ...get(_W), ...get(_VBS), ...eq,
    ...get(_Q), ...loadAt(1), ...get(_VU), ...eq, ...and, ...set(_ME),
    ...get(_Q), ...get(_FIRST), ...ADD, ...load, ...get(_VM0), ...or,
    ...get(_VT0), ...eq,
    ...get(_Q), ...get(_SECOND), ...ADD, ...load, ...get(_VM1), ...or,
    ...get(_VT1), ...eq, ...and, ...set(_MC),
    ...get(_MNL), ...get(_MC), ...or, ...get(_ME), ...or, ...anyTrue, ...IF,
    ...get(_MNL), ...bitmask, ...set(_NL),
    ...get(_ME), ...bitmask, ...get(_NL), ...i32(-1), ...XOR, ...AND,
    ...set(_ESCS),
    ...get(_MC), ...bitmask, ...get(_NL), ...get(_ESCS), ...OR, ...i32(-1),
    ...XOR, ...AND, ...set(_CAND),
    ...get(_NL), ...get(_CAND), ...OR, ...get(_ESCS), ...OR, ...set(_ALL),
    // A last block: only the lanes before `end`.
    ...get(_END), ...get(_Q), ...SUB, ...i32(16), ...LT, ...IF,
    ...get(_ALL), ...i32(1), ...get(_END), ...get(_Q), ...SUB, ...SHL,
    ...i32(1), ...SUB, ...AND, ...set(_ALL),
    ...END,
    ...BLOCK, ...LOOP,
    ...get(_ALL), ...EQZ, ...brIf(1),
    ...get(_ALL), ...CTZ, ...set(_BIT),
    ...get(_OUTP),
    ...get(_Q), ...get(_BIT), ...ADD,
    ...get(_CAND), ...get(_BIT), ...SHR, ...i32(1), ...AND,
    ...get(_ESCS), ...get(_BIT), ...SHR, ...i32(1), ...AND, ...i32(1), ...SHL,
    ...OR, ...i32(28), ...SHL, ...OR,
    ...STORE,
    ...get(_OUTP), ...i32(4), ...ADD, ...set(_OUTP),
    ...get(_ALL), ...get(_ALL), ...i32(1), ...SUB, ...AND, ...set(_ALL),
    ...br(0),
    ...END, ...END,
    ...END,
  ];
}

/** The module. */
function _source(): KernelSource {
  return {
    name: "scan",
    params: _PARAMS,
    i32Locals: _I32_LOCALS,
    v128Locals: _V128_LOCALS,
    code: _code(),
    pages: _PAGES,
  };
}
