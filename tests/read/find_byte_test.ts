/**
 * `findByte` and `findLastByte` (`read/_find_byte.ts`): the typed array's
 * search and `node:buffer`'s, one of which each runtime uses, give the
 * same answers.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  FIND_BYTE_WAYS,
  findByte,
  findLastByte,
} from "../../src/read/_find_byte.ts";

Deno.test("findByte and findLastByte answer as indexOf and lastIndexOf, both ways, from every position", () => {
  const bytes = fc.uint8Array({ maxLength: 300 }).chain((b) =>
    fc.record({
      bytes: fc.constant(b),
      // A view into a larger buffer too: its offset must not leak in.
      offset: fc.nat(16),
      byte: fc.oneof(fc.constant(10), fc.integer({ min: 0, max: 255 })),
      from: fc.nat(b.length + 2),
    })
  );
  fc.assert(
    fc.property(bytes, ({ bytes, offset, byte, from }) => {
      const big = new Uint8Array(offset + bytes.length + 8).fill(byte);
      big.set(bytes, offset);
      const view = big.subarray(offset, offset + bytes.length);
      const last = Math.min(from, view.length - 1);
      for (const [name, way] of Object.entries(FIND_BYTE_WAYS)) {
        assert.equal(
          way.first(view, byte, from),
          bytes.indexOf(byte, from),
          name,
        );
        if (last >= 0) {
          assert.equal(
            way.last(view, byte, last),
            bytes.lastIndexOf(byte, last),
            name,
          );
        }
      }
      assert.equal(findByte(view, byte, from), bytes.indexOf(byte, from));
      if (last >= 0) {
        assert.equal(
          findLastByte(view, byte, last),
          bytes.lastIndexOf(byte, last),
        );
      }
    }),
    { numRuns: 2000 },
  );
});
