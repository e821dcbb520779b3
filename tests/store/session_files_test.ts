import assert from "node:assert/strict";
import { mapLimit } from "../../src/store/_session_files.ts";

Deno.test("mapLimit starts no call once one has failed, and throws only when the calls running have ended", async () => {
  const started: number[] = [];
  let running = 0;
  let endedAfterThrow = false;
  let thrown = false;
  await assert.rejects(
    mapLimit([0, 1, 2, 3, 4, 5, 6, 7], 2, async (i) => {
      started.push(i);
      running++;
      try {
        if (i === 1) throw new Error("one failed");
        await new Promise((r) => setTimeout(r, 20));
        if (thrown) endedAfterThrow = true;
      } finally {
        running--;
      }
      return i;
    }).finally(() => {
      thrown = true;
    }),
    /one failed/,
  );
  assert.equal(running, 0, "a call was still running when it threw");
  assert.equal(endedAfterThrow, false);
  assert.deepEqual(started, [0, 1]);
});

Deno.test("mapLimit gives the results in order", async () => {
  const out = await mapLimit([3, 1, 2], 2, async (n) => {
    await new Promise((r) => setTimeout(r, n * 5));
    return n * 10;
  });
  assert.deepEqual(out, [30, 10, 20]);
});
