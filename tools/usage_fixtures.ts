/**
 * The data dirs of `fixtures/usage/` and omp's own figures for each.
 *
 *     deno run -A tools/usage_fixtures.ts            # write the data dirs, then ask omp
 *     deno run -A tools/usage_fixtures.ts --figures  # only ask omp again
 *
 * `omp-s1` and `omp-s2` are the sessions real omp writes through its API
 * (`oracle.ts write`: main, fork, branched copy, subagent, reset, edge,
 * empty); the others are written here, line by line in omp's shape. Each
 * `<name>.omp.json` is what `oracle.ts stats <name>` printed: omp-stats'
 * totals, by model and by folder.
 *
 * @module
 */

import { join } from "node:path";
import { askOmp, ompOracle } from "./omp_oracle.ts";

const OUT = new URL("../fixtures/usage/", import.meta.url).pathname;

type Line = Record<string, unknown>;

/** A session file's lines: a header, then entries. */
interface Session {
  folder: string;
  name: string;
  lines: Line[];
  /** Text after the last line's `\n` (a torn or unterminated line). */
  tail?: string;
  /** Text replaced once written (what JSON.stringify cannot write, such as `1e999`). */
  replace?: [string, string][];
}

const APP = "--home-dev-app--";
const OTHER = "--home-dev-other--";

function header(id: string, timestamp: string, cwd: string, extra: Line = {}) {
  return { type: "session", version: 3, id, timestamp, cwd, ...extra };
}

function fileName(timestamp: string, id: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`;
}

function user(id: string, parentId: string | null, at: string, text: string) {
  return {
    type: "message",
    id,
    parentId,
    timestamp: at,
    message: {
      role: "user",
      content: [{ type: "text", text }],
      timestamp: Date.parse(at),
    },
  };
}

interface Call {
  model?: string;
  provider?: string;
  usage?: unknown;
  stopReason?: string;
  errorMessage?: string;
  noApi?: boolean;
}

function usage(input: number, output: number, cost: unknown = "auto"): Line {
  const u: Line = {
    input,
    output,
    cacheRead: Math.round(input / 4),
    cacheWrite: Math.round(input / 10),
    totalTokens: input + output + Math.round(input / 4) +
      Math.round(input / 10),
  };
  if (cost === "auto") {
    const i = input * 3e-6, o = output * 15e-6;
    u.cost = { input: i, output: o, cacheRead: 0, cacheWrite: 0, total: i + o };
  } else if (cost !== "none") u.cost = cost;
  return u;
}

function assistant(
  id: string,
  parentId: string | null,
  at: string,
  call: Call = {},
): Line {
  const message: Line = {
    role: "assistant",
    content: [{ type: "text", text: `Reply ${id}.` }],
    ...(call.noApi ? {} : { api: "anthropic-messages" }),
    provider: call.provider ?? "anthropic",
    model: call.model ?? "claude-sonnet-4-5",
    usage: call.usage ?? usage(1000, 100),
    stopReason: call.stopReason ?? "stop",
    ...(call.errorMessage ? { errorMessage: call.errorMessage } : {}),
    timestamp: Date.parse(at),
  };
  if (call.stopReason === "none") delete message.stopReason;
  return { type: "message", id, parentId, timestamp: at, message };
}

function sideCall(id: string, parentId: string | null, at: string): Line {
  return {
    type: "model_usage",
    id,
    parentId,
    timestamp: at,
    purpose: "title",
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-haiku-4-5",
    usage: usage(300, 12),
    stopReason: "stop",
  };
}

const T = (day: number, h: number) =>
  `2026-03-0${day}T${String(h).padStart(2, "0")}:00:00.000Z`;

/** Forks of forks (parent by id and by path), a branched copy, a copy made by hand, a subagent. */
function forks(): Session[] {
  const rootId = "01900000-0000-7000-8000-000000000001";
  const root = fileName(T(1, 10), rootId);
  const r = [
    header(rootId, T(1, 10), "/home/dev/app"),
    user("r0000001", null, T(1, 10), "Add a test."),
    assistant("r0000002", "r0000001", T(1, 11)),
    sideCall("r0000003", "r0000002", T(1, 11)),
    user("r0000004", "r0000003", T(1, 12), "Again."),
    assistant("r0000005", "r0000004", T(1, 12), {
      stopReason: "error",
      errorMessage: "overloaded",
    }),
  ];
  const f1Id = "01900000-0000-7000-8000-000000000002";
  const f1 = [
    header(f1Id, T(2, 9), "/home/dev/app", { parentSession: rootId }),
    ...r.slice(1),
    user("f1000001", "r0000005", T(2, 9), "Go on."),
    assistant("f1000002", "f1000001", T(2, 10), { stopReason: "aborted" }),
  ];
  const f1Name = fileName(T(2, 9), f1Id);
  const f2Id = "01900000-0000-7000-8000-000000000003";
  const f2 = [
    header(f2Id, T(3, 9), "/home/dev/other", {
      parentSession: `/home/dev/.omp/agent/sessions/${APP}/${f1Name}`,
    }),
    ...f1.slice(1),
    user("f2000001", "f1000002", T(3, 9), "Elsewhere."),
    assistant("f2000002", "f2000001", T(3, 10), {
      provider: "openai",
      model: "gpt-5.1-codex",
    }),
  ];
  const f2Name = fileName(T(3, 9), f2Id);
  const bId = "01900000-0000-7000-8000-000000000004";
  const b = [
    header(bId, T(4, 9), "/home/dev/other", {
      parentSession: `/home/dev/.omp/agent/sessions/${OTHER}/${f2Name}`,
    }),
    ...f2.slice(1, 4), // root to r0000003 only, as a branched copy keeps one path
    assistant("b0000001", "r0000003", T(4, 10)),
  ];
  const subId = "01900000-0000-7000-8000-000000000005";
  const sub = [
    header(subId, T(1, 11), "/home/dev/app", {
      parentSession: `/home/dev/.omp/agent/sessions/${APP}/${root}`,
    }),
    {
      type: "session_init",
      id: "s0000001",
      parentId: null,
      timestamp: T(1, 11),
    },
    assistant("s0000002", "s0000001", T(1, 11), { model: "claude-haiku-4-5" }),
    assistant("s0000003", "s0000002", T(1, 11), { model: "claude-haiku-4-5" }),
  ];
  return [
    { folder: APP, name: root, lines: r },
    {
      folder: `${APP}/${root.slice(0, -6)}`,
      name: "0-Explore.jsonl",
      lines: sub,
    },
    { folder: APP, name: f1Name, lines: f1 },
    { folder: OTHER, name: f2Name, lines: f2 },
    { folder: OTHER, name: fileName(T(4, 9), bId), lines: b },
    // A copy made by hand (cp): same header, same entries, another name.
    { folder: OTHER, name: "copy-of-root.jsonl", lines: r },
  ];
}

/** Usages without a cost, with a zero cost, with only its parts. */
function noCost(): Session[] {
  const id = "01900000-0000-7000-8000-000000000011";
  const at = (m: number) => `2026-04-01T10:0${m}:00.000Z`;
  const u = (cost: unknown) => usage(2000, 200, cost);
  return [{
    folder: APP,
    name: fileName(at(0), id),
    lines: [
      header(id, at(0), "/home/dev/app"),
      assistant("c0000001", null, at(1), { usage: u("none") }),
      assistant("c0000002", "c0000001", at(2), { usage: u({ total: 0 }) }),
      assistant("c0000003", "c0000002", at(3), {
        provider: "local",
        model: "llama-local",
        usage: u("none"),
      }),
      assistant("c0000004", "c0000003", at(4), {
        provider: "openai",
        model: "gpt-5.1-codex",
        usage: u({ input: 0.004, output: 0.002 }),
      }),
      assistant("c0000005", "c0000004", at(5), {
        model: "claude-haiku-4-5",
      }),
    ],
  }];
}

/** Malformed figures, each under its own model, and lines omp counts that we do not. */
function malformed(): Session[] {
  const id = "01900000-0000-7000-8000-000000000021";
  const at = (m: number) =>
    `2026-04-02T10:${String(m).padStart(2, "0")}:00.000Z`;
  const x = (model: string, u: unknown, more: Call = {}) => ({
    provider: "x",
    model,
    usage: u,
    ...more,
  });
  const ok = usage(1000, 100);
  const lines: Line[] = [
    header(id, at(0), "/home/dev/app"),
    assistant("m0000001", null, at(1), x("ok", ok)),
    assistant("m0000002", null, at(2), x("strings", { ...ok, input: "1000" })),
    assistant(
      "m0000003",
      null,
      at(3),
      x("infinite", { ...ok, output: 987654321 }),
    ),
    assistant("m0000004", null, at(4), x("negative", { ...ok, input: -1000 })),
    assistant("m0000005", null, at(5), x("fraction", { ...ok, output: 100.5 })),
    assistant(
      "m0000006",
      null,
      at(6),
      x("cost-string", { ...ok, cost: { total: "0.5" } }),
    ),
    assistant(
      "m0000007",
      null,
      at(7),
      x("cost-negative", { ...ok, cost: { total: -0.5 } }),
    ),
    assistant("m0000008", null, at(8), x("usage-array", [])),
    assistant("m0000009", null, at(9), x("usage-string", "1000 tokens")),
    assistant("m0000010", null, at(10), x("no-api", ok, { noApi: true })),
    assistant(
      "m0000011",
      null,
      at(11),
      x("no-stop-reason", ok, { stopReason: "none" }),
    ),
    assistant(
      "m0000012",
      null,
      at(12),
      x("no-stop-reason-error", ok, {
        stopReason: "none",
        errorMessage: "socket hang up",
      }),
    ),
    { ...assistant("m0000013", null, at(13), x("repeated-id", ok)) },
    {
      ...assistant(
        "m0000013",
        null,
        at(14),
        x("repeated-id", { ...ok, cost: { total: 0.25 } }),
      ),
    },
  ];
  return [
    {
      folder: APP,
      name: fileName(at(0), id),
      lines,
      replace: [['"output":987654321', '"output":1e999']],
      // A line that is not JSON (NaN), then a whole call without its newline.
      tail: `${
        JSON.stringify(assistant("m0000020", null, at(20), x("nan", ok)))
          .replace('"input":1000', '"input":NaN')
      }\n${
        JSON.stringify(
          assistant("m0000021", null, at(21), x("unterminated", ok)),
        )
      }`,
    },
    {
      // A *.jsonl that is no session (no header): omp counts its calls.
      folder: APP,
      name: "notes.jsonl",
      lines: [assistant("m0000030", null, at(30), x("no-header", ok))],
    },
  ];
}

/** Calls around midnight and the DST changes of Berlin and New York. */
function days(): Session[] {
  const id = "01900000-0000-7000-8000-000000000031";
  const times = [
    "2026-03-08T04:59:59.999Z", // New York: 03-07 23:59 (EST)
    "2026-03-08T05:00:00.000Z", // New York: 03-08 00:00 (its 23-hour day)
    "2026-03-09T03:59:59.999Z", // New York: 03-08 23:59 (EDT)
    "2026-03-28T22:59:59.999Z", // Berlin: 03-28 23:59 (CET)
    "2026-03-28T23:00:00.000Z", // Berlin: 03-29 00:00, a Sunday
    "2026-03-29T21:59:59.999Z", // Berlin: 03-29 23:59 (CEST: a 23-hour day)
    "2026-03-29T22:00:00.000Z", // Berlin: 03-30 00:00, a Monday
    "2026-10-24T22:00:00.000Z", // Berlin: 10-25 00:00 (CEST)
    "2026-10-25T22:59:59.999Z", // Berlin: 10-25 23:59 (CET: a 25-hour day)
    "2026-10-25T23:00:00.000Z", // Berlin: 10-26 00:00
  ];
  const lines: Line[] = [
    header(id, "2026-03-07T00:00:00.000Z", "/home/dev/app"),
  ];
  times.forEach((at, i) => {
    lines.push(assistant(`d00000${String(i).padStart(2, "0")}`, null, at, {
      usage: usage(100 * (i + 1), 10),
    }));
  });
  // No time at all: counted, on no day.
  const timeless = assistant("d0000099", null, "", { usage: usage(5, 5) });
  delete timeless.timestamp;
  delete (timeless.message as Line).timestamp;
  lines.push(timeless);
  return [{
    folder: APP,
    name: fileName("2026-03-07T00:00:00.000Z", id),
    lines,
  }];
}

/** A version 1 file (no entry ids: omp counts none) and a version 2 file (ids). */
function legacy(): Session[] {
  const at = "2026-02-01T10:00:00.000Z";
  const v1 = assistant("", null, at);
  delete v1.id;
  delete v1.parentId;
  return [
    {
      folder: APP,
      name: fileName(at, "01900000-0000-7000-8000-000000000041"),
      lines: [
        {
          type: "session",
          id: "01900000-0000-7000-8000-000000000041",
          timestamp: at,
          cwd: "/home/dev/app",
        },
        v1,
        v1,
      ],
    },
    {
      folder: APP,
      name: fileName(at, "01900000-0000-7000-8000-000000000042"),
      lines: [
        header("01900000-0000-7000-8000-000000000042", at, "/home/dev/app", {
          version: 2,
        }),
        assistant("v2000001", null, at),
      ],
    },
  ];
}

const BUILT: Record<string, () => Session[]> = {
  forks,
  "no-cost": noCost,
  malformed,
  days,
  legacy,
};

async function writeDataDir(name: string, sessions: Session[]): Promise<void> {
  const dir = join(OUT, name);
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  for (const s of sessions) {
    const folder = join(dir, "sessions", s.folder);
    await Deno.mkdir(folder, { recursive: true });
    let text = s.lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
    for (const [from, to] of s.replace ?? []) text = text.replace(from, to);
    await Deno.writeTextFile(join(folder, s.name), text + (s.tail ?? ""));
  }
}

async function main(): Promise<number> {
  const oracle = await ompOracle("usage-fixtures");
  if (oracle === undefined) return 1;
  const names = [...Object.keys(BUILT), "omp-s1", "omp-s2"];
  if (!Deno.args.includes("--figures")) {
    for (const [name, build] of Object.entries(BUILT)) {
      await writeDataDir(name, build());
    }
    for (const seed of ["1", "2"]) {
      const tmp = await Deno.makeTempDir({ prefix: "xdev-usage-omp-" });
      const w = await askOmp(oracle, [
        "write",
        tmp,
        "--seed",
        seed,
        "--size",
        "small",
      ]);
      if (w.code !== 0) throw new Error(`oracle write failed: ${w.stderr}`);
      const dir = join(OUT, `omp-s${seed}`);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      await Deno.mkdir(dir, { recursive: true });
      await new Deno.Command("cp", {
        args: ["-r", join(tmp, "agent", "sessions"), dir],
      }).output();
      await Deno.remove(tmp, { recursive: true });
    }
  }
  for (const name of names) {
    const r = await askOmp(oracle, ["stats", join(OUT, name)]);
    if (r.code !== 0 || r.json === undefined) {
      throw new Error(`oracle stats ${name} failed: ${r.stderr}`);
    }
    const { oracle: who, overall, byModel } = r.json;
    await Deno.writeTextFile(
      join(OUT, `${name}.omp.json`),
      `${JSON.stringify({ oracle: who, overall, byModel }, null, 2)}\n`,
    );
    console.log(`${name}: ${JSON.stringify(overall)}`);
  }
  return 0;
}

if (import.meta.main) Deno.exitCode = await main();
