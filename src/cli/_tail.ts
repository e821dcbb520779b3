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
import { refuseEntry, resolveSessionArg } from "./_session_arg.ts";

const HELP = `Usage: cli tail <session> [-n N] [-f] [--json]

Print the last N entries of a session (a file, a session id or the start
of one; read from its end: the cost is
what they weigh, not the file), then, with -f, every entry any writer
appends, as it is written. A line is printed once it is complete, never
half-written. Messages are rendered as "context" renders them; other
entries as one line.

Options:
  -n N, --lines N   how many entries first (default 10)
  -f, --follow      keep printing new entries until interrupted; a file
                    replaced or cut under its name is followed on (a note
                    goes to standard error) as long as the last entry
                    printed is still in it
  --json            one JSON object per line (the entries as written)
`;

/** The command as declared: its options spelled long. */
const _tail = defineCommand({
  name: "tail",
  help: HELP,
  flags: { lines: "value", follow: "switch", json: "switch" },
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

/**
 * `cli tail`, taking the short options `-n N` (`-nN`) and `-f` too (the
 * command helper knows long ones only).
 */
export const command: Command = {
  name: _tail.name,
  run: (args, io) => _tail.run(_longOptions(args), io),
};

function _longOptions(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      out.push(...args.slice(i));
      break;
    }
    if (a === "-f") out.push("--follow");
    else if (a === "-n") out.push("--lines");
    else if (/^-n\d+$/.test(a)) out.push("--lines", a.slice(2));
    else if (/^-[fn]{2,}/.test(a)) {
      out.push(
        ...a.slice(1).split("").map((c) => c === "f" ? "--follow" : "--lines"),
      );
    } else out.push(a);
  }
  return out;
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
