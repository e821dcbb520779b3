import { deepStrictEqual, equal } from "node:assert/strict";
import fc from "fast-check";
import { IssueLog } from "../../src/read/_decode.ts";
import { LineAssembler } from "../../src/watch/_line_assembler.ts";

Deno.test("LineAssembler hands over exactly the complete lines, however the bytes arrive", () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ maxLength: 30 }).map((s) => s.replace(/\n/g, "")), {
        maxLength: 10,
      }),
      fc.string({ maxLength: 20 }).map((s) => s.replace(/\n/g, "")),
      fc.array(fc.nat({ max: 400 }), { maxLength: 8 }),
      (lines, tail, cuts) => {
        const text = lines.map((l) => `${l}\n`).join("") + tail;
        const bytes = new TextEncoder().encode(text);
        const a = new LineAssembler(new IssueLog());
        a.restart(100);
        const seen: [string, number][] = [];
        const points = [
          ...new Set([
            0,
            ...cuts.map((c) => c % (bytes.length + 1)),
            bytes.length,
          ]),
        ]
          .sort((x, y) => x - y);
        for (let i = 1; i < points.length; i++) {
          a.take(
            bytes.subarray(points[i - 1], points[i]),
            (l) => seen.push([new TextDecoder().decode(l.bytes), l.offset]),
          );
        }
        let at = 100;
        const want = lines.map((l) => {
          const r: [string, number] = [l.replace(/\r$/, ""), at];
          at += new TextEncoder().encode(l).length + 1;
          return r;
        });
        deepStrictEqual(seen, want);
        equal(a.offset, at);
        equal(a.readTo, 100 + bytes.length);
        deepStrictEqual(
          new TextDecoder().decode(a.kept(1 << 20)),
          tail,
        );
      },
    ),
    { numRuns: 300 },
  );
});
