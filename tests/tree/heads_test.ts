import { deepStrictEqual, equal } from "node:assert/strict";
import fc from "fast-check";
import { HEAD_BYTES, scanHeads } from "../../src/tree/_heads.ts";

/** A reader over bytes handing out at most `step` bytes a read. */
function reader(bytes: Uint8Array, step: number) {
  let at = 0;
  return {
    read(p: Uint8Array): Promise<number | null> {
      if (at >= bytes.length) return Promise.resolve(null);
      const n = Math.min(p.length, step, bytes.length - at);
      p.set(bytes.subarray(at, at + n));
      at += n;
      return Promise.resolve(n);
    },
  };
}

interface Seen {
  head: string;
  offset: number;
  size: number;
  whole: boolean;
  terminated: boolean;
}

async function scan(bytes: Uint8Array, step: number): Promise<Seen[]> {
  const out: Seen[] = [];
  const dec = new TextDecoder();
  await scanHeads(reader(bytes, step), 0, (l) =>
    out.push({
      head: dec.decode(l.bytes.subarray(l.start, l.end)),
      offset: l.offset,
      size: l.size,
      whole: l.whole,
      terminated: l.terminated,
    }));
  return out;
}

Deno.test("scanHeads() hands over each line's first bytes, offset and size; a long line's head only", async () => {
  const long = "L".repeat(3 << 20); // longer than the 1 MiB buffer
  const text = `a\r\n\nmid${"m".repeat(HEAD_BYTES + 10)}\n${long}\nlast`;
  const lines = await scan(new TextEncoder().encode(text), 70_000);
  deepStrictEqual(
    lines.map((l) => [l.head.length, l.offset, l.size, l.whole, l.terminated]),
    [
      [1, 0, 3, true, true],
      [0, 3, 1, true, true],
      [HEAD_BYTES, 4, HEAD_BYTES + 14, false, true],
      [HEAD_BYTES, HEAD_BYTES + 18, long.length + 1, false, true],
      [4, HEAD_BYTES + 19 + long.length, 4, true, false],
    ],
  );
  equal(lines[3]!.head, "L".repeat(HEAD_BYTES));
});

Deno.test("scanHeads(): the sizes add up to the file and each head is the start of its line, however reads are cut", async () => {
  const line = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.nat({ max: 3 * HEAD_BYTES }).map((n) => "y".repeat(n)),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { maxLength: 12 }),
      fc.boolean(),
      fc.integer({ min: 1, max: 5000 }),
      async (lines, ending, step) => {
        const text = lines.join("\n") + (ending ? "\n" : "");
        const bytes = new TextEncoder().encode(text);
        const seen = await scan(bytes, step);
        equal(seen.reduce((n, l) => n + l.size, 0), bytes.length);
        for (const l of seen) {
          const own = bytes.subarray(l.offset, l.offset + l.size);
          const content = new TextDecoder().decode(own).replace(/\r?\n$/, "");
          const headBytes = new TextEncoder().encode(l.head);
          deepStrictEqual(
            headBytes,
            new TextEncoder().encode(content).subarray(0, headBytes.length),
          );
          equal(
            l.whole,
            headBytes.length === new TextEncoder().encode(content).length,
          );
        }
      },
    ),
    { numRuns: 100 },
  );
});
