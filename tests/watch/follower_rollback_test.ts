/**
 * A writer's append cut back (a failed write rolled back with ftruncate, as
 * this library and omp do) and then retried, in every order a follower can
 * see it: the retried line is handed out once, nothing before it again,
 * nothing after it missed.
 */
import { deepStrictEqual } from "node:assert/strict";
import { join } from "node:path";
import { Follower, type FollowResync } from "../../src/watch/_follower.ts";
import { sessionBytes, tempDir, user } from "../_session_files.ts";

const line = (id: string, text: string) =>
  `${JSON.stringify(user(id, null, text))}\n`;

/**
 * One step: look until nothing is left, note the size, cut back to it,
 * note the ids handed out so far, or append.
 */
type Step = "look" | "mark" | "cut" | "snap" | string;

interface Run {
  ids: string[];
  /** The ids handed out at each "snap". */
  snaps: string[][];
  resyncs: FollowResync[];
  /** The size at the last "mark". */
  mark: number;
}

async function run(
  file: string,
  steps: Step[],
  entries = [user("00000001", null, "one")],
): Promise<Run> {
  await Deno.writeFile(file, sessionBytes(entries));
  const out: Run = { ids: [], snaps: [], resyncs: [], mark: -1 };
  const follower = await Follower.open(file, {
    from: "end",
    action: "Cannot follow",
    onResync: (r) => out.resyncs.push(r),
  });
  try {
    for (const step of steps) {
      if (step === "look") {
        for (let more = true; more;) {
          const look = await follower.look();
          out.ids.push(...look.entries.map((e) => e.id));
          more = look.more;
        }
      } else if (step === "mark") out.mark = (await Deno.stat(file)).size;
      else if (step === "cut") await Deno.truncate(file, out.mark);
      else if (step === "snap") out.snaps.push([...out.ids]);
      else await Deno.writeTextFile(file, step, { append: true });
    }
  } finally {
    await follower.close();
  }
  return out;
}

/** Torn bytes, and the line written in their place. */
const RETRIES: Record<string, [torn: string, retry: string]> = {
  "a longer line": [
    line("00000003", "first try").slice(0, -6),
    line("00000003", "second, and longer"),
  ],
  "a shorter line": [
    line("00000003", "x".repeat(300)).slice(0, -10),
    line("00000003", "short"),
  ],
  "a line as long as the torn bytes": [
    `${line("00000003", "abcd").slice(0, -1)} `,
    line("00000003", "wxyz"),
  ],
  "the same line whole": [
    line("00000003", "same").slice(0, 40),
    line("00000003", "same"),
  ],
};

/** When the follower looks: between the cut and the retry, or only after both. */
const ORDERS: Record<string, Step[]> = {
  "cut, look, retry": ["cut", "look"],
  "cut and retry, then look": ["cut"],
};

Deno.test("Follower hands out a retried line once after a rolled-back append, in each order it can see it", async (t) => {
  await using dir = await tempDir();
  const file = join(dir.path, "s.jsonl");
  const next = line("00000004", "next");
  // The session's first entry, the first line after the header; a line
  // after the first; a line after one handed out.
  for (const prior of ["none", "first", "handed out"] as const) {
    for (const [what, [torn, retry]] of Object.entries(RETRIES)) {
      for (const [order, cut] of Object.entries(ORDERS)) {
        const name = `${
          {
            none: "the first line of the body",
            first: "nothing handed out",
            "handed out": "after an entry handed out",
          }[prior]
        }; ${what}; ${order}`;
        await t.step(name, async () => {
          const before = prior === "handed out"
            ? [line("00000002", "kept"), "look"]
            : [];
          const r = await run(file, [
            ...before,
            "mark",
            torn,
            "look",
            ...cut,
            retry,
            "look",
            "snap",
            next,
            "look",
          ], prior === "none" ? [] : undefined);
          const want = [
            ...(prior === "handed out" ? ["00000002"] : []),
            "00000003",
            "00000004",
          ];
          deepStrictEqual(r.ids, want);
          // The retried line is handed out once written, not at the next write.
          deepStrictEqual(r.snaps, [want.slice(0, -1)]);
          // A line that starts as the torn bytes did is read on: no cut seen.
          const offsets = r.resyncs.map((e) => e.offset);
          deepStrictEqual(
            offsets,
            what === "the same line whole" && cut.length === 1 ? [] : [r.mark],
          );
        });
      }
    }
  }
});

Deno.test("Follower goes on after the last entry handed out when a batch it read part of is rolled back and written again", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "s.jsonl");
  const b = line("00000003", "b");
  const c = line("00000004", "c, written again");
  const r = await run(file, [
    line("00000002", "kept"),
    "look",
    "mark",
    b + line("00000004", "c, first try").slice(0, -8),
    "look",
    "cut",
    b + c,
    "look",
    line("00000005", "next"),
    "look",
  ]);
  deepStrictEqual(r.ids, ["00000002", "00000003", "00000004", "00000005"]);
  deepStrictEqual(
    r.resyncs.map((e) => [e.offset, e.after]),
    [[r.mark + b.length, "00000003"]],
  );
});
