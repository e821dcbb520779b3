/**
 * A worker for `concurrency_test.ts`: opens one session file and appends
 * entries to it, competing with other processes doing the same.
 *
 *     deno run -A tests/_append_worker.ts <file> <worker> <count> <batch> [<go-file> [<pause-ms> [<stop-file>]]]
 *
 * Appends `count` user messages whose content is `{"w":<worker>,"i":<n>}`
 * plus a padding of the worker's own length (so an interleaved line cannot
 * parse), `batch` at a time (`appendBatch`; 1 means `appendMessage`). When a
 * go-file is given, the worker opens the session, writes `<go-file>.<worker>`
 * to say it is ready, and waits for the go-file to exist, so that every
 * worker starts at once from the same leaf. With a pause, it sleeps that many
 * milliseconds between appends (an agent's pace, leaving a peer room to take
 * the lock). With a stop-file, it ends early once that file exists (so a
 * test can keep it appending until a peer is done, whatever the machine's
 * pace). Prints `{"worker","count","ms"}` as JSON when done, `count` being
 * the entries it appended.
 *
 * @module
 */
import { Session } from "../mod.ts";

const [path, workerArg, countArg, batchArg, go, pauseArg, stop] = Deno.args;
if (path === undefined || countArg === undefined) {
  console.error(
    "usage: _append_worker.ts <file> <worker> <count> <batch> [<go-file> [<pause-ms> [<stop-file>]]]",
  );
  Deno.exit(2);
}
const worker = Number(workerArg);
const count = Number(countArg);
const batch = Math.max(1, Number(batchArg ?? 1));
const pause = Number(pauseArg ?? 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The message of the worker's i-th entry. */
function message(i: number): { role: "user"; content: string } {
  const pad = "ü".repeat(worker * 23 + (i % 7));
  return { role: "user", content: JSON.stringify({ w: worker, i, pad }) };
}

// A generous lock wait: up to 4 processes queue for each append.
await using session = await Session.open(path, { lockTimeoutMs: 30_000 });
if (go !== undefined) {
  await Deno.writeTextFile(`${go}.${worker}`, "ready\n");
  for (;;) {
    try {
      await Deno.stat(go);
      break;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      await sleep(1);
    }
  }
}
/** Whether the stop-file exists. */
async function stopped(): Promise<boolean> {
  if (stop === undefined) return false;
  try {
    await Deno.stat(stop);
    return true;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    return false;
  }
}
const started = performance.now();
let appended = 0;
for (let i = 0; i < count && !await stopped(); i += batch) {
  const n = Math.min(batch, count - i);
  if (n === 1 && batch === 1) {
    await session.appendMessage(message(i));
  } else {
    await session.appendBatch(
      Array.from({ length: n }, (_, k) => ({
        type: "message",
        message: message(i + k),
      })),
    );
  }
  appended = Math.min(count, i + batch);
  if (pause > 0) await sleep(pause);
}
console.log(
  JSON.stringify({
    worker,
    count: appended,
    ms: Math.round(performance.now() - started),
  }),
);
