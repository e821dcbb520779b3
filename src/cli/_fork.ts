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
import { sanitize } from "./_format.ts";
import { entryToStopAt, resolveSessionArg } from "./_session_arg.ts";
import { userPathOf } from "./_user_path.ts";

const ABOUT =
  `Fork a session (a file, a session id or the start of one): a new file with
a new id whose header names the source
as its parent, and the source's entries as they stood when the fork began
(whole lines only), copied byte for byte. A version 1 or 2 session (pi's,
older omp's) forks to a version 3 file, its entries migrated: resume the
fork to continue it. The source is not touched; blobs are shared. Damage
read around (a torn last line left out) is noted on stderr.
`;

/** `cli fork`. */
export const command: Command = defineCommand({
  name: "fork",
  summary: "A new session starting with this one's entries.",
  about: ABOUT,
  flags: {
    at: {
      value: "ENTRY",
      help:
        "the fork holds the path from the root to that entry only, which is its leaf (pi's createBranchedSession; SESSION#ENTRY too)",
    },
    to: {
      value: "DST",
      help:
        "the new file, which must not exist (default: beside the source, named <timestamp>_<id>.jsonl)",
    },
    label: { value: "L", help: "the fork's title (default: the source's)" },
    "data-dir": {
      value: "D",
      help:
        "where an id is looked up (default: every data dir of xdev, omp and pi)",
    },
    json: {
      help: "print { path, id, parentSession, bytes, migrated, issues }",
    },
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
    // Made safe for a terminal like every path printed; --json has it exact.
    else io.stdout(`${sanitize(forked.path)}\n${sanitize(forked.id)}\n`);
    return 0;
  },
});
