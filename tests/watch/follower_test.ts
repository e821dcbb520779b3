import { deepStrictEqual } from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { Follower } from "../../src/watch/_follower.ts";
import { sessionBytes, tempDir, user } from "../_session_files.ts";

Deno.test("Follower hands over exactly the entries of complete lines, however the bytes arrive", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "s.jsonl");
  const enc = new TextEncoder();
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.tuple(fc.string({ maxLength: 30 }), fc.boolean()),
        { maxLength: 8 },
      ),
      fc.string({ maxLength: 20 }),
      fc.array(fc.nat({ max: 2000 }), { maxLength: 8 }),
      async (lines, tail, cuts) => {
        await Deno.writeFile(file, sessionBytes([]));
        const ids = lines.map((_, i) => `0000000${i + 1}`);
        const text =
          lines.map(([t, crlf], i) =>
            JSON.stringify(user(ids[i]!, null, t)) + (crlf ? "\r\n" : "\n")
          ).join("") + tail.replace(/\n/g, "");
        const bytes = enc.encode(text);
        const seen: string[] = [];
        const follower = await Follower.open(file, {
          from: "start",
          action: "Cannot follow",
        });
        try {
          const points = [
            ...new Set([0, ...cuts.map((c) => c % (bytes.length + 1))]),
            bytes.length,
          ].sort((a, b) => a - b);
          for (let i = 1; i < points.length; i++) {
            const piece = bytes.subarray(points[i - 1], points[i]);
            await Deno.writeFile(file, piece, { append: true });
            for (let more = true; more;) {
              const look = await follower.look();
              seen.push(...look.entries.map((e) => e.id));
              more = look.more;
            }
          }
        } finally {
          await follower.close();
        }
        deepStrictEqual(seen, ids);
      },
    ),
    { numRuns: 60 },
  );
});
