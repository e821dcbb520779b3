/**
 * A writer for `tree_follow.ts latency`: appends `count` user messages to a
 * session through `Session.appendMessage`, one every `pause` ms, as an
 * agent would, from its own process. Each message holds the time its
 * append began; the time each append returned is printed, one a line.
 *
 *     deno run -A bench/_paced_appender.ts <file> <count> <pause-ms>
 *
 * @module
 */

import { Session } from "../mod.ts";

const [path, countArg, pauseArg] = Deno.args;
if (path === undefined) {
  console.error("usage: _paced_appender.ts <file> <count> <pause-ms>");
  Deno.exit(2);
}
const count = Number(countArg ?? 1000);
const pause = Number(pauseArg ?? 5);
await using session = await Session.open(path);
const done: number[] = [];
for (let i = 0; i < count; i++) {
  // The time the write starts, for the follower to measure against.
  const stamp = performance.timeOrigin + performance.now();
  await session.appendMessage({
    role: "user",
    content: `paced ${i} @${stamp}`,
  });
  done.push(performance.timeOrigin + performance.now());
  await new Promise((r) => setTimeout(r, pause));
}
console.log(done.join("\n"));
