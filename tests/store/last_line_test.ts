/**
 * A session's last line without its "\n": counted, found and shown when it
 * is whole JSON (omp's statistics count it; the session's reader keeps
 * it), passed over when it is torn (a write under way, or cut short), the
 * same through the index as from the files, while the line comes, ends,
 * is cut off or is replaced.
 */

import { deepStrictEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { Session, SessionIndex } from "../../mod.ts";
import { assistant, sessionBytes, tempDir, user } from "../_session_files.ts";
import { HAS_OMP, oracle, SKIPPED } from "../_omp.ts";
import { reported, searched } from "../_indexed.ts";

const quiet = { onWarning: () => {}, onSkip: () => {} };

/** A model call, `word` in its text. */
function call(n: number, parentId: string | null, word: string): string {
  return JSON.stringify(
    assistant(`c000000${n}`, parentId, `reply ${n} ${word}`, {
      usage: {
        input: 100 * n,
        output: 10 * n,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 110 * n,
        cost: { total: n / 100 },
      },
    }),
  );
}

/** Requests and hits for `word`, from the files and through the index: they must agree. */
async function seen(
  dataDir: string,
  word: string,
): Promise<{ requests: number; hits: string[]; onPath: boolean[] }> {
  const files = await reported(dataDir, { ...quiet, index: false });
  using index = await SessionIndex.open(dataDir, quiet);
  await index.refresh();
  const indexed = await reported(dataDir, quiet);
  equal(indexed.source, "index");
  deepStrictEqual(indexed.totals, files.totals);
  const scanned = await searched(dataDir, word, { index: false });
  const viaIndex = await searched(dataDir, word, quiet);
  equal(viaIndex.indexed, true);
  deepStrictEqual(viaIndex.hits, scanned.hits);
  return {
    requests: files.totals.requests,
    hits: scanned.hits.map((h) => h.entryId),
    onPath: scanned.hits.map((h) => h.onActivePath),
  };
}

Deno.test("a whole last line without its newline is counted, found and on the path, both ways, until it ends, is cut off or is replaced", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "-w");
  await Deno.mkdir(folder, { recursive: true });
  const path = join(folder, "2026-10-01T09-00-00-000Z_s.jsonl");
  const body = new TextDecoder().decode(
    sessionBytes([user("0000000a", null, "hello"), call(1, "0000000a", "")]),
  );
  await Deno.writeTextFile(path, body);
  deepStrictEqual(await seen(dir.path, "zebrafish"), {
    requests: 1,
    hits: [],
    onPath: [],
  });

  // A call as the last line, without its "\n" (a writer that left it out).
  await Deno.writeTextFile(path, call(2, "c0000001", "zebrafish"), {
    append: true,
  });
  deepStrictEqual(await seen(dir.path, "zebrafish"), {
    requests: 2,
    hits: ["c0000002"],
    onPath: [true],
  });
  {
    await using s = await Session.open(path, { window: false });
    equal(s.leafId, "c0000002");
  }

  // The next append ends it ("\n" first, as omp and this library write),
  // under it: still one call, one hit, on the path.
  {
    await using s = await Session.open(path);
    await s.appendMessage({ role: "user", content: "after" });
    equal(s.entries.at(-1)?.parentId, "c0000002");
  }
  deepStrictEqual(await seen(dir.path, "zebrafish"), {
    requests: 2,
    hits: ["c0000002"],
    onPath: [true],
  });

  // Another last line without "\n", then cut off: gone both ways.
  const before = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, call(3, null, "quagga"), { append: true });
  equal((await seen(dir.path, "quagga")).requests, 3);
  await Deno.writeTextFile(path, before);
  deepStrictEqual(await seen(dir.path, "quagga"), {
    requests: 2,
    hits: [],
    onPath: [],
  });

  // Replaced by another call: the old one is dropped, the new one counted.
  await Deno.writeTextFile(path, before + call(4, null, "quagga"));
  equal((await seen(dir.path, "quagga")).requests, 3);
  await Deno.writeTextFile(path, before + call(5, null, "okapi"));
  deepStrictEqual(await seen(dir.path, "quagga"), {
    requests: 3,
    hits: [],
    onPath: [],
  });
  const report = await reported(dir.path, quiet);
  equal(report.totals.inputTokens, 100 + 200 + 500);

  // Torn: half a call is no call and no hit, however it was indexed before.
  await Deno.writeTextFile(path, before + call(6, null, "okapi").slice(0, 200));
  deepStrictEqual(await seen(dir.path, "okapi"), {
    requests: 2,
    hits: [],
    onPath: [],
  });
});

Deno.test({
  name:
    `reported() counts a whole last line without its newline as omp does${SKIPPED}`,
  ignore: !HAS_OMP,
  fn: async () => {
    await using dir = await tempDir();
    const folder = join(dir.path, "sessions", "-w");
    await Deno.mkdir(folder, { recursive: true });
    const path = join(folder, "2026-10-01T09-00-00-000Z_s.jsonl");
    const body = new TextDecoder().decode(sessionBytes([call(1, null, "")]));
    await Deno.writeTextFile(path, body + call(2, "c0000001", ""));
    const omp = await oracle(["stats", dir.path]);
    equal(omp.code, 0);
    const overall = omp.json.overall as { requests: number };
    equal(overall.requests, 2);
    const ours = await reported(dir.path, { ...quiet, index: false });
    equal(ours.totals.requests, overall.requests);
  },
});
