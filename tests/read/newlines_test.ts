import assert from "node:assert/strict";
import fc from "fast-check";
import { Newlines, SEGMENT_BYTES } from "../../src/read/_newlines.ts";

const LF = 10;

Deno.test("Newlines.lastBefore() finds what lastIndexOf finds, kernel or plain, whatever the order of the calls", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 700 }),
      fc.array(fc.nat(), { maxLength: 40 }),
      fc.integer({ min: 1, max: 100 }),
      fc.boolean(),
      (raw, jumps, segmentBytes, reset) => {
        // Mostly newlines and other bytes; NUL and CR too.
        const bytes = raw.map((b) => [LF, LF, 0, 13, 0x61, 0x7b][b % 6]!);
        const finders = [false, true].map((plain) => {
          const f = new Newlines(bytes.length, { plain, segmentBytes });
          f.bytes.set(bytes);
          if (reset) f.reset();
          return f;
        });
        // A walk down (each call below the last one's answer), with jumps
        // anywhere, up included.
        let below = bytes.length;
        for (let i = 0; i < 200 && below >= 0; i++) {
          const want = bytes.subarray(0, below).lastIndexOf(LF);
          for (const f of finders) assert.equal(f.lastBefore(below), want);
          const jump = jumps[i % Math.max(1, jumps.length)];
          below = jump !== undefined && jump % 5 === 0
            ? jump % (bytes.length + 1)
            : want;
        }
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("Newlines lists the newlines of a buffer of megabytes in segments", () => {
  const size = (3 << 20) + 77;
  const kernel = new Newlines(size);
  const plain = new Newlines(size, { plain: true });
  for (let i = 0, step = 1; i < size; i += step, step = (step * 7) % 5003 + 1) {
    kernel.bytes[i] = plain.bytes[i] = LF;
  }
  for (const f of [kernel, plain]) {
    let lines = 0;
    let last = size;
    for (let at = f.lastBefore(size); at >= 0; at = f.lastBefore(at)) {
      assert.equal(f.bytes.subarray(at + 1, last).indexOf(LF), -1);
      last = at;
      lines++;
    }
    assert.equal(f.bytes.subarray(0, last).indexOf(LF), -1);
    assert.ok(lines > 1000);
  }
});

Deno.test("Newlines refuses a segment it has no room to list", () => {
  assert.throws(() => new Newlines(10, { segmentBytes: 0 }), RangeError);
  assert.throws(
    () => new Newlines(10, { segmentBytes: SEGMENT_BYTES + 1 }),
    RangeError,
  );
});
