/**
 * `cli list`: the sessions of a data dir, newest first.
 *
 * @module
 */

import { listSessions, resolveDataDir, type SessionInfo } from "../../mod.ts";
import { type Command, defineCommand, writeJson } from "./_command.ts";
import { attempt } from "./_failure.ts";
import { formatBytes, sanitize } from "./_format.ts";
import { formatTable } from "./_table.ts";

const HELP = `Usage: cli list [--data-dir D] [--cwd C] [--all] [--json]

List the sessions under <data dir>/sessions, newest first, reading only the
first 4 KiB of each file.

Options:
  --data-dir D   the data dir (default: $XDEV_DATA_DIR, else "dataDir" in
                 ~/.xdev/config.jsonc, else ~/.xdev/agent)
  --cwd C        only the sessions started in the folder C
  --all          include subagent sessions
  --json         print an array of objects instead of a table
`;

/** Shortest id prefix shown; UUIDv7s made within a minute share more. */
const _SHORT_ID = 8;

/** `cli list`. */
export const list: Command = defineCommand({
  name: "list",
  help: HELP,
  flags: { "data-dir": "value", cwd: "value", all: "switch", json: "switch" },
  run: async (call, io) => {
    const dataDir = call.value("data-dir") ?? await resolveDataDir();
    const cwd = call.value("cwd");
    const sessions = await attempt(
      `list the sessions in "${dataDir}"`,
      () =>
        listSessions(dataDir, {
          ...(cwd === undefined ? {} : { cwd }),
          includeSubagents: call.has("all"),
          onSkip: (path, reason) =>
            io.stderr(`${sanitize(`skipped "${path}": ${reason}`)}\n`),
        }),
    );
    if (call.has("json")) {
      writeJson(io, sessions.map(_json));
      return 0;
    }
    if (sessions.length === 0) {
      io.stdout(`No sessions in ${dataDir}\n`);
      return 0;
    }
    io.stdout(`${_table(sessions, io.columns)}\n`);
    return 0;
  },
});

function _table(sessions: SessionInfo[], width: number): string {
  const idLength = _uniquePrefix(sessions.map((s) => s.id));
  const rows = sessions.map((s) => [
    _localTime(s.mtime),
    s.id.slice(0, idLength),
    s.title ?? "(untitled)",
    s.cwd,
    formatBytes(s.size),
  ]);
  return formatTable(
    [
      { header: "modified" },
      { header: "id" },
      { header: "title", shrink: "end", priority: 1, min: 12 },
      { header: "cwd", shrink: "start", priority: 0, min: 12, optional: true },
      { header: "size", right: true },
    ],
    rows,
    width,
  );
}

function _json(s: SessionInfo): Record<string, unknown> {
  return {
    path: s.path,
    id: s.id,
    title: s.title ?? null,
    titleSource: s.titleSource ?? null,
    cwd: s.cwd,
    parentSession: s.parentSession ?? null,
    timestamp: s.timestamp,
    modified: s.mtime.toISOString(),
    size: s.size,
    version: s.version,
  };
}

/** The shortest prefix length, at least 8, that tells every id apart. */
function _uniquePrefix(ids: readonly string[]): number {
  const longest = Math.max(_SHORT_ID, ...ids.map((id) => id.length));
  for (let n = _SHORT_ID; n < longest; n++) {
    if (new Set(ids.map((id) => id.slice(0, n))).size === new Set(ids).size) {
      return n;
    }
  }
  return longest;
}

/** `2026-09-28 10:05` in local time. */
function _localTime(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${
    p(d.getHours())
  }:${p(d.getMinutes())}`;
}
