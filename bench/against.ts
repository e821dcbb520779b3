/**
 * The README's usage, search and list rows: this checkout against another
 * (0.3.11), alternating fresh processes, medians, and whether both gave the
 * same answer.
 *
 *     deno run -A bench/against.ts <case> <other checkout> <one-session data dir> <many-sessions data dir> [runs]
 *
 * Cases: usage-100M, usage-10k, scan-100M, scan-100M-hits, isearch-10k,
 * ilist-10k, list-10k, iusage-10k. The indexed cases need an index in the
 * many-sessions data dir (`deno task cli index --data-dir D`); 0.3.11 reads
 * the same schema. 0.3.11 took `{ index: false }` where 0.4.0 reads the files
 * by default, and used the index by default where 0.4.0 asks `SessionIndex`.
 *
 * @module
 */

const [name, other, U100, MANY] = Deno.args as [string, string, string, string];
const OLD = `${other}/mod.ts`;
const NEW = new URL("../mod.ts", import.meta.url).pathname;
const t = (body: string) =>
  `const t0 = performance.now(); ${body}; console.log(JSON.stringify({ ms: performance.now() - t0, out }));`;
const cases: Record<string, [string, string][]> = {
  "usage-100M": [
    [
      "0.3.11",
      `const { usageReport } = await import("${OLD}"); let out; ${
        t(`const r = await usageReport("${U100}", { index: false }); out = [r.totals.requests, r.totals.cost, r.source]`)
      }`,
    ],
    [
      "0.4.0",
      `const { usageReport } = await import("${NEW}"); let out; ${
        t(`const r = await usageReport("${U100}"); out = [r.totals.requests, r.totals.cost, r.source]`)
      }`,
    ],
  ],
  "usage-10k": [
    [
      "0.3.11",
      `const { usageReport } = await import("${OLD}"); let out; ${
        t(`const r = await usageReport("${MANY}", { index: false }); out = [r.totals.requests, r.totals.cost, r.source]`)
      }`,
    ],
    [
      "0.4.0",
      `const { usageReport } = await import("${NEW}"); let out; ${
        t(`const r = await usageReport("${MANY}"); out = [r.totals.requests, r.totals.cost, r.source]`)
      }`,
    ],
  ],
  "scan-100M": [
    [
      "0.3.11",
      `const { searchSessions } = await import("${OLD}"); let out; ${
        t(`const r = await searchSessions("${U100}", "zqxjvkw", { index: false }); out = [r.hits.length, r.scanned]`)
      }`,
    ],
    [
      "0.4.0",
      `const { searchSessions } = await import("${NEW}"); let out; ${
        t(`const r = await searchSessions("${U100}", "zqxjvkw"); out = [r.hits.length, r.scanned]`)
      }`,
    ],
  ],
  "scan-100M-hits": [
    [
      "0.3.11",
      `const { searchSessions } = await import("${OLD}"); let out; ${
        t(`const r = await searchSessions("${U100}", "the", { index: false, limit: 50 }); out = [r.hits.length, r.hits[0]?.entryId, r.scanned]`)
      }`,
    ],
    [
      "0.4.0",
      `const { searchSessions } = await import("${NEW}"); let out; ${
        t(`const r = await searchSessions("${U100}", "the", { limit: 50 }); out = [r.hits.length, r.hits[0]?.entryId, r.scanned]`)
      }`,
    ],
  ],
  "isearch-10k": [
    [
      "0.3.11",
      `const { searchSessions } = await import("${OLD}"); let out; ${
        t(`const r = await searchSessions("${MANY}", "the"); out = [r.indexed, r.hits.length, r.hits.map(h => h.entryId).join().length, r.scanned]`)
      }`,
    ],
    [
      "0.4.0",
      `const { SessionIndex } = await import("${NEW}"); let out; ${
        t(`using i = await SessionIndex.open("${MANY}", { create: false }); const r = await i.search("the"); out = [r.indexed, r.hits.length, r.hits.map(h => h.entryId).join().length, r.scanned]`)
      }`,
    ],
  ],
  "ilist-10k": [
    [
      "0.3.11",
      `const { SessionIndex } = await import("${OLD}"); let out; ${
        t(`using i = await SessionIndex.open("${MANY}", { create: false }); const r = await i.list(); out = [r.length, r[0]?.id]`)
      }`,
    ],
    [
      "0.4.0",
      `const { SessionIndex } = await import("${NEW}"); let out; ${
        t(`using i = await SessionIndex.open("${MANY}", { create: false }); const r = await i.list(); out = [r.length, r[0]?.id]`)
      }`,
    ],
  ],
  "list-10k": [
    [
      "0.3.11",
      `const { listSessions } = await import("${OLD}"); let out; ${
        t(`const r = await listSessions("${MANY}", { index: false }); out = [r.length, r[0]?.id]`)
      }`,
    ],
    [
      "0.4.0",
      `const { listSessions } = await import("${NEW}"); let out; ${
        t(`const r = await listSessions("${MANY}"); out = [r.length, r[0]?.id]`)
      }`,
    ],
  ],
  "iusage-10k": [
    [
      "0.3.11",
      `const { usageReport } = await import("${OLD}"); let out; ${
        t(`const r = await usageReport("${MANY}"); out = [r.totals.requests, r.totals.cost, r.source]`)
      }`,
    ],
    [
      "0.4.0",
      `const { SessionIndex } = await import("${NEW}"); let out; ${
        t(`using i = await SessionIndex.open("${MANY}", { create: false }); const r = await i.usageReport(); out = [r.totals.requests, r.totals.cost, r.source]`)
      }`,
    ],
  ],
};
// Run only when asked (`deno bench bench/` loads every file of the folder).
if (name !== undefined) {
  const runs = Number(Deno.args[4] ?? 7);
  const ms: Record<string, number[]> = {};
  const outs: Record<string, string> = {};
  for (let i = 0; i < runs; i++) {
    for (const [who, code] of cases[name]!) {
      const p = await new Deno.Command(Deno.execPath(), {
        args: ["eval", "--quiet", code],
        stdout: "piped",
        stderr: "piped",
        cwd: "/tmp",
      }).output();
      const text = new TextDecoder().decode(p.stdout).trim().split("\n").at(
        -1,
      )!;
      try {
        const r = JSON.parse(text);
        (ms[who] ??= []).push(r.ms);
        outs[who] = JSON.stringify(r.out);
      } catch {
        console.error(who, new TextDecoder().decode(p.stderr).slice(-400));
        Deno.exit(1);
      }
    }
  }
  const med = (v: number[]) => v.toSorted((a, b) => a - b)[v.length >> 1]!;
  const [a, b] = Object.keys(ms);
  console.log(
    JSON.stringify({
      case: name,
      runs,
      [a!]: Math.round(med(ms[a!]!)),
      [b!]: Math.round(med(ms[b!]!)),
      ratio: +(med(ms[b!]!) / med(ms[a!]!)).toFixed(2),
      same: outs[a!] === outs[b!],
      outs,
    }),
  );
}
