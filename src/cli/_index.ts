/**
 * `cli index`: bring the data dir's session index up to date (or rebuild it).
 *
 * @module
 */

import { SessionIndex } from "../index/session_index.ts";
import {
  attempt,
  type Command,
  DATA_DIR_FLAG,
  defineCommand,
  printError,
  printNote,
  writeJson,
} from "./_command.ts";
import { coveredDataDirs, elsewhere, indexOptionsOf } from "./_data_dirs.ts";
import { sanitize } from "./_format.ts";
import type { CliIo } from "./_io.ts";
import { progressPhases } from "./_progress.ts";

/**
 * Where the session index's warnings go in a run of the CLI: `warning:
 * <message>` on standard error, each message once (the index is a cache:
 * what it could not do is said, and the command goes on from the files).
 *
 * @param io Where they go.
 * @returns The `onWarning` to open the index with.
 */
export function indexWarnings(
  io: Pick<CliIo, "stderr">,
): (message: string) => void {
  const said = new Set<string>();
  return (message) => {
    if (said.has(message)) return;
    said.add(message);
    printNote(io, `warning: ${message}`);
  };
}

/**
 * The data dir's session index when it has one and `use` (no `--no-index`),
 * else undefined: how `search`, `usage` and the session readers choose
 * between the index and the files. A damaged, locked or read-only index is
 * a warning ({@linkcode indexWarnings}), and the files are read.
 *
 * @param dataDir The data dir.
 * @param use Whether the index may be used.
 * @param io Where notes go.
 * @returns The open index (the caller closes it), or undefined.
 */
export async function existingIndex(
  dataDir: string,
  use: boolean,
  io: CliIo,
): Promise<SessionIndex | undefined> {
  if (!use) return undefined;
  return await SessionIndex.tryOpen(dataDir, {
    ...await indexOptionsOf(dataDir),
    create: false,
    onWarning: indexWarnings(io),
  });
}

const ABOUT =
  `Bring the session index of each data dir up to date with its session
files (by default every data dir there is among xdev's, omp's and pi's; see
the list command; xdev's index is <data dir>/index.sqlite, omp's and pi's
are kept in xdev's cache folder, ~/.cache/xdev/indexes/): read the
sessions that are new or were appended to since (only what was appended),
forget the ones that are gone. The index is a cache the list, a reopen, the
usage report and search use; the session files stay the only source of
truth, and the index can be deleted at any time.
`;

/** `cli index`. */
export const command: Command = defineCommand({
  name: "index",
  summary: "Bring each data dir's session index up to date.",
  about: ABOUT,
  flags: {
    "data-dir": DATA_DIR_FLAG,
    rebuild: { help: "forget every row first and read every file again" },
    json: {
      help:
        'print an array of { "agent", "dataDir", "index", "sessions", "refreshed", "removed", "skipped", "ms", "fresh" }, one per data dir ("fresh": nothing had changed since the last refresh)',
    },
  },
  run: async (call, io) => {
    const covered = await coveredDataDirs(call.values("data-dir"));
    if (covered.length === 0) {
      printError(io, `Cannot index: ${await elsewhere(covered)}`);
      return 1;
    }
    const results: Record<string, unknown>[] = [];
    let code = 0;
    for (const { agent, dataDir } of covered) {
      const db = await attempt(
        `open the session index of "${dataDir}"`,
        async () =>
          SessionIndex.tryOpen(dataDir, {
            ...await indexOptionsOf(dataDir),
            onWarning: indexWarnings(io),
          }),
      );
      if (db === undefined) {
        printError(io, `Cannot index "${dataDir}": the index cannot be used`);
        code = 1;
        continue;
      }
      const index = db;
      const bar = progressPhases(io, { files: 50 });
      try {
        const done = await attempt(
          `index the sessions in "${dataDir}"`,
          () =>
            index.refresh({
              rebuild: call.has("rebuild"),
              onProgress: (n, total) => bar.update(n, total, "files"),
            }),
        ).finally(() => bar.finish()); // never left on screen, even under an error
        results.push({ agent, dataDir, index: index.path, ...done });
        if (call.has("json")) continue;
        const what = done.fresh
          ? "up to date, nothing changed since the last refresh"
          : `${done.refreshed} read, ${done.removed} removed, ${done.skipped} skipped`;
        const of = covered.length > 1 ? `${agent} ${dataDir}: ` : "";
        const line =
          `${of}${done.sessions} sessions indexed in ${index.path}: ${what} (${done.ms} ms)`;
        io.stdout(`${sanitize(line)}\n`);
      } finally {
        index?.[Symbol.dispose]();
      }
    }
    if (call.has("json")) writeJson(io, results);
    return code;
  },
});
