/**
 * `fields(from, end, rec, aux) -> i32`, the WebAssembly half of reading a
 * call's fields from its line (`_field_values.ts` builds them): one pass
 * over the line's bytes that checks it is JSON, as `JSON.parse` would, and
 * records each wanted key's value in the objects the walk of `_fields.ts`
 * builds (the entry, then each object under a wanted key). Before it, a
 * line was copied into a skeleton without its long strings, which the walk
 * in JavaScript read: ~2.0 µs a call of a generated 512 MB session (lines
 * of ~1.5 KB), against ~1.25 µs for this pass, reading the line itself
 * (its strings 16 bytes a step), and the building from its records.
 *
 * It gives up (-1) wherever the walk might answer otherwise or is unsure,
 * and the line is read as before (its skeleton walked, else parsed):
 * nesting past {@linkcode FIELDS_DEPTH}, more than {@linkcode FIELDS_RECORDS}
 * records, an escape in a wanted key or a wanted string, an array under a
 * wanted key, text that is not JSON.
 *
 * A record is 16 bytes: an i32 `kind | name << 8` ({@linkcode RECORD}; the
 * name is the key's number among the wanted keys), then where its value
 * starts and ends (a string's without its quotes); or, for a `value`, the
 * number's value as an f64 from byte 8, computed as the walk computes it
 * (one of 15 digits or fewer without an exponent; another is recorded as
 * its text). `aux` holds the escapes' table, the wanted keys and a byte
 * per depth (bit 1: an object, bit 2: one whose keys are wanted)
 * ({@linkcode fieldsAux}).
 *
 * @module
 */

import {
  block,
  encode,
  loop,
  type Op,
  sleb,
  toLabel as br,
  toLabelIf as brIf,
  uleb,
  when,
} from "../../read/_wasm.ts";

/** What a record holds. */
export const RECORD = {
  string: 1,
  /** A number as its text (the walk reads it). */
  number: 2,
  true: 3,
  false: 4,
  null: 5,
  /** An object starts: its keys' records follow, to its `close`. */
  open: 6,
  close: 7,
  /** A number's value, an f64, from the record's byte 8. */
  value: 8,
} as const;

/** Nesting `fields` follows before it gives up (the walk follows 512). */
export const FIELDS_DEPTH = 32;
/** Records `fields` writes at most before it gives up. */
export const FIELDS_RECORDS = 256;
/**
 * Where in `aux` the escapes' table is: first, so that `aux` can start at
 * the table `skeleton` reads (`skeletonTable`: what may follow a backslash,
 * hex digits), one copy for both.
 */
const _ESCAPES = 0;
/** Where in `aux` the wanted keys are (16 bytes each). */
const _NAMES = 256;
/** Where in `aux` the masks of the keys by length are (4 bytes a length, up to 15). */
const _BY_LENGTH = _NAMES + 32 * 16;
/** Where in `aux` the depths are. */
const _DEPTHS = _BY_LENGTH + 16 * 4;
/** Bytes of `aux`. */
export const FIELDS_AUX = _DEPTHS + FIELDS_DEPTH + 16;

/**
 * What `aux` holds.
 *
 * @param names The wanted keys (32 at most, of 15 bytes at most); a key's
 * number is its index.
 * @param escapes What may follow a backslash (bit 1), and hex digits (bit
 * 2), by byte (`skeletonTable`).
 * @returns `escapes`, then 16 bytes a key (its length, then its bytes), a
 * mask per length (bit k: key k is that long), and room for the depths.
 */
export function fieldsAux(
  names: readonly string[],
  escapes: Uint8Array,
): Uint8Array {
  const aux = new Uint8Array(FIELDS_AUX);
  const masks = new DataView(aux.buffer, _BY_LENGTH);
  names.forEach((name, k) => {
    if (name.length > 15 || k >= 32) throw new RangeError(`no room: ${name}`);
    const at = _NAMES + k * 16;
    aux[at] = name.length;
    for (let j = 0; j < name.length; j++) aux[at + 1 + j] = name.charCodeAt(j);
    const mask = name.length * 4;
    masks.setUint32(mask, (masks.getUint32(mask, true) | (1 << k)) >>> 0, true);
  });
  aux.set(escapes, _ESCAPES);
  return aux;
}

// Instructions.
const I32 = 0x7f, F64 = 0x7c;
const GET = 0x20, SET = 0x21, CONST = 0x41, RETURN = 0x0f, SELECT = 0x1b;
const LOAD8 = [0x2d, 0, 0], STORE8 = [0x3a, 0, 0], STORE = [0x36, 2];
const EQZ = 0x45, EQ = 0x46, NE = 0x47, LT_U = 0x49, GT_U = 0x4b;
const LE_U = 0x4d, GE_S = 0x4e, GE_U = 0x4f, CTZ = 0x68, ADD = 0x6a;
const SUB = 0x6b, MUL = 0x6c, AND = 0x71, OR = 0x72, SHL = 0x74;
const F64_NEG = 0x9a, F64_ADD = 0xa0, F64_MUL = 0xa2, F64_DIV = 0xa3;
const F64_FROM_I32 = 0xb7, F64_STORE_8 = [0x39, 3, 8];
const V128_LOAD = [0xfd, 0x00, 0, 0],
  SPLAT = [0xfd, 0x0f],
  I8_LT_U = [0xfd, 0x26];
/** i32.load8_u at the address plus `offset`. */
const LOAD8_AT = (offset: number): number[] => [0x2d, 0, ...uleb(offset)];
const I8_EQ = [0xfd, 0x23], V_OR = [0xfd, 0x50], BITMASK = [0xfd, 0x64];

// Locals: the parameters, then i32s, then f64s.
const I = 0, END = 1, REC = 2, AUX = 3; // I: where the pass is
const C = 4, ST = 5, D = 6, NAME = 7, J = 8, S = 9, ESC = 10, COUNT = 11;
const RP = 12, K = 13, E = 14, M = 15, L = 16, F = 17, N = 18;
const WHOLE = 19, PART = 20, POW = 21;

const set = (l: number, ...value: Op[]): Op[] => [...value, SET, l];
const k = (n: number): Op[] => [CONST, ...sleb(n)];
const f64 = (n: number): Op[] => [
  0x44,
  ...new Uint8Array(new Float64Array([n]).buffer),
];
const at = (l: number, plus = 0): Op[] =>
  plus === 0 ? [GET, l, ...LOAD8] : [GET, l, ...k(plus), ADD, ...LOAD8];
const inc = (l: number, n = 1): Op[] => set(l, GET, l, ...k(n), ADD);
const is = (l: number, c: number): Op[] => [GET, l, ...k(c), EQ];
const digit = (l: number): Op[] => [GET, l, ...k(0x30), SUB, ...k(10), LT_U];
/** Where the innermost container's depth byte is. */
const top = (): Op[] => [GET, AUX, GET, D, ADD, ...k(_DEPTHS), ADD];
const flags = (): Op[] => [...top(), ...LOAD8];
/** Fail where I is at or past the end. */
const needByte = (): Op[] => [GET, I, GET, END, GE_U, brIf("fail")];
const wanted = (): Op[] => [GET, NAME, ...k(0), GE_S];

/** Write a record of `kind` for the key NAME, from `start` to `end`. */
function emit(kind: number, start: Op[], end: Op[]): Op[] {
  // deno-fmt-ignore
  return [
    GET, COUNT, ...k(FIELDS_RECORDS), GE_U, brIf("fail"), // no room left
    GET, RP, GET, NAME, ...k(8), SHL, ...k(kind), OR, ...STORE, 0,
    GET, RP, ...start, ...STORE, 4,
    GET, RP, ...end, ...STORE, 8,
    ...inc(RP, 16), ...inc(COUNT),
  ];
}

/**
 * NAME: the number of the key at S (L bytes) among the wanted keys, or
 * -1; compared with the keys of its length only (K: those left).
 */
function lookUp(): Op[] {
  // deno-fmt-ignore
  return [
    ...set(NAME, ...k(-1)),
    ...when([GET, L, ...k(16), LT_U],
      set(K, GET, AUX, GET, L, ...k(4), MUL, ADD, 0x28, 2, ...uleb(_BY_LENGTH)),
      set(K, ...k(0))),
    block("found", loop("names",
      GET, K, EQZ, brIf("found"),
      ...set(E, GET, AUX, ...k(_NAMES), ADD, GET, K, CTZ, ...k(4), SHL, ADD), // key ctz(K)
      ...set(M, ...k(0)),
      block("differ", loop("bytes",
        ...when([GET, M, GET, L, GE_U], [...set(NAME, GET, K, CTZ), br("found")]),
        GET, S, GET, M, ADD, ...LOAD8,
        GET, E, GET, M, ADD, ...k(1), ADD, ...LOAD8, NE, brIf("differ"),
        ...inc(M), br("bytes"))),
      ...set(K, GET, K, GET, K, ...k(1), SUB, AND), // the next key that long
      br("names"))),
  ];
}

/** `true`, `false` or `null` at I, byte by byte. */
function literal(text: string, kind: number): Op[] {
  const checks: Op[] = [GET, I, ...k(text.length), ADD, GET, END, GT_U];
  for (let j = 1; j < text.length; j++) {
    checks.push(...at(I, j), ...k(text.charCodeAt(j)), NE, OR);
  }
  return [
    ...checks,
    brIf("fail"),
    ...when(wanted(), emit(kind, [GET, I], [GET, I])),
    ...inc(I, text.length),
  ];
}

/** Digits at I, one at least, added to `into` (an f64); N counts them. */
function digits(into: number): Op[] {
  // deno-fmt-ignore
  return [
    ...needByte(), ...set(C, ...at(I)), ...digit(C), EQZ, brIf("fail"),
    block("more", loop("next",
      ...set(into, GET, into, ...f64(10), F64_MUL,
        GET, C, ...k(0x30), SUB, F64_FROM_I32, F64_ADD),
      ...inc(N), ...inc(I),
      GET, I, GET, END, GE_U, brIf("more"),
      ...set(C, ...at(I)), ...digit(C), brIf("next"))),
  ];
}

/**
 * A number at I (C its first byte):
 * `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. Without an
 * exponent and of 15 digits or fewer, recorded as its value, which the
 * walk computes the same way: the integer, or the digits over a power of
 * ten (both exact doubles, so one division rounds as the parse rounds).
 */
function number(): Op[] {
  // I < END && b[I] === c (a byte past the end is memory all the same).
  const here = (c: number): Op[] => [
    GET,
    I,
    GET,
    END,
    LT_U,
    ...at(I),
    ...k(c),
    EQ,
    AND,
  ];
  // deno-fmt-ignore
  return [
    ...set(S, GET, I), ...set(N, ...k(0)), ...set(F, ...k(0)), // F: an exponent
    ...set(WHOLE, ...f64(0)), ...set(PART, ...f64(0)), ...set(POW, ...f64(1)),
    ...when(is(C, 0x2d), inc(I)),
    ...needByte(), ...set(C, ...at(I)),
    ...when(is(C, 0x30), [...inc(I), ...inc(N)], digits(WHOLE)),
    ...when(here(0x2e), [
      ...inc(I), ...set(M, GET, N), ...digits(PART),
      block("powered", loop("power", // POW: 10 ** (the fraction's digits)
        GET, M, GET, N, GE_U, brIf("powered"),
        ...set(POW, GET, POW, ...f64(10), F64_MUL), ...inc(M), br("power"))),
    ]),
    ...when([...here(0x65), ...here(0x45), OR], [
      ...set(F, ...k(1)), ...inc(I),
      ...when([...here(0x2b), ...here(0x2d), OR], inc(I)),
      ...digits(PART),
    ]),
    ...when(wanted(), when([GET, F, EQZ, GET, N, ...k(16), LT_U, AND], [
      ...set(WHOLE, GET, WHOLE, GET, POW, F64_MUL, GET, PART, F64_ADD,
        GET, POW, F64_DIV),
      ...when([...at(S), ...k(0x2d), EQ], set(WHOLE, GET, WHOLE, F64_NEG)),
      ...emit(RECORD.value, [GET, S], [GET, I]),
      GET, RP, ...k(16), SUB, GET, WHOLE, ...F64_STORE_8,
    ], emit(RECORD.number, [GET, S], [GET, I]))),
  ];
}

/**
 * A string at I (its opening quote), checked as `JSON.parse` checks it
 * (no control character; an escape is one of `\"\\/bfnrt`, or `u` and four
 * hex digits): J at its closing quote, ESC whether it holds an escape.
 * 16 bytes a step to the next quote, backslash or control character.
 */
function string(): Op[] {
  const lanes = (op: number[], c: number): Op[] => [
    GET,
    J,
    ...V128_LOAD,
    ...k(c),
    ...SPLAT,
    ...op,
  ];
  /** Fail unless the byte at J + `plus` has `bit` in the escapes' table. */
  const escaped = (plus: number, bit: number): Op[] => [
    GET,
    AUX,
    ...at(J, plus),
    ADD,
    ...LOAD8_AT(_ESCAPES),
    ...k(bit),
    AND,
    EQZ,
    brIf("fail"),
  ];
  // deno-fmt-ignore
  return [
    ...set(J, GET, I, ...k(1), ADD), ...set(ESC, ...k(0)),
    block("closed", loop("scan",
      block("byte", loop("sixteen",
        GET, J, ...k(16), ADD, GET, END, GT_U, brIf("byte"), // near the end
        ...set(M, ...lanes(I8_EQ, 0x22), ...lanes(I8_EQ, 0x5c), ...V_OR,
          ...lanes(I8_LT_U, 0x20), ...V_OR, ...BITMASK),
        ...when([GET, M], [...set(J, GET, J, GET, M, CTZ, ADD), br("byte")]),
        ...inc(J, 16), br("sixteen"))),
      GET, J, GET, END, GE_U, brIf("fail"),
      ...set(C, ...at(J)), ...is(C, 0x22), brIf("closed"),
      GET, C, ...k(0x20), LT_U, brIf("fail"), // a control character
      ...when(is(C, 0x5c), [
        ...set(ESC, ...k(1)),
        GET, J, ...k(2), ADD, GET, END, GT_U, brIf("fail"),
        ...escaped(1, 1),
        ...when([...at(J, 1), ...k(0x75), EQ], [
          GET, J, ...k(6), ADD, GET, END, GT_U, brIf("fail"),
          ...escaped(2, 2), ...escaped(3, 2), ...escaped(4, 2), ...escaped(5, 2),
          ...inc(J, 6),
        ], inc(J, 2)),
      ], inc(J)),
      br("scan"))),
  ];
}

/** Whether C is JSON whitespace. */
const isSpace = (): Op[] => [
  ...is(C, 0x20),
  ...is(C, 0x09),
  OR,
  ...is(C, 0x0a),
  OR,
  ...is(C, 0x0d),
  OR,
];

/** Past whitespace at I (C its byte): one test where there is none, as in omp's lines. */
function spaces(): Op[] {
  // deno-fmt-ignore
  return when([GET, C, ...k(0x20), LE_U], [loop("space",
    ...isSpace(), EQZ, brIf("fail"), // a control character
    ...inc(I), ...needByte(), ...set(C, ...at(I)),
    GET, C, ...k(0x20), LE_U, brIf("space"))]);
}

/** The pass's states, in ST: what the byte at I starts. */
const OBJECT = 0, KEY = 1, VALUE = 2, AFTER = 3, ARRAY = 4;

/** The function's body: a loop over the states, each falling through to the one it leads to. */
function _body(): number[] {
  const next = (): Op[] => [...needByte(), ...set(C, ...at(I)), ...spaces()];
  const push = (bits: Op[]): Op[] => [
    GET,
    D,
    ...k(FIELDS_DEPTH - 1),
    GE_S,
    brIf("fail"),
    ...inc(D),
    ...top(),
    ...bits,
    ...STORE8,
  ];
  const pop = (): Op[] => set(D, GET, D, ...k(1), SUB);
  // deno-fmt-ignore
  const code: Op[] = [block("fail",
    ...next(), ...is(C, 0x7b), EQZ, brIf("fail"), // the entry: an object,
    ...set(D, ...k(0)), ...top(), ...k(3), ...STORE8, // its keys wanted
    ...inc(I), ...set(ST, ...k(OBJECT)),
    ...set(COUNT, ...k(0)), ...set(RP, GET, REC),
    loop("top",
      ...next(),
      ...when(is(ST, OBJECT), set(ST, ...k(AFTER), ...k(KEY), ...is(C, 0x7d), SELECT)),
      ...when(is(ST, ARRAY), [
        ...set(NAME, ...k(-1)),
        ...set(ST, ...k(AFTER), ...k(VALUE), ...is(C, 0x5d), SELECT),
      ]),
      ...when(is(ST, KEY), [
        ...is(C, 0x22), EQZ, brIf("fail"),
        ...string(),
        // An escaped key may be any key: where keys are wanted, the walk decides.
        ...when([GET, ESC], [...flags(), ...k(2), AND, brIf("fail")]),
        ...set(S, GET, I, ...k(1), ADD), ...set(L, GET, J, GET, S, SUB),
        ...set(I, GET, J, ...k(1), ADD),
        ...next(), ...is(C, 0x3a), EQZ, brIf("fail"), ...inc(I),
        ...set(NAME, ...k(-1)),
        ...when([...flags(), ...k(2), AND], lookUp()),
        ...next(), ...set(ST, ...k(VALUE)),
      ]),
      ...when(is(ST, VALUE), [
        ...when(is(C, 0x7b), [
          ...when(wanted(), emit(RECORD.open, [GET, I], [GET, I])),
          ...push([...k(3), ...k(1), ...wanted(), SELECT]),
          ...inc(I), ...set(ST, ...k(OBJECT)), br("top"),
        ]),
        ...when(is(C, 0x5b), [
          ...wanted(), brIf("fail"), // an array under a wanted key: the walk gives up
          ...push(k(0)), ...inc(I), ...set(ST, ...k(ARRAY)), br("top"),
        ]),
        ...when(is(C, 0x22), [
          ...string(),
          ...when(wanted(), [
            GET, ESC, brIf("fail"),
            ...emit(RECORD.string, [GET, I, ...k(1), ADD], [GET, J]),
          ]),
          ...set(I, GET, J, ...k(1), ADD),
        ], when(is(C, 0x74), literal("true", RECORD.true),
          when(is(C, 0x66), literal("false", RECORD.false),
            when(is(C, 0x6e), literal("null", RECORD.null), number())))),
        ...next(), ...set(ST, ...k(AFTER)),
      ]),
      // AFTER a value: a comma, or the end of its container.
      ...when(is(C, 0x2c), [
        ...inc(I), ...set(NAME, ...k(-1)),
        ...set(ST, ...k(KEY), ...k(VALUE), ...flags(), ...k(1), AND, SELECT),
        br("top"),
      ]),
      ...when(is(C, 0x7d), [
        ...flags(), ...k(1), AND, EQZ, brIf("fail"), ...inc(I),
        ...when([GET, D, EQZ], [ // the entry's end, then only whitespace
          block("end", loop("space",
            GET, I, GET, END, GE_U, brIf("end"),
            ...set(C, ...at(I)), ...isSpace(), EQZ, brIf("fail"),
            ...inc(I), br("space"))),
          GET, COUNT, RETURN,
        ]),
        ...when([...flags(), ...k(2), AND], emit(RECORD.close, [GET, I], [GET, I])),
        ...pop(), br("top"),
      ]),
      ...is(C, 0x5d), EQZ, brIf("fail"),
      ...flags(), ...k(1), AND, brIf("fail"), // `]` ends no object
      ...inc(I), ...pop(), br("top"))),
    ...k(-1),
  ];
  const bytes = encode(code);
  bytes.push(0x0b);
  return bytes;
}

/** The function as the code section takes it: its locals, then its body. */
export function fieldsFunction(): number[] {
  return [2, 15, I32, 3, F64, ..._body()];
}
