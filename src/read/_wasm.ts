/**
 * The instruction encoder the byte kernels share (the backward walk's
 * `_newlines.ts`; the usage pass's
 * `store/usage/_wasm.ts` takes its numbers and sections, and its `fields`
 * its branches by label): each kernel is one WebAssembly function over one
 * memory, assembled here from its instructions, so there is no binary to
 * build, ship or load.
 *
 * @module
 */

/** Value types, and the empty block type. */
export const I32 = 0x7f;
export const V128 = 0x7b;
const _VOID = 0x40;

/** An unsigned LEB128 number. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** A signed LEB128 number (a bigint for an i64 constant). */
export function sleb(n: number | bigint): number[] {
  if (typeof n === "number" && (n | 0) === n) {
    // An i32: shifts on numbers (BigInt steps cost every command's start).
    const out: number[] = [];
    for (;;) {
      const b = n & 0x7f;
      n >>= 7;
      if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
        out.push(b);
        return out;
      }
      out.push(b | 0x80);
    }
  }
  let v = BigInt(n);
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

export const get = (i: number): number[] => [0x20, i];
export const set = (i: number): number[] => [0x21, i];
export const tee = (i: number): number[] => [0x22, i];
export const i32 = (n: number): number[] => [0x41, ...sleb(n)];
export const simd = (op: number): number[] => [0xfd, ...uleb(op)];
/** v128.load, align 1, at the address plus `offset`. */
export const loadAt = (offset: number): number[] => [
  ...simd(0x00),
  0,
  ...uleb(offset),
];
export const load = loadAt(0);
export const splat = simd(0x0f); // i8x16.splat
export const eq = simd(0x23); // i8x16.eq
export const and = simd(0x4e); // v128.and
export const or = simd(0x50); // v128.or
export const bitmask = simd(0x64); // i8x16.bitmask
export const anyTrue = simd(0x53); // v128.any_true
export const ADD = [0x6a];
export const SUB = [0x6b];
export const AND = [0x71];
export const OR = [0x72];
export const XOR = [0x73];
export const SHL = [0x74];
export const SHR = [0x76]; // unsigned
export const CTZ = [0x68];
export const LT = [0x49]; // unsigned
export const LT_S = [0x48]; // signed
export const GE = [0x4f]; // unsigned
export const GE_S = [0x4e]; // signed
export const EQZ = [0x45];
export const STORE = [0x36, 2, 0]; // i32.store, align 4, offset 0
export const BLOCK = [0x02, _VOID];
export const LOOP = [0x03, _VOID];
export const IF = [0x04, _VOID];
export const ELSE = [0x05];
export const END = [0x0b];
export const br = (depth: number): number[] => [0x0c, depth];
export const brIf = (depth: number): number[] => [0x0d, depth];

/** One exported function of i32 parameters and result, over one exported memory. */
export interface KernelSource {
  /** The function's export name. */
  name: string;
  /** How many i32 parameters it takes (locals 0 to params - 1). */
  params: number;
  /** Its i32 locals, then its v128 locals, numbered after the parameters. */
  i32Locals: number;
  v128Locals: number;
  /** Its body, the function's final `end` included. */
  code: number[];
  /** The memory's initial size in 64 KiB pages (it is exported as `mem`). */
  pages: number;
}

/** The module's bytes. */
export function assemble(source: KernelSource): Uint8Array<ArrayBuffer> {
  const locals = _vec([[source.i32Locals, I32], [source.v128Locals, V128]]);
  const body = [...locals, ...source.code];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(
      1,
      _vec([[
        0x60,
        ..._vec(Array(source.params).fill([I32])),
        ..._vec([[I32]]),
      ]]),
    ),
    ...section(3, _vec([[0]])),
    ...section(5, _vec([[0, ...uleb(source.pages)]])),
    ...section(
      7,
      _vec([[...wasmName(source.name), 0, 0], [...wasmName("mem"), 2, 0]]),
    ),
    ...section(10, _vec([[...uleb(body.length), ...body]])),
  ]);
}

/**
 * The compiled module, or null where this runtime cannot run it (no
 * WebAssembly, or no SIMD): the caller then takes its plain loop.
 */
export function compile(source: KernelSource): WebAssembly.Module | null {
  try {
    return new WebAssembly.Module(assemble(source));
  } catch {
    return null;
  }
}

/** A module section: its id, its size, its bytes. */
export function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function _vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

/** A name (ASCII), as imports and exports spell it. */
export function wasmName(s: string): number[] {
  return [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
}

/**
 * An instruction with its branches by label: a byte, a branch to a named
 * block or loop, or a block, loop or `if` holding instructions. A long
 * function is written with these, and {@linkcode encode} turns each label
 * into the depth WebAssembly counts, which is easy to get wrong by hand.
 */
export type Op = number | { br: string } | { brIf: string } | Structured;

/** A block, a loop or an `if` (with its `else`), and the label its branches name. */
export interface Structured {
  kind: 0x02 | 0x03 | 0x04;
  label: string;
  body: Op[];
  otherwise?: Op[];
}

/** A block: a branch to `label` leaves it. */
export const block = (label: string, ...body: Op[]): Op => ({
  kind: 0x02,
  label,
  body,
});
/** A loop: a branch to `label` starts it again. */
export const loop = (label: string, ...body: Op[]): Op => ({
  kind: 0x03,
  label,
  body,
});
/** `cond` (an i32), then an `if` of no value, with an `else` where given. */
export const when = (cond: Op[], then: Op[], otherwise?: Op[]): Op[] => [
  ...cond,
  { kind: 0x04, label: "", body: then, ...otherwise && { otherwise } },
];
/** A branch to a label. */
export const toLabel = (label: string): Op => ({ br: label });
/** A branch to a label where the i32 on the stack is not 0. */
export const toLabelIf = (label: string): Op => ({ brIf: label });

/**
 * The bytes of `ops`, each branch's label turned into its depth.
 *
 * @param ops The instructions.
 * @param labels The labels around them, outermost first.
 * @param out Where the bytes go.
 * @returns `out`.
 */
export function encode(
  ops: Op[],
  labels: string[] = [],
  out: number[] = [],
): number[] {
  const depth = (label: string) => {
    const at = labels.lastIndexOf(label);
    if (at === -1) throw new Error(`no label "${label}" around a branch`);
    return labels.length - 1 - at;
  };
  for (const op of ops) {
    if (typeof op === "number") out.push(op);
    else if ("br" in op) out.push(0x0c, depth(op.br));
    else if ("brIf" in op) out.push(0x0d, depth(op.brIf));
    else {
      labels.push(op.label);
      out.push(op.kind, _VOID);
      encode(op.body, labels, out);
      if (op.otherwise !== undefined) {
        out.push(0x05);
        encode(op.otherwise, labels, out);
      }
      out.push(0x0b);
      labels.pop();
    }
  }
  return out;
}
