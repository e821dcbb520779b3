import assert from "node:assert/strict";
import fc from "fast-check";
import { ReadRanges } from "../../src/read/_read_ranges.ts";

Deno.test("ReadRanges counts the bytes its ranges cover, each once, in any order", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(200), fc.nat(60)), { maxLength: 40 }),
      (reads) => {
        const r = new ReadRanges();
        const bytes = new Uint8Array(260);
        for (const [start, length] of reads) {
          r.add(start, start + length);
          bytes.fill(1, start, start + length);
          assert.equal(r.bytes, bytes.reduce((a, b) => a + b, 0));
        }
      },
    ),
  );
});

Deno.test("ReadRanges ignores an empty or reversed range", () => {
  const r = new ReadRanges();
  r.add(5, 5);
  r.add(9, 3);
  assert.equal(r.bytes, 0);
});
