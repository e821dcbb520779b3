/**
 * The command line: inspect and manage session files.
 *
 * ```sh
 * deno run -R -W -E jsr:@xdev/session/cli list
 * deno run -R -W -E jsr:@xdev/session/cli context ~/.xdev/agent/sessions/-src-app/x.jsonl --json
 * ```
 *
 * Installed as a command (then run as `xdev-session list`):
 *
 * ```sh
 * deno install -g -A -n xdev-session jsr:@xdev/session/cli
 * ```
 *
 * Exit codes: 0 success, 1 the work failed (an unreadable session, a missing
 * file, a blob that does not match its name; `search` without hits, as
 * grep), 2 bad usage. Errors go to standard error as `error: <action>:
 * <state>`; a usage error adds the command's usage line and where its
 * `--help` is. `--version` prints the package's version. The program calls
 * itself `$XDEV_SESSION_PROG` in usage lines and hints (the project's
 * `deno task cli` sets it to `deno task cli`), else `xdev-session`.
 *
 * @module
 */

import { type Command, lazyCommand, runCli } from "./src/cli/_command.ts";
import { type CliIo, isMain, processIo, runProcess } from "./src/cli/_io.ts";
import deno from "./deno.json" with { type: "json" };

export type { CliIo } from "./src/cli/_io.ts";

/**
 * The package's name and version, from its `deno.json`. Imported as a JSON
 * module, it is part of the module graph: `deno run jsr:@xdev/session/cli`
 * fetches and caches it with the code (JSR serves every published file, and
 * `deno.json` is one), with no `--allow-read` or `--allow-net`, and
 * `deno install` bakes it in. Reading the file at run time would need a
 * path, which a JSR install does not have.
 */
const VERSION = `${deno.name} ${deno.version}`;

const NOTES =
  `A <session> is a file, a session id or the start of one, or SESSION#ENTRY
(as search prints it). Relative paths are the folder you typed in's.
list, search, usage and index cover every data dir there is among xdev's
($XDEV_DATA_DIR, else "dataDir" in ~/.xdev/config.jsonc, else
~/.xdev/agent), omp's (~/.omp/agent) and pi's (~/.pi/agent); --data-dir D
(repeatable) narrows them.

Exit codes: 0 success, 1 the work failed (search: no hits), 2 bad usage.
Colours only on a terminal, and never with NO_COLOR set.`;

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
  io: CliIo = processIo(),
): Promise<number> {
  return await runCli(
    { version: VERSION, commands: COMMANDS, notes: NOTES },
    args,
    io,
  );
}

if (isMain(import.meta)) await runProcess(main);
