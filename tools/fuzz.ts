/**
 * Long fuzz runs of the loaders over random mutations of the real fixtures:
 * the properties of `tests/fuzz_test.ts` (see `tests/_fuzz_cases.ts`) for as
 * many cases as asked.
 *
 *     deno run -A tools/fuzz.ts 200000              # 200,000 cases, random seed
 *     deno run -A tools/fuzz.ts 200000 --seed 42    # reproducible
 *     deno run -A tools/fuzz.ts 200000 --jobs 4     # 4 workers (default: 2)
 *     deno run -A tools/fuzz.ts 1 --seed S --path P # replay a counterexample
 *
 * Prints progress every 1,000 cases and, for a failure, the
 * shrunk counterexample with its seed and path. Exit code 1 on a failure.
 *
 * @module
 */
import {
  describeFailure,
  type FuzzStats,
  loadCorpus,
  runFuzz,
} from "../tests/_fuzz_cases.ts";

function usage(): never {
  console.error(
    "usage: deno run -A tools/fuzz.ts <cases> [--seed N] [--jobs N] [--path P] [--timeout MS]",
  );
  Deno.exit(2);
}

const args = [...Deno.args];
const total = Number(args.shift());
if (!Number.isSafeInteger(total) || total < 1) usage();
const flags = new Map<string, string>();
while (args.length > 0) {
  const flag = args.shift()!;
  const value = args.shift();
  if (!flag.startsWith("--") || value === undefined) usage();
  flags.set(flag.slice(2), value);
}
const seed = Number(flags.get("seed") ?? Date.now() % 2 ** 31);
const path = flags.get("path");
const jobs = path === undefined ? Number(flags.get("jobs") ?? 2) : 1;
const timeoutMs = Number(flags.get("timeout") ?? 20_000);
if (![seed, jobs, timeoutMs].every(Number.isFinite) || jobs < 1) usage();

const fixtures = await loadCorpus();
console.log(
  `fuzz: ${total} cases over ${fixtures.length} fixtures, ${jobs} job(s), seeds ${seed}..${
    seed + jobs - 1
  }, timeout ${timeoutMs} ms per case`,
);
const started = performance.now();
const done = new Array<number>(jobs).fill(0);
let printed = 0;
const runs = await Promise.all(
  Array.from({ length: jobs }, (_, k) => {
    const numRuns = Math.floor(total / jobs) + (k < total % jobs ? 1 : 0);
    return runFuzz(fixtures, {
      numRuns,
      seed: seed + k,
      timeoutMs,
      ...(path === undefined ? {} : { path }),
      onCase: (s: FuzzStats) => {
        done[k] = s.cases;
        const all = done.reduce((a, b) => a + b, 0);
        if (all >= printed + 1000) {
          printed = all - (all % 1000);
          const secs = (performance.now() - started) / 1000;
          console.log(
            `  ${all}/${total} cases, ${
              Math.round(all / secs)
            }/s; job ${k}: ${s.syntaxErrors} header refusals, ${s.appends} appends, ${s.crossed} crossed, windowed≠full ${s.windowDiffers} (messages too, duplicate ids: ${s.windowDuplicateDiffers})`,
          );
        }
      },
    });
  }),
);
const secs = ((performance.now() - started) / 1000).toFixed(1);
let failed = false;
for (const [k, { details, stats }] of runs.entries()) {
  if (details.failed) {
    failed = true;
    console.log(`\njob ${k} FAILED:\n${describeFailure(fixtures, details)}`);
  } else {
    console.log(
      `job ${k} (seed ${
        seed + k
      }): ${stats.cases} cases, ${stats.loads} loads, ${stats.entries} entries, ${stats.issues} issues, ${stats.syntaxErrors} header refusals, ${stats.appends} appends, ${stats.crossed} crossed, windowed≠full ${stats.windowDiffers} (messages too, duplicate ids: ${stats.windowDuplicateDiffers}); walks ${
        JSON.stringify(stats.walks)
      }`,
    );
  }
}
console.log(`fuzz: ${failed ? "FAILED" : "ok"} in ${secs} s`);
Deno.exit(failed ? 1 : 0);
