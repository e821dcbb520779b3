/**
 * `cli index`: bring the data dir's session index up to date (or rebuild it).
 *
 * @module
 */

import { resolveDataDir } from "../store/data_dir.ts";
import { SessionIndex } from "../store/index/session_index.ts";
import {
  type Command,
  defineCommand,
  printError,
  writeJson,
} from "./_command.ts";
import { attempt } from "./_failure.ts";
import { sanitize } from "./_format.ts";
import { type Progress, progressBar } from "./_progress.ts";

const HELP = `Usage: cli index [--data-dir D] [--rebuild] [--json]

Bring <data dir>/index.sqlite up to date with the session files: read the
sessions that are new or were appended to since (only what was appended),
forget the ones that are gone. The index is a cache the list, a reopen, the
usage report and search use; the session files stay the only source of
truth, and the index can be deleted at any time.

Options:
  --data-dir D   the data dir (default: $XDEV_DATA_DIR, else "dataDir" in
                 ~/.xdev/config.jsonc, else ~/.xdev/agent)
  --rebuild      forget every row first and read every file again
  --json         print { "sessions", "refreshed", "removed", "skipped", "ms",
                 "fresh" } ("fresh": nothing had changed since the last refresh)
`;

/** Files from which a progress bar is drawn (on a terminal). */
const _PROGRESS_FROM = 50;

/** `cli index`. */
export const index: Command = defineCommand({
  name: "index",
  help: HELP,
  flags: { "data-dir": "value", rebuild: "switch", json: "switch" },
  run: async (call, io) => {
    const dataDir = call.value("data-dir") ?? await resolveDataDir();
    const warnings: string[] = [];
    const db = await attempt(
      `open the session index of "${dataDir}"`,
      () =>
        SessionIndex.tryOpen(dataDir, { onWarning: (m) => warnings.push(m) }),
    );
    for (const warning of warnings) io.stderr(`${sanitize(warning)}\n`);
    if (db === undefined) {
      printError(io, `Cannot index "${dataDir}": the index cannot be used`);
      return 1;
    }
    using open = db;
    let progress: Progress | undefined;
    const done = await attempt(
      `index the sessions in "${dataDir}"`,
      () =>
        open.refresh({
          rebuild: call.has("rebuild"),
          onProgress: (n, total) => {
            progress ??= progressBar(io, {
              total,
              unit: "files",
              minimum: _PROGRESS_FROM,
            });
            progress.update(n);
          },
        }),
    );
    progress?.finish(done.sessions + done.skipped);
    if (call.has("json")) {
      writeJson(io, done);
      return 0;
    }
    io.stdout(`${
      sanitize(
        done.fresh
          ? `${done.sessions} sessions indexed in ${open.path}: up to date, nothing changed since the last refresh (${done.ms} ms)`
          : `${done.sessions} sessions indexed in ${open.path}: ${done.refreshed} read, ${done.removed} removed, ${done.skipped} skipped (${done.ms} ms)`,
      )
    }\n`);
    return 0;
  },
});
