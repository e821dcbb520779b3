/**
 * `usageReport`: each call once (forks of forks, copies, subagents), days
 * across midnight and DST, the index and the files agreeing, deleted
 * files, reruns, `--since` without opening files, bad options.
 */

import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import {
  listSessions,
  Session,
  SessionIndex,
  type UsageReport,
  type UsageReportOptions,
} from "../../mod.ts";
import { realFs, setFs } from "../../src/_fs.ts";
import { buildIndex, fixtureCopy } from "./_usage_dirs.ts";
import { backdate, tempDir } from "../_session_files.ts";
import { recording, withFs } from "../_fs_seam.ts";
import { reported } from "../_indexed.ts";

const ROOT = "01900000-0000-7000-8000-000000000001";
const FORK = "01900000-0000-7000-8000-000000000002";
const FORK_OF_FORK = "01900000-0000-7000-8000-000000000003";
const BRANCHED = "01900000-0000-7000-8000-000000000004";
const SUBAGENT = "01900000-0000-7000-8000-000000000005";

function requests(report: UsageReport): [string, number][] {
  return report.rows.map((r) => [r.key, r.requests]);
}

/** The same report from the files and from the index (the index made here). */
async function bothWays(
  dir: string,
  options: UsageReportOptions,
): Promise<UsageReport> {
  const files = await reported(dir, { ...options, index: false });
  await buildIndex(dir);
  const indexed = await reported(dir, options);
  equal(indexed.source, "index");
  deepStrictEqual({ ...indexed, source: "files" }, files);
  return files;
}

Deno.test("reported() counts what a fork copied once, in the session created first", async (t) => {
  await using copy = await fixtureCopy("forks");
  await t.step("by session: a fork adds only what it appended", async () => {
    const report = await bothWays(copy.dir, { by: "session" });
    deepStrictEqual(
      requests(report).sort(),
      [
        [ROOT, 3], // two turns and a title call; its copy by cp adds nothing
        [FORK, 1],
        [FORK_OF_FORK, 1], // parent named by path, in another cwd
        [BRANCHED, 1],
        [SUBAGENT, 2],
      ].sort(),
    );
    equal(report.totals.failedRequests, 1);
    equal(report.totals.abortedRequests, 1);
  });
  await t.step("by project: the cwd of the session that holds it", async () => {
    const report = await reported(copy.dir, { by: "project" });
    deepStrictEqual(requests(report).sort(), [
      ["/home/dev/app", 6],
      ["/home/dev/other", 2],
    ]);
  });
});

const DAYS: Record<string, Record<string, [string, number][]>> = {
  "Europe/Berlin": {
    day: [
      ["2026-03-08", 2],
      ["2026-03-09", 1],
      ["2026-03-28", 1],
      ["2026-03-29", 2], // 00:00 CET and 23:59 CEST: a day of 23 hours
      ["2026-03-30", 1],
      ["2026-10-25", 2], // 00:00 CEST and 23:59 CET: a day of 25 hours
      ["2026-10-26", 1],
      ["unknown", 1],
    ],
    week: [
      ["2026-03-02", 2],
      ["2026-03-09", 1],
      ["2026-03-23", 3], // Saturday and Sunday belong to Monday the 23rd
      ["2026-03-30", 1],
      ["2026-10-19", 2],
      ["2026-10-26", 1],
      ["unknown", 1],
    ],
    month: [["2026-03", 7], ["2026-10", 3], ["unknown", 1]],
  },
  "America/New_York": {
    day: [
      ["2026-03-07", 1],
      ["2026-03-08", 2], // 00:00 EST and 23:59 EDT
      ["2026-03-28", 2],
      ["2026-03-29", 2],
      ["2026-10-24", 1],
      ["2026-10-25", 2],
      ["unknown", 1],
    ],
  },
  UTC: {
    day: [
      ["2026-03-08", 2],
      ["2026-03-09", 1],
      ["2026-03-28", 2],
      ["2026-03-29", 2],
      ["2026-10-24", 1],
      ["2026-10-25", 2],
      ["unknown", 1],
    ],
  },
};

Deno.test("reported() puts calls on the days of a time zone, across midnight and DST", async (t) => {
  await using copy = await fixtureCopy("days");
  await buildIndex(copy.dir);
  for (const [timeZone, groupings] of Object.entries(DAYS)) {
    for (const [by, rows] of Object.entries(groupings)) {
      await t.step(`${timeZone}, by ${by}`, async () => {
        const options = { by: by as "day", timeZone };
        const indexed = await reported(copy.dir, options);
        const files = await reported(copy.dir, { ...options, index: false });
        deepStrictEqual(requests(indexed), rows);
        deepStrictEqual(requests(files), rows);
      });
    }
  }
  await t.step("since and until: whole days of the zone", async () => {
    for (const index of [true, false]) {
      const day = await reported(copy.dir, {
        timeZone: "Europe/Berlin",
        since: "2026-03-29",
        until: "2026-03-29",
        index,
      });
      deepStrictEqual(requests(day), [["2026-03-29", 2]]);
      const from = await reported(copy.dir, {
        by: "model",
        timeZone: "America/New_York",
        since: "2026-03-08",
        until: "2026-10-24",
        index,
      });
      equal(from.totals.requests, 7); // no call without a time
    }
  });
});

Deno.test("reported() gives the same report from the index as from the files", async (t) => {
  for (const name of ["forks", "omp-s1", "days", "malformed"]) {
    await using copy = await fixtureCopy(name);
    await buildIndex(copy.dir);
    for (const by of ["day", "week", "month", "session", "model", "project"]) {
      await t.step(`${name} by ${by}`, async () => {
        for (
          const range of [{}, { since: "2026-03-02", until: "2026-09-28" }]
        ) {
          const options = {
            by: by as "day",
            timeZone: "Asia/Kathmandu",
            ...range,
          };
          const indexed = await reported(copy.dir, options);
          const files = await reported(copy.dir, {
            ...options,
            index: false,
            onSkip: () => {},
          });
          deepStrictEqual({ ...indexed, source: "files" }, files);
        }
      });
    }
  }
});

Deno.test("reported() keeps counting a deleted file through the index; excludeDeleted leaves it out", async () => {
  await using copy = await fixtureCopy("forks");
  await buildIndex(copy.dir);
  const root = join(
    copy.dir,
    "sessions/--home-dev-app--/2026-03-01T10-00-00-000Z_" + ROOT,
  );
  const before = await reported(copy.dir, { by: "session" });
  await Deno.remove(`${root}.jsonl`);
  await Deno.remove(root, { recursive: true }); // its subagent's folder
  const after = await reported(copy.dir, { by: "session" });
  deepStrictEqual(after, before);
  const live = await reported(copy.dir, {
    by: "session",
    excludeDeleted: true,
  });
  // The root's calls live on in its fork's copies; its subagent's do not.
  deepStrictEqual(
    requests(live).sort(),
    [
      [BRANCHED, 1],
      [FORK, 4],
      [FORK_OF_FORK, 1],
    ].sort(),
  );
  const files = await reported(copy.dir, { by: "session", index: false });
  deepStrictEqual({ ...live, source: "files" }, files);
  // A rebuild reads every live file again and keeps the deleted one's calls,
  // each copy still counted once.
  {
    using index = await SessionIndex.open(copy.dir);
    await index.refresh({ rebuild: true });
  }
  deepStrictEqual(await reported(copy.dir, { by: "session" }), before);
  deepStrictEqual(
    await reported(copy.dir, { by: "session", excludeDeleted: true }),
    live,
  );
});

Deno.test("reported() through an index a list made (heads only) counts every call, as the files do", async () => {
  await using copy = await fixtureCopy("forks");
  const files = await reported(copy.dir, { by: "session", index: false });
  (await SessionIndex.open(copy.dir)).close(); // an empty index, as cli list makes
  const listed = await listSessions(copy.dir, { includeSubagents: true });
  equal(listed.length > 0, true);
  const indexed = await reported(copy.dir, { by: "session" });
  equal(indexed.source, "index");
  deepStrictEqual({ ...indexed, source: "files" }, files);
  // And the rows the list made are now whole: a refresh has nothing to read.
  using index = await SessionIndex.open(copy.dir);
  equal((await index.refresh()).refreshed, 0);
});

Deno.test("reported() through an index that opens recorded (rows whose facets are behind) counts every call, as the files do", async () => {
  await using copy = await fixtureCopy("forks");
  const files = await reported(copy.dir, { by: "session", index: false });
  (await SessionIndex.open(copy.dir)).close(); // an empty index
  const listed = await listSessions(copy.dir, { includeSubagents: true });
  for (const { path } of listed) {
    // An open records the file's row and state, not what the facets read.
    await using _ = await Session.open(path);
  }
  const indexed = await reported(copy.dir, { by: "session" });
  equal(indexed.source, "index");
  deepStrictEqual({ ...indexed, source: "files" }, files);
});

Deno.test("reported() through the index reads again only the file that changed", async () => {
  await using copy = await fixtureCopy("forks");
  await backdate(copy.dir); // else the files written just now are checked again
  await buildIndex(copy.dir);
  const fork = join(
    copy.dir,
    "sessions/--home-dev-app--/2026-03-02T09-00-00-000Z_" + FORK + ".jsonl",
  );
  const line = await Deno.readTextFile(fork).then((t) =>
    t.trimEnd().split("\n").at(-1)!.replace('"f1000002"', '"f1000003"')
      .replace('"parentId":"f1000001"', '"parentId":"f1000002"')
  );
  await Deno.writeTextFile(fork, `${line}\n`, { append: true });
  const opened: string[] = [];
  const report = await withFs(
    recording(opened),
    () => reported(copy.dir, { by: "session" }),
  );
  deepStrictEqual([...new Set(opened)], [fork]);
  equal(report.rows.find((r) => r.key === FORK)?.requests, 2);
});

Deno.test("reported() with since opens no file last modified before that day", async () => {
  await using copy = await fixtureCopy("forks");
  const old = new Date("2026-03-01T12:00:00Z");
  const files: string[] = [];
  for await (
    const e of Deno.readDir(join(copy.dir, "sessions/--home-dev-other--"))
  ) {
    const path = join(copy.dir, "sessions/--home-dev-other--", e.name);
    files.push(path);
    await Deno.utime(path, old, old);
  }
  const opened: string[] = [];
  const restore = setFs({
    ...realFs,
    open: (path, options) => {
      opened.push(path);
      return realFs.open(path, options);
    },
    readFile: (path) => {
      opened.push(path);
      return realFs.readFile(path);
    },
  });
  let report;
  try {
    report = await reported(copy.dir, {
      since: "2026-03-02",
      timeZone: "UTC",
      index: false,
    });
  } finally {
    restore();
  }
  equal(opened.length > 0, true, "the other files are opened");
  deepStrictEqual(opened.filter((p) => files.includes(p)), []);
  deepStrictEqual(requests(report), [["2026-03-02", 1]]);
});

Deno.test("reported() counts malformed figures as 0 and says how many calls had them", async () => {
  await using malformed = await fixtureCopy("malformed");
  const skipped: string[] = [];
  const m = await reported(malformed.dir, {
    by: "model",
    onSkip: (path, reason) =>
      skipped.push(`${path.split("/").at(-1)}: ${reason}`),
  });
  equal(m.totals.requests, 12); // the last line without its newline counts, as in omp
  equal(m.malformedRequests, 7); // string, 1e999, negative, fraction, 2 costs, array
  equal(m.rows.find((r) => r.key === "x/infinite")?.outputTokens, 0);
  equal(skipped.length, 1); // notes.jsonl: no header
  await using noCost = await fixtureCopy("no-cost");
  const n = await reported(noCost.dir, { by: "model" });
  equal(n.unpricedRequests, 3);
  equal(n.totals.cost, 0.006 + 0.0045000000000000005);
});

Deno.test("reported() refuses an unknown grouping, a bad day and an unknown zone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await rejects(
      () => reported(dir, { by: "year" as "day" }),
      (e) =>
        e instanceof TypeError &&
        /Cannot report usage by "year"/.test(e.message),
    );
    await rejects(
      () => reported(dir, { since: "2026-02-30" }),
      (e) =>
        e instanceof TypeError &&
        /"2026-02-30": it is not a date/.test(e.message),
    );
    await rejects(
      () => reported(dir, { timeZone: "Mars/Olympus" }),
      (e) =>
        e instanceof RangeError &&
        /"Mars\/Olympus": it is unknown/.test(e.message),
    );
    const empty = await reported(dir);
    deepStrictEqual([empty.rows, empty.totals.requests], [[], 0]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reported() counts each of thousands of calls once: hex ids and others, copies, an id reused at another time", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--p--");
  await Deno.mkdir(folder, { recursive: true });
  const t0 = Date.parse("2026-03-01T10:00:00.000Z");
  const header = (id: string, ms: number) =>
    JSON.stringify({
      type: "session",
      version: 3,
      id,
      timestamp: new Date(ms).toISOString(),
      cwd: "/p",
    });
  const call = (id: string, parentId: string | null, ms: number) =>
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: new Date(ms).toISOString(),
      message: {
        role: "assistant",
        content: [{ type: "text", text: "ok" }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "m",
        usage: {
          input: 1,
          output: 2,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 3,
          cost: { total: 0.001 },
        },
        stopReason: "stop",
        timestamp: ms,
      },
    });
  // 5,000 distinct ids of 8 hex digits (more than the seen table's first size).
  const ids = Array.from(
    { length: 5000 },
    (_, i) =>
      (Math.imul(i + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, "0"),
  );
  const first = [
    header(ROOT, t0),
    ...ids.map((id, i) => call(id, ids[i - 1] ?? null, t0 + i * 1000)),
    call("msg-a", ids.at(-1)!, t0 + 6e6),
    call("msg-b", "msg-a", t0 + 6e6 + 1),
    call(ids[10]!, "msg-b", t0 + 7e6), // an id the same file gave: passed over
  ];
  const write = (name: string, lines: string[]) =>
    Deno.writeTextFile(join(folder, name), lines.join("\n") + "\n");
  await write("a.jsonl", first);
  await write("b.jsonl", [ // a copy of the first, and two calls of its own
    header(FORK, t0 + 8e6),
    ...first.slice(1),
    call("0000beef", "msg-b", t0 + 8e6),
    call("msg-c", "0000beef", t0 + 8e6 + 1),
  ]);
  await write("c.jsonl", [
    header(FORK_OF_FORK, t0 + 9e6),
    call(ids[20]!, null, t0 + 9e6), // an id given before, at another time: counted
    call(ids[30]!, ids[20]!, t0 + 30 * 1000), // and at its time: passed over
  ]);
  await write("d.jsonl", [ // that reused id at its other time: passed over
    header(BRANCHED, t0 + 10e6),
    call(ids[20]!, null, t0 + 9e6),
    call("msg-d", ids[20]!, t0 + 10e6),
  ]);
  const report = await bothWays(dir.path, { by: "session" });
  deepStrictEqual(
    requests(report).sort(),
    [
      [BRANCHED, 1],
      [ROOT, 5002],
      [FORK, 2],
      [FORK_OF_FORK, 1],
    ].sort(),
  );
  equal(report.totals.requests, 5006);
  equal(report.totals.outputTokens, 2 * 5006);
});
