/**
 * The usage report against omp's own statistics (omp-stats, through the
 * peer oracle): the figures stored beside each fixture data dir always,
 * and the live oracle when it is installed.
 */

import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import type { UsageReport } from "../../mod.ts";

type UsageFigures = UsageReport["totals"];
import { HAS_OMP, oracle, SKIPPED } from "../_omp.ts";
import {
  buildIndex,
  fixtureCopy,
  USAGE_DIRS,
  USAGE_FIXTURES,
} from "./_usage_dirs.ts";
import { reported } from "../_indexed.ts";

/** What `oracle.ts stats` gives of a set of calls. */
interface OmpFigures {
  requests: number;
  failedRequests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cost: number;
}

interface OmpStats {
  overall: OmpFigures;
  byModel: (OmpFigures & { provider: string; model: string })[];
}

/**
 * Where we count otherwise than omp, by fixture and model: our figure, or
 * `absent` for a row omp has and we do not (README, "Usage and cost").
 */
const DIFFER: Record<
  string,
  Record<string, Partial<OmpFigures> | "absent">
> = {
  // omp counts no call of a version 1 file (its entries have no ids); we
  // count its two with the ids the loader mints, beside the version 2
  // file's one, which omp counts too.
  legacy: {
    "anthropic/claude-sonnet-4-5": {
      requests: 3,
      inputTokens: 3000,
      outputTokens: 300,
      cacheReadTokens: 750,
      cacheWriteTokens: 300,
      cost: 0.0135,
    },
  },
  // omp prices a call without a cost, and a zero cost, from its catalog.
  "no-cost": { "anthropic/claude-sonnet-4-5": { cost: 0 } },
  malformed: {
    "x/negative": { inputTokens: 0 }, // omp sums -1000
    "x/fraction": { outputTokens: 0 }, // omp sums 100.5
    "x/cost-string": { cost: 0 }, // omp reads "0.5" as 0.5
    "x/cost-negative": { cost: 0 }, // omp sums -0.5
    "x/repeated-id": { cost: 0.0045 }, // omp takes the later line's 0.25
    "x/no-header": "absent", // omp counts a *.jsonl that is no session
  },
};

const FIELDS = [
  "requests",
  "failedRequests",
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
] as const;

/** Equal figures: counts exactly, the cost to 1e-9 relative. */
function assertSame(ours: OmpFigures, theirs: OmpFigures, what: string): void {
  for (const f of FIELDS) equal(ours[f], theirs[f], `${what}: ${f}`);
  const scale = Math.max(Math.abs(ours.cost), Math.abs(theirs.cost));
  ok(
    Math.abs(ours.cost - theirs.cost) <= 1e-9 * scale,
    `${what}: cost ${ours.cost} against omp's ${theirs.cost}`,
  );
}

function sum(rows: OmpFigures[]): OmpFigures {
  const out: OmpFigures = {
    requests: 0,
    failedRequests: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cost: 0,
  };
  for (const r of rows) {
    for (const f of FIELDS) out[f] += r[f];
    out.cost += r.cost;
  }
  return out;
}

/** Our by-model report against omp's figures, its known differences applied. */
function assertAgrees(
  name: string,
  totals: UsageFigures,
  rows: (UsageFigures & { key: string })[],
  omp: OmpStats,
): void {
  const differ = DIFFER[name] ?? {};
  const expected = new Map<string, OmpFigures>();
  for (const m of omp.byModel) {
    const key = `${m.provider}/${m.model}`;
    const change = differ[key];
    if (change === "absent") continue;
    expected.set(key, { ...m, ...change });
  }
  deepStrictEqual(
    rows.map((r) => r.key).sort(),
    [...expected.keys()].sort(),
    `${name}: the models`,
  );
  for (const row of rows) {
    assertSame(row, expected.get(row.key)!, `${name} ${row.key}`);
  }
  const want = Object.keys(differ).length === 0
    ? omp.overall
    : sum([...expected.values()]);
  assertSame(totals, want, `${name} totals`);
}

async function stored(name: string): Promise<OmpStats> {
  const text = await Deno.readTextFile(
    join(USAGE_FIXTURES, `${name}.omp.json`),
  );
  return JSON.parse(text) as OmpStats;
}

for (const name of USAGE_DIRS) {
  Deno.test(`reported() counts the "${name}" data dir as omp does, from the files and from the index`, async () => {
    await using copy = await fixtureCopy(name);
    const files = await reported(copy.dir, {
      by: "model",
      index: false,
      onSkip: () => {},
    });
    equal(files.source, "files");
    assertAgrees(name, files.totals, files.rows, await stored(name));
    await buildIndex(copy.dir);
    const indexed = await reported(copy.dir, { by: "model" });
    equal(indexed.source, "index");
    deepStrictEqual({ ...indexed, source: "files" }, files);
  });
}

Deno.test({
  name:
    `reported() fixtures: the stored figures are what omp gives now${SKIPPED}`,
  ignore: !HAS_OMP,
  fn: async (t) => {
    for (const name of USAGE_DIRS) {
      await t.step(name, async () => {
        const live = await oracle(["stats", join(USAGE_FIXTURES, name)]);
        equal(live.code, 0);
        const want = await stored(name);
        deepStrictEqual(
          { overall: live.json.overall, byModel: live.json.byModel },
          { overall: want.overall, byModel: want.byModel },
        );
      });
    }
  },
});
