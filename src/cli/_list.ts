/**
 * `cli list`: the sessions of a data dir, newest first.
 *
 * @module
 */

import { formatBytes, formatTable } from "./_format.ts";
import {
  cliFailure,
  type CliIo,
  flagValue,
  noPositionals,
  parseArgs,
} from "./_io.ts";
import { listSessions, type SessionInfo } from "../store/list.ts";
import { resolveDataDir } from "../store/data_dir.ts";

const _HELP = `Usage: cli list [--data-dir D] [--cwd C] [--all] [--json]

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

/**
 * Run `list`.
 *
 * @param args The command's arguments.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runList(args: string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(args, {
    "data-dir": true,
    cwd: true,
    all: false,
    json: false,
    help: false,
  });
  if (parsed.flags.has("help")) {
    io.stdout(_HELP);
    return 0;
  }
  noPositionals(parsed, "list");
  const dataDir = flagValue(parsed, "data-dir") ?? await resolveDataDir();
  const cwd = flagValue(parsed, "cwd");
  let sessions: SessionInfo[];
  try {
    sessions = await listSessions(dataDir, {
      ...(cwd === undefined ? {} : { cwd }),
      includeSubagents: parsed.flags.has("all"),
      onSkip: (path, reason) => io.stderr(`skipped "${path}": ${reason}\n`),
    });
  } catch (err) {
    throw cliFailure(`Cannot list the sessions in "${dataDir}"`, err);
  }
  if (parsed.flags.has("json")) {
    io.stdout(`${JSON.stringify(sessions.map(_json), null, 2)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    io.stdout(`No sessions in ${dataDir}\n`);
    return 0;
  }
  const idLength = _uniquePrefix(sessions.map((s) => s.id));
  const rows = sessions.map((s) => [
    _localTime(s.mtime),
    s.id.slice(0, idLength),
    s.title ?? "(untitled)",
    s.cwd,
    formatBytes(s.size),
  ]);
  const table = formatTable(
    [
      { header: "modified" },
      { header: "id" },
      { header: "title", shrink: "end", priority: 1, min: 12 },
      { header: "cwd", shrink: "start", priority: 0, min: 12, optional: true },
      { header: "size", right: true },
    ],
    rows,
    io.columns,
  );
  io.stdout(`${table}\n`);
  return 0;
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
