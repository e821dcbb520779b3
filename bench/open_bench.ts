/**
 * Open plus buildContext(): the windowed open against the naive way
 * (read, split, parse everything) and a full read, on generated transcripts.
 *
 *     deno task bench
 *
 * @module
 */

import { Session } from "../src/session/session.ts";
import { benchFile } from "./_files.ts";
import { naiveContext, naiveOpen } from "./naive.ts";

const MB = 1 << 20;
const files = {
  "20 MB": await benchFile(20 * MB),
  "20 MB, written by omp (no checkpoints)": await benchFile(20 * MB, {
    checkpoints: false,
  }),
  "20 MB, branched back before the last compaction": await benchFile(20 * MB, {
    branchBackAtEnd: true,
  }),
};

for (const [name, path] of Object.entries(files)) {
  Deno.bench({
    name: "naive: readTextFile, split, JSON.parse every line",
    group: name,
    baseline: true,
    async fn() {
      naiveContext(await naiveOpen(path));
    },
  });
  Deno.bench({
    name: "Session.open({ window: false }) + buildContext()",
    group: name,
    async fn() {
      await using s = await Session.open(path, {
        window: false,
        resolveBlobs: false,
      });
      s.buildContext();
    },
  });
  Deno.bench({
    name: "Session.open() windowed + buildContext()",
    group: name,
    async fn() {
      await using s = await Session.open(path, { resolveBlobs: false });
      s.buildContext();
    },
  });
}
