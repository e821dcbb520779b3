/**
 * A usage pass holds no whole file: over an image-heavy session its
 * process grows by a chunk and a line, not by the file (the 2.6 GB run is
 * `bench/usage_bench.ts --rss 2.6G`).
 */

import { equal, ok } from "node:assert/strict";
import { reportMemory, writeImageSession } from "./_usage_dirs.ts";

Deno.test("usageReport() without an index reads a 256 MB image-heavy session in a process that grows by under 64 MB", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "xdev-usage-rss-" });
  try {
    const { calls } = await writeImageSession(dataDir, 256 << 20);
    const m = await reportMemory(dataDir);
    equal(m.requests, calls);
    ok(
      m.peakMB - m.rssBeforeMB <= 64,
      `RSS grew ${
        m.peakMB - m.rssBeforeMB
      } MB (from ${m.rssBeforeMB} to a peak of ${m.peakMB})`,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
