/**
 * The command line: inspect and manage session files.
 *
 * ```sh
 * deno run -R -W -E jsr:@xdev/session/cli context ~/.xdev/agent/sessions/-src-app/x.jsonl --json
 * ```
 *
 * Exit codes: 0 success, 1 the work failed (an unreadable session, a missing
 * file), 2 bad usage.
 *
 * @module
 */

import { runContext } from "./src/cli_context.ts";
import { runDemo } from "./src/cli_demo.ts";
import { type CliIo, CliUsageError, denoIo } from "./src/cli_io.ts";

export type { CliIo } from "./src/cli_io.ts";

const _USAGE = `Usage: cli <command> [options]

Commands:
  demo [--data-dir D]
      Copy the bundled sample sessions to a data dir and tour them.
  context <file> [--data-dir D] [--json] [--rule xdev|omp]
      Rebuild what the model sees when the session resumes.

Run "cli <command> --help" for a command's options.`;

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
  const [command, ...rest] = args;
  try {
    switch (command) {
      case "context":
        return await runContext(rest, io);
      case "demo":
        return await runDemo(rest, io);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(`${_USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new CliUsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof CliUsageError) {
      io.stderr(`error: ${err.message}\n\n${_USAGE}\n`);
      return 2;
    }
    io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

if (import.meta.main) {
  Deno.exitCode = await main(Deno.args);
}
