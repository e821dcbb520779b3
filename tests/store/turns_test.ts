import assert from "node:assert/strict";
import { join } from "node:path";
import { Session, SessionIndex, usageReport } from "../../mod.ts";
import { generateFile } from "../../src/gen/generate.ts";
import { EventLoopTurns } from "../../src/fs/_turns.ts";
import { searchSessions } from "../../src/search/search.ts";
import { sessionBytes, tempDir, user } from "../_session_files.ts";

/** How often a 1 ms interval fires while `work` runs, and how long it ran. */
async function firesDuring(
  work: () => Promise<unknown>,
): Promise<{ fired: number; ms: number; longest: number }> {
  let fired = 0;
  let longest = 0;
  let last = performance.now();
  const interval = setInterval(() => {
    fired++;
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(interval);
  }
  const ms = performance.now() - started;
  return { fired, ms, longest: Math.max(longest, performance.now() - last) };
}

/** Work that never leaves the microtask queue for `ms`, giving turns or not. */
async function busy(ms: number, turns: EventLoopTurns | undefined) {
  const end = performance.now() + ms;
  while (performance.now() < end) await (turns?.give() ?? Promise.resolve());
}

Deno.test("EventLoopTurns gives timers a turn every ~20 ms of work that only awaits settled promises", async () => {
  const starved = await firesDuring(() => busy(150, undefined));
  assert.equal(starved.fired, 0, "the premise: such work holds every timer");
  const given = await firesDuring(() => busy(150, new EventLoopTurns()));
  assert.ok(given.fired >= 3, `${given.fired} fires in ${given.ms} ms`);
  assert.ok(given.fired <= 20, `${given.fired} fires: a turn ~20 ms apart`);
});

Deno.test("EventLoopTurns shared by workers gives one turn per ~20 ms of their work together", async () => {
  const turns = new EventLoopTurns();
  const end = performance.now() + 400;
  const worker = async () => {
    while (performance.now() < end) {
      await turns.give();
      const file = performance.now() + 1; // a small file's work
      while (performance.now() < file) { /* reading */ }
    }
  };
  const { fired, ms } = await firesDuring(() =>
    Promise.all(Array.from({ length: 4 }, worker))
  );
  // A turn each held the loop 4 × 20 ms between two fires.
  assert.ok(fired >= ms / 50, `${fired} fires in ${Math.round(ms)} ms`);
});

Deno.test("EventLoopTurns lets the host's I/O go on: a pipe to a child process", async () => {
  const child = new Deno.Command("cat", { stdin: "piped", stdout: "piped" })
    .spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  let trips = 0;
  let stop = false;
  const echo = (async () => {
    while (!stop) {
      await writer.write(new Uint8Array([1]));
      await reader.read();
      trips++;
    }
  })();
  try {
    await new Promise((r) => setTimeout(r, 50)); // the pipe is going
    const ticking = async (turns: EventLoopTurns | undefined) => {
      const before = trips;
      const end = performance.now() + 300;
      while (performance.now() < end) {
        await turns?.give();
        const file = performance.now() + 1;
        while (performance.now() < file) { /* reading */ }
      }
      return trips - before;
    };
    const starved = await ticking(undefined); // one may have been under way
    assert.ok(starved <= 1, `the premise: no turn, no I/O (${starved})`);
    const trips300 = await ticking(new EventLoopTurns());
    assert.ok(trips300 >= 5, `${trips300} round trips in 300 ms`);
  } finally {
    stop = true;
    await echo;
    reader.releaseLock();
    await writer.close();
    await child.stdout.cancel();
    await child.status;
  }
});

Deno.test("Session.open of a large file without checkpoints lets timers run while it reads", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "big.jsonl");
  await generateFile(path, { size: 192 << 20, seed: 3, checkpoints: false });
  const { fired, ms, longest } = await firesDuring(async () => {
    const session = await Session.open(path);
    session.buildContext();
    await session.close();
  });
  // Read synchronously from the page cache, its walk over every line
  // held the timers until it was done (a gap of ~80 % of the open here);
  // now a turn per ~20 ms of reading. 192 MB: on a fast machine the open
  // takes ~60 ms, gaps of ~20 ms with turns and of ~55 ms without (at 96
  // MB the two were 22 and 31 ms apart: too close to tell).
  assert.ok(
    fired >= 2 && longest < Math.max(30, ms / 2),
    `${fired} fires in ${Math.round(ms)} ms, the longest gap ${
      Math.round(longest)
    } ms`,
  );
});

Deno.test("A refresh, a scan and a usage pass of many small files, read synchronously, let timers run", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "-w");
  await Deno.mkdir(folder, { recursive: true });
  const write = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const entries = [];
      for (let j = 0; j < 6; j++) {
        const id = (j + 1).toString(16).padStart(8, "0");
        const parent = j === 0 ? null : j.toString(16).padStart(8, "0");
        entries.push(user(id, parent, `turn ${j} of session ${i} `.repeat(20)));
      }
      await Deno.writeFile(join(folder, `${i}.jsonl`), sessionBytes(entries));
    }
  };
  // 600 files for the refresh (its writes are slow); 3,000 for the passes
  // that only read (a scan of 600 took ~20 ms on a fast machine: less
  // than one turn's worth of work).
  const passes: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    ["a cold refresh", () => write(0, 600), async () => {
      using index = await SessionIndex.open(dir.path);
      await index.refresh();
    }],
    [
      "a scan",
      () => write(600, 3000),
      () => searchSessions(dir.path, "zqxj", { index: false }),
    ],
    [
      "a usage pass",
      () => Promise.resolve(),
      () => usageReport(dir.path, { index: false, helpers: 0 }),
    ],
  ];
  for (const [what, prepare, work] of passes) {
    await prepare();
    const { fired, ms } = await firesDuring(work);
    // A turn per ~20 ms of reading; a group of the refresh's writes is
    // saved in one synchronous transaction (64 files: 90-170 ms here, more
    // when other tests load the machine). At least one per 200 ms of work,
    // where a starved loop (the files read synchronously, no turn given)
    // fires none.
    assert.ok(
      fired >= Math.max(1, Math.floor(ms / 200)),
      `${what}: ${fired} fires in ${Math.round(ms)} ms`,
    );
  }
});
