/**
 * `cli fork`: a new session that starts with another's entries.
 *
 * @module
 */

import {
  cliFailure,
  type CliIo,
  CliUsageError,
  flagValue,
  onePositional,
  parseArgs,
} from "./_io.ts";
import { type ForkResult, forkSession } from "../store/fork.ts";
import { cleanTitle } from "../format/title_slot.ts";

const _HELP = `Usage: cli fork <file> [--to DST] [--label L] [--json]

Fork a session file: a new file with a new id whose header names the source
as its parent, and every entry copied byte for byte. The source is not
touched; blobs are shared.

Options:
  --to DST       the new file, which must not exist (default: beside the
                 source, named <timestamp>_<id>.jsonl)
  --label L      the fork's title (default: the source's)
  --json         print { path, id, parentSession, bytes }
`;

/**
 * Run `fork`.
 *
 * @param args The command's arguments.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runFork(args: string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(args, {
    to: true,
    label: true,
    json: false,
    help: false,
  });
  if (parsed.flags.has("help")) {
    io.stdout(_HELP);
    return 0;
  }
  const src = onePositional(parsed, "fork", "<file>");
  const to = flagValue(parsed, "to");
  const label = flagValue(parsed, "label");
  if (label !== undefined && cleanTitle(label) === "") {
    throw new CliUsageError("fork: --label is empty once cleaned");
  }
  let fork: ForkResult;
  try {
    fork = await forkSession(
      src,
      to,
      label === undefined ? {} : { label },
    );
  } catch (err) {
    throw cliFailure(`Cannot fork "${src}"`, err);
  }
  if (parsed.flags.has("json")) {
    io.stdout(`${JSON.stringify(fork, null, 2)}\n`);
  } else {
    io.stdout(`${fork.path}\n${fork.id}\n`);
  }
  return 0;
}
