/**
 * The WebAssembly of a usage pass, assembled here (no toolchain needed):
 * functions over an imported memory.
 *
 * - `find(from, end)`: the first `"usage"` in `[from, end)`, 16 bytes a
 *   step with 128-bit SIMD.
 * - `lf(from, end)` and `lfBack(from, at)`: the first line feed in
 *   `[from, end)`, the last in `[from, at)`, 16 bytes a step (V8's
 *   `indexOf` and `lastIndexOf` take a byte at a time: a line's start,
 *   found back from its `"usage"`, cost ~0.7 µs).
 * - `skeleton(from, end, out, table)`: the JSON text of `[from, end)` with
 *   every string longer than {@linkcode SKELETON_KEEP} bytes written as
 *   `"\u0001"`, so parsing it costs what its structure costs, not what its
 *   text costs; -1 where a string is cut short or holds what JSON does not
 *   allow (a raw control character, a bad escape), so the caller parses
 *   the line itself and fails as it would. `table` is 256 bytes: bit 1 for
 *   the characters that may follow a backslash, bit 2 for hex digits.
 * - `fields(from, end, rec, aux)`: where a skeleton's wanted values are
 *   (`_wasm_fields.ts`).
 *
 * @module
 */

import { section, sleb, uleb, wasmName } from "../../read/_wasm.ts";
import { fieldsFunction } from "./_wasm_fields.ts";

/** Strings up to this many bytes are kept by `skeleton` (ids, models, times). */
export const SKELETON_KEEP = 96;

/** What `skeleton` writes for a longer string: `"\u0001"`. */
export const SKELETON_PLACEHOLDER = "\u0001";

const I32 = 0x7f, EMPTY = 0x40;
const BLOCK = 0x02, LOOP = 0x03, IF = 0x04, ELSE = 0x05, END = 0x0b;
const BR = 0x0c, BR_IF = 0x0d, RETURN = 0x0f, GET = 0x20, SET = 0x21;
const I64_LOAD = 0x29, LOAD8 = 0x2d, I64_STORE = 0x37, STORE8 = 0x3a;
const I32_CONST = 0x41, I64_CONST = 0x42, I32_EQZ = 0x45, I32_EQ = 0x46;
const I32_NE = 0x47, I32_LT_U = 0x49, I32_LE_S = 0x4c, I32_LE_U = 0x4d;
const I32_GE_S = 0x4e, I32_GE_U = 0x4f, I64_EQ = 0x51, I32_CTZ = 0x68;
const I32_ADD = 0x6a, I32_SUB = 0x6b, I32_AND = 0x71, I64_AND = 0x83;
const SIMD = 0xfd, V128_LOAD = 0x00, SPLAT = 0x0f, EQ = 0x23, AND = 0x4e;
const LT_U = 0x26, OR = 0x50, BITMASK = 0x64, TEE = 0x22, I32_GT_U = 0x4b;
const ANY_TRUE = 0x53, I32_GT_S = 0x4a, I32_LT_S = 0x48, I32_CLZ = 0x67;
const MEMORY_COPY = [0xfc, 0x0a, 0x00, 0x00];

const _const = (n: number): number[] => [I32_CONST, ...sleb(n)];
const _load8 = [LOAD8, 0, 0];

/** `v128.load offset=k` at `local 2` (i), compared bytewise with `c`. */
function _eqAt(k: number, c: number): number[] {
  // deno-fmt-ignore
  return [GET, 2, SIMD, V128_LOAD, 0, ...uleb(k), ..._const(c), SIMD, SPLAT,
    SIMD, EQ];
}

/**
 * 64 bytes at `local 2` (i) ruled out fast: lanes where a quote is
 * followed 4 bytes on by a `g` (as in `"usage"`, and rarely elsewhere), in
 * four blocks of 16 or'ed together, then one branch. Most of a transcript
 * is tool output and text, where such lanes are rare, so the search runs
 * at memory speed and checks a block closely only when it may hold one.
 */
function _skip64(): number[] {
  const pair = (k: number): number[] => [
    ..._eqAt(k, 0x22),
    ..._eqAt(k + 4, 0x67),
    SIMD,
    AND,
  ];
  // deno-fmt-ignore
  return [
    BLOCK, EMPTY, LOOP, EMPTY,                       // for (;;) {
    GET, 2, ..._const(64 + 6), I32_ADD, GET, 1, I32_GT_S, BR_IF, 1, // too near the end
    ...pair(0), ...pair(16), SIMD, OR, ...pair(32), SIMD, OR, ...pair(48),
    SIMD, OR, SIMD, ANY_TRUE, BR_IF, 1,              // a lane may match: look closely
    GET, 2, ..._const(64), I32_ADD, SET, 2, BR, 0,   // i += 64
    END, END,                                        // }
  ];
}

/** `find(from, end) -> i32`: offsets whose bytes +0, +4, +6 are `"`, `g`, `"`, then 7 bytes as one i64. */
function _find(): number[] {
  // locals: 0 from, 1 end, 2 i, 3 mask, 4 p
  // deno-fmt-ignore
  const code = [
    GET, 0, SET, 2,                                  // i = from
    BLOCK, EMPTY, LOOP, EMPTY,                       // for (;;) {
    ..._skip64(),                                    // skip blocks that cannot hold one
    GET, 2, GET, 1, ..._const(6), I32_SUB, I32_GE_S, BR_IF, 1, // if (i >= end - 6) break
    ..._eqAt(0, 0x22), ..._eqAt(4, 0x67), SIMD, AND, // lanes: '"' at i, 'g' at i+4,
    ..._eqAt(6, 0x22), SIMD, AND,                    //   '"' at i+6
    SIMD, BITMASK, SET, 3,                           // mask = bitmask(lanes)
    BLOCK, EMPTY, LOOP, EMPTY,                       // while (mask) {
    GET, 3, I32_EQZ, BR_IF, 1,
    GET, 2, GET, 3, I32_CTZ, I32_ADD, SET, 4,        //   p = i + ctz(mask)
    GET, 3, GET, 3, ..._const(1), I32_SUB, I32_AND, SET, 3, // mask &= mask - 1
    GET, 4, ..._const(7), I32_ADD, GET, 1, I32_LE_S, IF, EMPTY, // if (p + 7 <= end
    GET, 4, I64_LOAD, 0, 0, I64_CONST, ...sleb(0x00ffffffffffffffn), I64_AND,
    I64_CONST, ...sleb(0x0022656761737522n), I64_EQ, IF, EMPTY, // && '"usage"' at p)
    GET, 4, RETURN, END, END,                        //   return p
    BR, 0, END, END,                                 // }
    GET, 2, ..._const(16), I32_ADD, SET, 2, BR, 0,   // i += 16
    END, END,                                        // }
    ..._const(-1),                                   // return -1
    END,
  ];
  return [1, 3, I32, ...code];
}

/** `(table + byte at i + k) & bit`, for `skeleton`. */
function _class(k: number, bit: number): number[] {
  // deno-fmt-ignore
  return [GET, 3, GET, 0, ..._const(k), I32_ADD, ..._load8, I32_ADD, ..._load8,
    ..._const(bit), I32_AND];
}

/** The 16 bytes at `local 0` (i) compared with `c` by `op`, as lanes. */
function _lanes(op: number, c: number): number[] {
  return [GET, 0, SIMD, V128_LOAD, 0, 0, ..._const(c), SIMD, SPLAT, SIMD, op];
}

/**
 * Inside a string: skip 16 bytes at a time while none is a quote, a
 * backslash or a control character, then stop at the first that is.
 */
function _skipText(): number[] {
  // deno-fmt-ignore
  return [
    BLOCK, EMPTY, LOOP, EMPTY,                       // $slow, $fast
    GET, 0, ..._const(16), I32_ADD, GET, 1, I32_GT_U, BR_IF, 1,
    ..._lanes(EQ, 0x22), ..._lanes(EQ, 0x5c), SIMD, OR,
    ..._lanes(LT_U, 0x20), SIMD, OR, SIMD, BITMASK, TEE, 7,
    IF, EMPTY, GET, 0, GET, 7, I32_CTZ, I32_ADD, SET, 0, BR, 2, END,
    GET, 0, ..._const(16), I32_ADD, SET, 0, BR, 0,
    END, END,
  ];
}

/** `skeleton(i, end, o, table) -> i32`: see the module's doc. */
function _skeleton(): number[] {
  // params: 0 i, 1 end, 2 o, 3 table; locals: 4 c, 5 s, 6 len, 7 mask
  const placeholder = 0x2231303030755c22n; // '"\u0001"' little-endian
  // deno-fmt-ignore
  const code = [
    BLOCK, EMPTY,                                    // $fail
    BLOCK, EMPTY,                                    // $done
    LOOP, EMPTY,                                     // $top
    GET, 0, GET, 1, I32_GE_U, BR_IF, 1,              // i >= end: done
    GET, 0, ..._load8, SET, 4,                       // c = bytes[i]
    GET, 4, ..._const(0x22), I32_NE, IF, EMPTY,      // not a quote: copy it
    GET, 2, GET, 4, STORE8, 0, 0,
    GET, 2, ..._const(1), I32_ADD, SET, 2,
    GET, 0, ..._const(1), I32_ADD, SET, 0,
    BR, 1, END,                                      // continue $top
    GET, 0, SET, 5,                                  // s = i (the opening quote)
    GET, 0, ..._const(1), I32_ADD, SET, 0,
    BLOCK, EMPTY,                                    // $closed
    LOOP, EMPTY,                                     // $str
    ..._skipText(),
    GET, 0, GET, 1, I32_GE_U, BR_IF, 4,              // cut short: fail
    GET, 0, ..._load8, SET, 4,
    GET, 4, ..._const(0x22), I32_EQ, BR_IF, 1,       // the closing quote
    GET, 4, ..._const(0x20), I32_LT_U, BR_IF, 4,     // a raw control character: fail
    GET, 4, ..._const(0x5c), I32_EQ, IF, EMPTY,      // a backslash
    GET, 0, ..._const(1), I32_ADD, GET, 1, I32_GE_U, BR_IF, 5,
    ..._class(1, 1), I32_EQZ, BR_IF, 5,              // not an escape: fail
    GET, 0, ..._const(1), I32_ADD, ..._load8, ..._const(0x75), I32_EQ,
    IF, EMPTY,                                       // \uXXXX
    GET, 0, ..._const(5), I32_ADD, GET, 1, I32_GE_U, BR_IF, 6,
    ..._class(2, 2), I32_EQZ, BR_IF, 6,
    ..._class(3, 2), I32_EQZ, BR_IF, 6,
    ..._class(4, 2), I32_EQZ, BR_IF, 6,
    ..._class(5, 2), I32_EQZ, BR_IF, 6,
    GET, 0, ..._const(6), I32_ADD, SET, 0,
    ELSE,
    GET, 0, ..._const(2), I32_ADD, SET, 0,
    END,
    BR, 1,                                           // continue $str
    END,
    GET, 0, ..._const(1), I32_ADD, SET, 0,
    BR, 0,                                           // continue $str
    END, END,                                        // $str, $closed
    GET, 0, GET, 5, I32_SUB, ..._const(1), I32_SUB, SET, 6, // len
    GET, 6, ..._const(SKELETON_KEEP), I32_LE_U, IF, EMPTY,
    GET, 2, GET, 5, GET, 6, ..._const(2), I32_ADD, ...MEMORY_COPY,
    GET, 2, GET, 6, I32_ADD, ..._const(2), I32_ADD, SET, 2,
    ELSE,
    GET, 2, I64_CONST, ...sleb(placeholder), I64_STORE, 0, 0,
    GET, 2, ..._const(8), I32_ADD, SET, 2,
    END,
    GET, 0, ..._const(1), I32_ADD, SET, 0,
    BR, 0,                                           // continue $top
    END, END,                                        // $top, $done
    GET, 2, RETURN,
    END,                                             // $fail
    ..._const(-1),
    END,
  ];
  return [1, 4, I32, ...code];
}

/** The 16 bytes at `local 0` compared with a line feed, as a bitmask. */
const _lfMask = (): number[] => [..._lanes(EQ, 0x0a), SIMD, BITMASK];

/** `lf(i, end) -> i32`: the first line feed in `[i, end)`, or -1; 16 bytes a step. */
function _lf(): number[] {
  // params: 0 i, 1 end; locals: 2 mask
  // deno-fmt-ignore
  const code = [
    BLOCK, EMPTY, LOOP, EMPTY,                       // while (i + 16 <= end) {
    GET, 0, ..._const(16), I32_ADD, GET, 1, I32_GT_S, BR_IF, 1,
    ..._lfMask(), TEE, 2,
    IF, EMPTY, GET, 0, GET, 2, I32_CTZ, I32_ADD, RETURN, END,
    GET, 0, ..._const(16), I32_ADD, SET, 0, BR, 0,   // i += 16 }
    END, END,
    BLOCK, EMPTY, LOOP, EMPTY,                       // the last bytes, one at a time
    GET, 0, GET, 1, I32_GE_S, BR_IF, 1,
    GET, 0, ..._load8, ..._const(0x0a), I32_EQ, IF, EMPTY, GET, 0, RETURN, END,
    GET, 0, ..._const(1), I32_ADD, SET, 0, BR, 0,
    END, END,
    ..._const(-1),
    END,
  ];
  return [1, 1, I32, ...code];
}

/** `lfBack(from, i) -> i32`: the last line feed in `[from, i)`, or -1; 16 bytes a step. */
function _lfBack(): number[] {
  // params: 0 from, 1 i; locals: 2 mask. The loads go through local 0,
  // so the two swap: 0 is i, 1 is from.
  // deno-fmt-ignore
  const code = [
    GET, 0, SET, 2, GET, 1, SET, 0, GET, 2, SET, 1,  // swap: 0 = i, 1 = from
    BLOCK, EMPTY, LOOP, EMPTY,                       // while (i - 16 >= from) {
    GET, 0, ..._const(16), I32_SUB, GET, 1, I32_LT_S, BR_IF, 1,
    GET, 0, ..._const(16), I32_SUB, SET, 0,          // i -= 16
    ..._lfMask(), TEE, 2,
    IF, EMPTY, GET, 0, ..._const(31), I32_ADD, GET, 2, I32_CLZ, I32_SUB,
    RETURN, END,                                     // the highest lane
    BR, 0,                                           // }
    END, END,
    BLOCK, EMPTY, LOOP, EMPTY,                       // the first bytes, one at a time
    GET, 0, GET, 1, I32_LE_S, BR_IF, 1,
    GET, 0, ..._const(1), I32_SUB, SET, 0,
    GET, 0, ..._load8, ..._const(0x0a), I32_EQ, IF, EMPTY, GET, 0, RETURN, END,
    BR, 0,
    END, END,
    ..._const(-1),
    END,
  ];
  return [1, 1, I32, ...code];
}

function _code(...bodies: number[][]): number[] {
  return [bodies.length, ...bodies.flatMap((b) => [...uleb(b.length), ...b])];
}

let _bytes: Uint8Array<ArrayBuffer> | undefined;

/**
 * The module: memory imported as `env.memory`; `find`, `skeleton`, `lf`,
 * `lfBack` and `fields` (`_wasm_fields.ts`) exported. Assembled when first
 * asked for (~4 ms before the code is compiled), not as this file loads.
 *
 * @returns Its bytes.
 */
export function usageWasm(): Uint8Array<ArrayBuffer> {
  // deno-fmt-ignore
  return _bytes ??= new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,              // magic, version
    ...section(1, [2, 0x60, 2, I32, I32, 1, I32,                // (i32, i32) -> i32
      0x60, 4, I32, I32, I32, I32, 1, I32]),                    // (i32 x4) -> i32
    ...section(2, [1, ...wasmName("env"), ...wasmName("memory"), 0x02, 0x00, 1]),
    ...section(3, [5, 0, 1, 0, 0, 1]),
    ...section(7, [5, ...wasmName("find"), 0x00, 0, ...wasmName("skeleton"), 0x00, 1,
      ...wasmName("lf"), 0x00, 2, ...wasmName("lfBack"), 0x00, 3,
      ...wasmName("fields"), 0x00, 4]),
    ...section(10, _code(_find(), _skeleton(), _lf(), _lfBack(), fieldsFunction())),
  ]);
}

/**
 * The 256-byte table `skeleton` reads: bit 1 for the characters that may
 * follow a backslash in JSON, bit 2 for hex digits.
 *
 * @returns The table.
 */
export function skeletonTable(): Uint8Array {
  const table = new Uint8Array(256);
  for (const c of '"\\/bfnrtu') table[c.charCodeAt(0)]! |= 1;
  for (const c of "0123456789abcdefABCDEF") table[c.charCodeAt(0)]! |= 2;
  return table;
}
