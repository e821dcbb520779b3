import { deepEqual } from "node:assert/strict";
import fc from "fast-check";
import { sleb } from "../../src/read/_wasm.ts";

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
