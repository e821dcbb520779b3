/**
 * A buffer and the "\n"s in it, found last first, for the backward walk:
 * one call of a small WebAssembly SIMD kernel lists the newline positions of
 * up to 64 KiB of the buffer (16 bytes a step), and the walk then takes them
 * from the end, one comparison a line, where a `lastIndexOf` per line cost
 * more than reading the bytes. Where WebAssembly SIMD is missing, `indexOf`
 * lists the same positions.
 *
 * @module
 */

import {
  ADD,
  AND,
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
  GE_S,
  get,
  i32,
  IF,
  type KernelSource,
  loadAt,
  LOOP,
  LT_S,
  or,
  set,
  SHL,
  SHR,
  splat,
  STORE,
  SUB,
} from "./_wasm.ts";

const _LF = 0x0a;
/**
 * Bytes listed per kernel call: the positions take 4 bytes each (256 KiB
 * of memory at most), and one call per 64 KiB costs nothing next to the
 * bytes' own reading.
 */
export const SEGMENT_BYTES = 64 << 10;
/** The kernel's memory: the positions from byte 0, then the buffer. */
const _BYTES_AT = SEGMENT_BYTES * 4;
/** Room after the buffer: the last 16-byte load of a call may read past its end. */
const _SLACK = 16;
const _PAGE_BYTES = 1 << 16;

/** Options of {@linkcode Newlines}. */
export interface NewlinesOptions {
  /** List positions with `indexOf`, not the kernel (tests compare the two). */
  plain?: boolean;
  /** Bytes listed per call, at most {@linkcode SEGMENT_BYTES} (tests make it small). */
  segmentBytes?: number;
}

/**
 * A buffer of `capacity` bytes (in the kernel's memory, so a read lands
 * where the kernel looks: no copy) and a cursor over its "\n"s, last first.
 */
export class Newlines {
  /** The buffer: fill it, then {@linkcode reset}. */
  readonly bytes: Uint8Array;
  readonly #positions: Uint32Array;
  /** Lists the "\n"s of `bytes[from, to)` in `#positions`, ascending; returns how many. */
  readonly #list: (from: number, to: number) => number;
  readonly #segment: number;
  /** `#positions[0, #n)` are every "\n" in `bytes[#down, #top)`. */
  #n = 0;
  #down = 0;
  #top = 0;

  constructor(capacity: number, options: NewlinesOptions = {}) {
    const segment = options.segmentBytes ?? SEGMENT_BYTES;
    if (!(segment >= 1 && segment <= SEGMENT_BYTES)) {
      throw new RangeError(
        `Cannot find newlines: segmentBytes ${segment} is not in 1..${SEGMENT_BYTES}`,
      );
    }
    this.#segment = segment;
    const module = options.plain ? null : _module();
    if (module !== null) {
      const instance = new WebAssembly.Instance(module, {});
      const memory = instance.exports.mem as WebAssembly.Memory;
      const pages = Math.ceil((_BYTES_AT + capacity + _SLACK) / _PAGE_BYTES);
      memory.grow(pages - memory.buffer.byteLength / _PAGE_BYTES);
      this.bytes = new Uint8Array(memory.buffer, _BYTES_AT, capacity);
      this.#positions = new Uint32Array(memory.buffer, 0, SEGMENT_BYTES);
      this.#list = instance.exports.lines as (a: number, b: number) => number;
    } else {
      const bytes = new Uint8Array(capacity);
      const positions = new Uint32Array(Math.min(segment, capacity));
      this.bytes = bytes;
      this.#positions = positions;
      this.#list = (from, to) => {
        const view = bytes.subarray(0, to);
        let n = 0;
        for (
          let i = view.indexOf(_LF, from);
          i >= 0;
          i = view.indexOf(_LF, i + 1)
        ) {
          positions[n++] = i;
        }
        return n;
      };
    }
  }

  /** Forget the positions found: the bytes changed. */
  reset(): void {
    this.#n = 0;
    this.#down = 0;
    this.#top = 0;
  }

  /**
   * The position of the last "\n" in `bytes[0, below)`, or -1 when there is
   * none. Each call lists only bytes no earlier call listed while `below`
   * goes down, as it does in a walk backwards; a call above the last one
   * starts over from `below`.
   */
  lastBefore(below: number): number {
    if (below > this.#top) {
      this.#n = 0;
      this.#down = below;
    }
    this.#top = below;
    const positions = this.#positions;
    for (;;) {
      let n = this.#n;
      while (n > 0 && positions[n - 1]! >= below) n--;
      this.#n = n;
      if (n > 0) return positions[n - 1]!;
      if (this.#down === 0) return -1;
      const from = Math.max(0, this.#down - this.#segment);
      this.#n = this.#list(from, this.#down);
      this.#down = from;
    }
  }
}

let _compiled: WebAssembly.Module | null | undefined;

/** The kernel's module, compiled once; null where WebAssembly SIMD is missing. */
function _module(): WebAssembly.Module | null {
  if (_compiled === undefined) _compiled = compile(_source());
  return _compiled;
}

/**
 * `lines(from, to) -> count`: the positions of the "\n"s of the buffer's
 * bytes `[from, to)`, ascending, as 32-bit words from memory offset 0. Runs
 * of 64 bytes without a newline (most of a transcript's bytes) are passed
 * over with four compares; otherwise 16 bytes are compared at once, and
 * only a step with a newline writes.
 */
function _source(): KernelSource {
  const [p, to, out, mask] = [0, 1, 2, 3];
  const vnl = 4;
  const lfIn = (offset: number): number[] => [
    ...get(p),
    ...loadAt(_BYTES_AT + offset),
    ...get(vnl),
    ...eq,
  ];
  // deno-fmt-ignore
  const code = [
    ...i32(_LF), ...splat, ...set(vnl),
    ...BLOCK, ...LOOP,
    // Pass over 64 bytes at a time while they hold no newline.
    ...BLOCK, ...LOOP,
    ...get(to), ...get(p), ...SUB, ...i32(64), ...LT_S, ...brIf(1),
    ...lfIn(0), ...lfIn(16), ...or, ...lfIn(32), ...or, ...lfIn(48), ...or,
    ...anyTrue, ...brIf(1),
    ...get(p), ...i32(64), ...ADD, ...set(p),
    ...br(0),
    ...END, ...END,
    ...get(p), ...get(to), ...GE_S, ...brIf(1),
    ...lfIn(0), ...bitmask, ...set(mask),
    // The last step: only the lanes before `to`.
    ...get(to), ...get(p), ...SUB, ...i32(16), ...LT_S, ...IF,
    ...get(mask), ...i32(1), ...get(to), ...get(p), ...SUB, ...SHL,
    ...i32(1), ...SUB, ...AND, ...set(mask),
    ...END,
    ...BLOCK, ...LOOP,
    ...get(mask), ...EQZ, ...brIf(1),
    ...get(out), ...get(p), ...get(mask), ...CTZ, ...ADD, ...STORE,
    ...get(out), ...i32(4), ...ADD, ...set(out),
    ...get(mask), ...get(mask), ...i32(1), ...SUB, ...AND, ...set(mask),
    ...br(0),
    ...END, ...END,
    ...get(p), ...i32(16), ...ADD, ...set(p),
    ...br(0),
    ...END, ...END,
    ...get(out), ...i32(2), ...SHR,
    ...END,
  ];
  return {
    name: "lines",
    params: 2,
    i32Locals: 2,
    v128Locals: 1,
    code,
    pages: Math.ceil((_BYTES_AT + _SLACK) / _PAGE_BYTES),
  };
}
