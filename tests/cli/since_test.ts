import { equal } from "node:assert/strict";
import { join } from "node:path";
import { cli } from "../_cli.ts";

/**
 * A data dir with one session: an answer at 23:30 and one at 00:30 in
 * Tokyo (UTC+9), on either side of Tokyo's midnight of March 2nd, and
 * both on March 1st in UTC.
 */
async function twoSidesOfMidnight(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "xdev-since-test-" });
  const dir = join(root, "sessions", "-home-dev-app");
  await Deno.mkdir(dir, { recursive: true });
  const answer = (id: string, parentId: string, timestamp: string) => ({
    type: "message",
    id,
    parentId,
    timestamp,
    message: {
      role: "assistant",
      content: [{ type: "text", text: "the marker answer" }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: { input: 10, output: 5, cost: { total: 0.01 } },
      stopReason: "stop",
    },
  });
  const lines = [
    {
      type: "session",
      version: 3,
      id: "01a0f000-0000-7000-8000-00000000cccc",
      timestamp: "2026-03-01T14:00:00.000Z",
      cwd: "/home/dev/app",
    },
    answer("00000001", "", "2026-03-01T14:30:00.000Z"),
    answer("00000002", "00000001", "2026-03-01T15:30:00.000Z"),
  ];
  (lines[1] as { parentId: string | null }).parentId = null;
  await Deno.writeTextFile(
    join(
      dir,
      "2026-03-01T14-00-00-000Z_01a0f000-0000-7000-8000-00000000cccc.jsonl",
    ),
    lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
  );
  return root;
}

/** How many answers search finds and usage counts, with `TZ` and `args`. */
async function counted(
  root: string,
  tz: string,
  args: string[],
): Promise<{ search: number; usage: number }> {
  const env = { TZ: tz };
  const base = ["--data-dir", root, "--no-index", "--json", ...args];
  const s = await cli(["search", ...base, "marker"], env);
  const u = await cli(["usage", ...base], env);
  equal(u.code, 0, u.stderr);
  const hits = JSON.parse(s.stdout).hits.length;
  equal(s.code, hits === 0 ? 1 : 0, s.stderr);
  return { search: hits, usage: JSON.parse(u.stdout).totals.requests };
}

/** The requests `usage` counts in Tokyo with `args`. */
async function tokyoRequests(root: string, args: string[]): Promise<number> {
  const base = ["usage", "--data-dir", root, "--no-index", "--json"];
  const u = await cli([...base, ...args], { TZ: "Asia/Tokyo" });
  equal(u.code, 0, u.stderr);
  return JSON.parse(u.stdout).totals.requests;
}

Deno.test("cli search --since and usage --since mean the same: a local day, or an ISO time", async (t) => {
  const root = await twoSidesOfMidnight();
  try {
    await t.step(
      "a day in Tokyo starts at Tokyo's midnight, for both",
      async () => {
        const tokyo = await counted(root, "Asia/Tokyo", [
          "--since",
          "2026-03-02",
        ]);
        equal(tokyo.search, 1);
        equal(tokyo.usage, 1);
      },
    );
    await t.step(
      "the same day in UTC starts later: neither answer",
      async () => {
        const utc = await counted(root, "UTC", ["--since", "2026-03-02"]);
        equal(utc.search, 0);
        equal(utc.usage, 0);
      },
    );
    await t.step(
      "usage --utc groups in UTC; its --since stays local",
      async () => {
        equal(await tokyoRequests(root, ["--utc", "--since", "2026-03-02"]), 1);
      },
    );
    await t.step("an ISO time with Z is that moment, whatever TZ", async () => {
      for (const tz of ["Asia/Tokyo", "America/New_York"]) {
        const at = await counted(root, tz, ["--since", "2026-03-01T15:00Z"]);
        equal(at.search, 1, tz);
        equal(at.usage, 1, tz);
      }
    });
    await t.step("usage --until a local day includes that day", async () => {
      equal(await tokyoRequests(root, ["--until", "2026-03-01"]), 1);
    });
    await t.step("not a day or a time: exit code 2 for both", async () => {
      for (const bad of ["2026-02-30", "2026-03-02T25:00", "tomorrow"]) {
        for (const c of [["search", "x"], ["usage"]]) {
          const r = await cli([...c, "--data-dir", root, "--since", bad]);
          equal(r.code, 2, `${c[0]} ${bad}: ${r.stderr}`);
        }
      }
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
