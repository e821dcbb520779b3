/**
 * The command line: inspect and manage session files.
 *
 * ```sh
 * deno run -R -W -E jsr:@xdev/session/cli list
 * deno run -R -W -E jsr:@xdev/session/cli context ~/.xdev/agent/sessions/-src-app/x.jsonl --json
 * ```
 *
 * Exit codes: 0 success, 1 the work failed (an unreadable session, a missing
 * file, a blob that does not match its name), 2 bad usage. Errors go to
 * standard error as `error: <action>: <state>`.
 *
 * @module
 */

import { type Command, lazyCommand, runCli } from "./src/cli/_command.ts";
import { type CliIo, denoIo, runProcess } from "./src/cli/_io.ts";

export type { CliIo } from "./src/cli/_io.ts";

const USAGE = `Usage: cli <command> [options]

Commands:
  list [--data-dir D] [--cwd C] [--all] [--no-index] [--json]
      The sessions of a data dir, newest first.
  index [--data-dir D] [--rebuild] [--json]
      Bring the data dir's session index up to date.
  search <query> [--data-dir D] [--regex] [--role R] [--cwd C]
         [--since YYYY-MM-DD] [--limit N] [--no-index] [--json]
      Search the text of every session, newest hits first.
  show <session> [--data-dir D] [--full] [--json]
      What opening a session finds: header, title, leaf, window, damage.
  context <session> [--at E] [--data-dir D] [--json] [--rule xdev|omp]
      Rebuild what the model sees when the session resumes.
  stats <session|dir> [--data-dir D] [--json]
      Count entries, messages, tokens, blobs; what opening one reads.
  usage [--data-dir D] [--by day|week|month|session|model|project]
        [--since DAY] [--until DAY] [--utc] [--json | --csv]
      Tokens, requests and cost of every session, each call counted once.
  tree <session> [--at E] [--filter F] [--depth N] [--fold N] [--lineage] [--json]
      The entry tree as an outline: branches, labels, the active path.
  tail <session> [-n N] [-f] [--json]
      The last N entries; with -f, every new one as it is written.
  fork <session> [--at E] [--to DST] [--label L] [--json]
      A new session starting with this one's entries.
  export <session> [--at E] [--format md|html] [--out F] [--tree | --last N] [--json]
      A session as Markdown or self-contained HTML people can read.
  gen --size SIZE --out F [--seed N] [--no-checkpoints] [--branch-back]
      Write a synthetic transcript of a given size.
  blobs verify [--data-dir D] [--json]
      Re-hash every blob; exit code 1 when one does not match its name.
  blobs gc [--data-dir D] [--yes] [--json]
      Report the blobs no session references; delete them with --yes.
  demo [--data-dir D]
      Copy the bundled sample sessions to a data dir and tour them.

A <session> is a file, a session id or the start of one, or SESSION#ENTRY
(as search prints it). Relative paths are the folder you typed in's.
list, search, usage and index cover every data dir there is among xdev's
($XDEV_DATA_DIR, else "dataDir" in ~/.xdev/config.jsonc, else
~/.xdev/agent), omp's (~/.omp/agent) and pi's (~/.pi/agent); --data-dir D
(repeatable) narrows them.

Run "cli <command> --help" for a command's options.`;

// Each command's modules are loaded when it runs, not before.
const COMMANDS: Command[] = [
  lazyCommand("list", () => import("./src/cli/_list.ts")),
  lazyCommand("index", () => import("./src/cli/_index.ts")),
  lazyCommand("search", () => import("./src/cli/_search.ts")),
  lazyCommand("show", () => import("./src/cli/_show.ts")),
  lazyCommand("context", () => import("./src/cli/_context.ts")),
  lazyCommand("stats", () => import("./src/cli/_stats.ts")),
  lazyCommand("usage", () => import("./src/cli/_usage.ts")),
  lazyCommand("tree", () => import("./src/cli/_tree.ts")),
  lazyCommand("tail", () => import("./src/cli/_tail.ts")),
  lazyCommand("fork", () => import("./src/cli/_fork.ts")),
  lazyCommand("export", () => import("./src/cli/_export.ts")),
  lazyCommand("gen", () => import("./src/cli/_gen.ts")),
  lazyCommand("blobs", () => import("./src/cli/_blobs.ts")),
  lazyCommand("demo", () => import("./src/cli/_demo.ts")),
];

/**
 * Run the CLI.
 *
 * @example Print a context as JSON
 * ```ts
 * import { main } from "@xdev/session/cli";
 * const url = new URL("./fixtures/omp/s1-edge.jsonl", import.meta.url);
 * let out = "";
 * const code = await main(["context", url.pathname, "--json"], {
 *   stdout: (s) => { out += s; },
 *   stderr: () => {},
 *   isTerminal: false,
 *   columns: 80,
 * });
 * console.assert(code === 0 && JSON.parse(out).leafId === "375e1c4f");
 * ```
 *
 * @param args The arguments after the program name.
 * @param io Where output goes (the process's streams by default).
 * @returns The exit code: 0 success, 1 failure, 2 bad usage.
 */
export async function main(
  args: string[],
  io: CliIo = denoIo(),
): Promise<number> {
  return await runCli({ usage: USAGE, commands: COMMANDS }, args, io);
}

if (import.meta.main) await runProcess(main);
