/**
 * `cli tail`: the last entries of a session, then every new one.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import type { FollowResync } from "../watch/_follower.ts";
import { SessionTree } from "../tree/session_tree.ts";
import { watchSession } from "../watch/watch_session.ts";
import { attempt, type Command, defineCommand, printNote } from "./_command.ts";
import { renderMessage } from "./_context.ts";
import { sanitize } from "./_format.ts";
import { type CliIo, onInterrupt } from "./_io.ts";
import { refuseEntry, resolveSessionArg } from "./_session_arg.ts";

const ABOUT =
  `Print the last N entries of a session (a file, a session id or the start
of one; read from its end: the cost is what they weigh, not the file),
then, with -f, every entry any writer appends, as it is written. A line is printed once it is complete, never
half-written. Messages are rendered as "context" renders them; other
entries as one line.
`;

/** `cli tail`: `-n N` (`-nN`) and `-f` are its options' short spellings. */
export const command: Command = defineCommand({
  name: "tail",
  summary: "The last N entries; with -f, every new one as it is written.",
  about: ABOUT,
  flags: {
    lines: {
      value: "N",
      short: "n",
      help: "how many entries first (default 10)",
    },
    follow: {
      short: "f",
      help:
        "keep printing new entries until interrupted; a file replaced or cut under its name is followed on (a note goes to standard error, saying from where) as long as the last entry printed is still in it; with none printed yet, a cut goes on from the last complete line before it, so a line written again there is printed",
    },
    json: { help: "one JSON object per line (the entries as written)" },
  },
  args: ["<session>"],
  run: async (call, io) => {
    const arg = await resolveSessionArg(call.arg());
    refuseEntry(arg, call.name);
    const file = arg.path;
    const text = call.value("lines") ?? "10";
    const count = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(count)) {
      throw call.usageError(`-n must be a whole number, not "${text}"`);
    }
    const issue = (message: string) => printNote(io, `! ${message}`);
    const follow = call.has("follow");
    const print = _printer(io, call.has("json"));
    const stop = new AbortController();
    const listening = follow ? onInterrupt(() => stop.abort()) : undefined;
    try {
      await attempt(`${follow ? "follow" : "read"} "${file}"`, async () => {
        const entries = watchSession(file, {
          from: { last: count },
          follow,
          signal: stop.signal,
          onIssue: (i) => issue(i.message),
          onResync: (r) => issue(resyncNote(r)),
        });
        for await (const e of entries) print(e);
      });
    } finally {
      listening?.();
    }
    return 0;
  },
});

/**
 * The note `tail -f` prints when it follows on past a cut or a
 * replacement: where it goes on, as the follower chose it (after the last
 * entry printed, or, with none printed, at a line boundary it names).
 *
 * @example A cut before anything was printed
 * ```ts
 * import { resyncNote } from "./_tail.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   resyncNote({ reason: "truncated", offset: 512 }),
 *   "the file was cut short; nothing was printed yet: following on from byte 512, the end of the last complete line before the cut",
 * );
 * ```
 *
 * @param event The resync, as the follower reports it.
 * @returns The note, without the leading "! ".
 */
export function resyncNote(event: FollowResync): string {
  const what = `the file was ${
    event.reason === "truncated" ? "cut short" : "replaced"
  }`;
  if (event.after !== undefined) {
    return `${what}; following on after the last entry printed (${event.after}), at byte ${event.offset}`;
  }
  const where = event.reason === "truncated"
    ? "the end of the last complete line before the cut"
    : "the end of the new file's last complete line";
  return `${what}; nothing was printed yet: following on from byte ${event.offset}, ${where}`;
}

/** Print one entry: a JSON line, or as `context` renders it. */
function _printer(io: CliIo, json: boolean): (e: SessionEntry) => void {
  if (json) return (e) => io.stdout(`${JSON.stringify(e)}\n`);
  return (e) => io.stdout(`${_render(e)}\n\n`);
}

function _render(e: SessionEntry): string {
  const m = e as Record<string, unknown>;
  const stamp = sanitize(`${e.id} ${e.timestamp}`);
  if (e.type === "message" && typeof m.message === "object") {
    return `${stamp}\n${renderMessage(m.message as never)}`;
  }
  if (e.type === "custom_message") {
    return `${stamp}\n${renderMessage({ ...m, role: "custom" } as never)}`;
  }
  return `${stamp}\n── ${sanitize(e.type)} ──\n${
    sanitize(SessionTree.previewOf(e))
  }`;
}
