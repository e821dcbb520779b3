/**
 * `cli tail`: the last entries of a session, then every new one.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { SessionTree } from "../tree/session_tree.ts";
import { watchSession } from "../watch/watch_session.ts";
import { attempt, type Command, defineCommand, printNote } from "./_command.ts";
import { renderMessage } from "./_context.ts";
import { sanitize } from "./_format.ts";
import { type CliIo, onInterrupt } from "./_io.ts";

const ABOUT =
  `Print the last N entries of a session file (read from its end: the cost is
what they weigh, not the file), then, with -f, every entry any writer
appends, as it is written. A line is printed once it is complete, never
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
        "keep printing new entries until interrupted; a file replaced or cut under its name is followed on (a note goes to standard error) as long as the last entry printed is still in it",
    },
    json: { help: "one JSON object per line (the entries as written)" },
  },
  args: ["<file>"],
  run: async (call, io) => {
    const file = call.arg();
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
          onResync: (r) =>
            issue(
              `the file was ${r.reason}; following on after the last entry printed`,
            ),
        });
        for await (const e of entries) print(e);
      });
    } finally {
      listening?.();
    }
    return 0;
  },
});

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
