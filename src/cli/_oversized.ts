/**
 * The CLI's note for lines no command reads: those over the loader's line
 * limit, which a usage report or a search lists as `oversizedLines`. Kept
 * apart from `_command.ts` so that the line reader is loaded only by the
 * commands that read lines.
 *
 * @module
 */

import { DEFAULT_MAX_LINE_BYTES } from "../read/lines.ts";
import { printNote } from "./_command.ts";
import type { CliIo } from "./_io.ts";

/**
 * Note, for each file, the lines a usage report or a search could not read
 * because they are longer than the loader's limit: `skipped 1 line over
 * the 64 MiB line limit in "<path>" (<what>)`.
 *
 * @param io Where the notes go.
 * @param lines The lines, by file.
 * @param what What is missing because of them.
 */
export function noteOversized(
  io: Pick<CliIo, "stderr">,
  lines: readonly { path: string }[],
  what: string,
): void {
  const counts = new Map<string, number>();
  for (const { path } of lines) counts.set(path, (counts.get(path) ?? 0) + 1);
  const limit = DEFAULT_MAX_LINE_BYTES / (1 << 20);
  for (const [path, n] of counts) {
    printNote(
      io,
      `skipped ${
        n === 1 ? "1 line" : `${n} lines`
      } over the ${limit} MiB line limit in "${path}" (${what})`,
    );
  }
}
