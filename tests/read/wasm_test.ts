import { deepEqual, throws } from "node:assert/strict";
import fc from "fast-check";
import {
  assemble,
  block,
  encode,
  type KernelSource,
  loop,
  sleb,
  toLabel,
  toLabelIf,
  when,
} from "../../src/read/_wasm.ts";

/** LEB128 as the WebAssembly spec defines it, one bit group at a time. */
function reference(value: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const group = Number(BigInt.asUintN(7, value));
    value >>= 7n;
    const done = (value === 0n && (group & 0x40) === 0) ||
      (value === -1n && (group & 0x40) !== 0);
    out.push(done ? group : group | 0x80);
    if (done) return out;
  }
}

Deno.test("sleb() encodes i32 numbers and i64 bigints as signed LEB128", () => {
  for (
    const n of [0, 1, -1, 63, 64, -64, -65, 127, 128, 2 ** 31 - 1, -(2 ** 31)]
  ) {
    deepEqual(sleb(n), reference(BigInt(n)), String(n));
  }
  deepEqual(sleb(0), [0]);
  deepEqual(sleb(-1), [0x7f]);
  deepEqual(sleb(64), [0xc0, 0x00]);
  fc.assert(
    fc.property(fc.integer(), (n) => {
      deepEqual(sleb(n), reference(BigInt(n)));
    }),
  );
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
      deepEqual(sleb(n), reference(n));
    }),
  );
  // A number beyond 32 bits goes the bigint way.
  deepEqual(sleb(2 ** 40), reference(2n ** 40n));
});

Deno.test("encode() turns each branch's label into its depth", () => {
  // f(x): loop counting x down to 0 inside a block; an `if` between the
  // branch and its loop, another branch out of the block from inside both.
  // deno-fmt-ignore
  const body = encode([
    block("done", loop("again",
      ...when([0x20, 0, 0x45], [toLabel("done")]), // x == 0: leave
      0x20, 1, 0x41, 1, 0x6a, 0x21, 1, // n++
      0x20, 0, 0x41, 1, 0x6b, 0x21, 0, // x--
      0x20, 1, 0x41, ...sleb(100), 0x4e, toLabelIf("done"), // n >= 100: leave
      toLabel("again"))),
    0x20, 1,
  ]);
  const source: KernelSource = {
    name: "f",
    params: 1,
    i32Locals: 1,
    v128Locals: 0,
    code: [...body, 0x0b],
    pages: 1,
  };
  const f = new WebAssembly.Instance(new WebAssembly.Module(assemble(source)))
    .exports.f as (x: number) => number;
  deepEqual([f(0), f(7), f(1000)], [0, 7, 100]);
  throws(() => encode([toLabel("nowhere")]), /no label "nowhere"/);
});
