/**
 * `cli fork`: a new session that starts with another's entries.
 *
 * @module
 */

import { cleanTitle } from "../format/title_slot.ts";
import { forkSession } from "../store/fork.ts";
import {
  attempt,
  type Command,
  defineCommand,
  printNote,
  writeJson,
} from "./_command.ts";
import { entryToStopAt, resolveSessionArg } from "./_session_arg.ts";
import { userPathOf } from "./_user_path.ts";

const HELP = `Usage: cli fork <session> [--at ENTRY] [--to DST] [--label L]
                [--data-dir D] [--json]

Fork a session (a file, a session id or the start of one): a new file with a new id whose header names the source
as its parent, and the source's entries as they stood when the fork began
(whole lines only), copied byte for byte. A version 1 or 2 session (pi's,
older omp's) forks to a version 3 file, its entries migrated: resume the
fork to continue it. The source is not touched; blobs are shared. Damage
read around (a torn last line left out) is noted on stderr.

Options:
  --at ENTRY     the fork holds the path from the root to that entry only,
                 which is its leaf (pi's createBranchedSession; SESSION#ENTRY
                 too)
  --to DST       the new file, which must not exist (default: beside the
                 source, named <timestamp>_<id>.jsonl)
  --label L      the fork's title (default: the source's)
  --data-dir D   where an id is looked up (default: every data dir of xdev,
                 omp and pi)
  --json         print { path, id, parentSession, bytes, migrated, issues }
`;

/** `cli fork`. */
export const command: Command = defineCommand({
  name: "fork",
  help: HELP,
  flags: {
    at: "value",
    to: "value",
    label: "value",
    "data-dir": "value",
    json: "switch",
  },
  args: ["<session>"],
  run: async (call, io) => {
    const label = call.value("label");
    if (label !== undefined && cleanTitle(label) === "") {
      throw call.usageError("--label is empty once cleaned");
    }
    const arg = await resolveSessionArg(call.arg(), {
      dataDirs: call.values("data-dir"),
    });
    const at = entryToStopAt(arg, call.value("at"), call.name);
    const src = arg.path;
    const forked = await attempt(
      `fork "${src}"`,
      () =>
        forkSession(src, userPathOf(call.value("to")), {
          ...(label === undefined ? {} : { label }),
          ...(at === undefined ? {} : { at }),
        }),
    );
    for (const i of forked.issues) printNote(io, `note: ${i.message}`);
    if (call.has("json")) writeJson(io, forked);
    else io.stdout(`${forked.path}\n${forked.id}\n`);
    return 0;
  },
});
