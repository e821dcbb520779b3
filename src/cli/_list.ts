/**
 * `cli list`: the sessions of a data dir, newest first.
 *
 * @module
 */

import { join } from "node:path";
import { resolveDataDir } from "../store/data_dir.ts";
import { SessionIndex } from "../store/index/session_index.ts";
import { listSessions } from "../store/list.ts";
import type { SessionInfo } from "../store/session_info.ts";
import { type Command, defineCommand, writeJson } from "./_command.ts";
import { attempt } from "./_failure.ts";
import type { CliIo } from "./_io.ts";
import { formatBytes, sanitize } from "./_format.ts";
import { formatTable } from "./_table.ts";

const HELP =
  `Usage: cli list [--data-dir D] [--cwd C] [--all] [--no-index] [--json]

List the sessions under <data dir>/sessions, newest first. Through the
session index (<data dir>/index.sqlite, made on first use): a stat of each
file, and the first 4 KiB of a file only when it changed since it was
listed. Without it: the first 4 KiB of every file.

Options:
  --data-dir D   the data dir (default: $XDEV_DATA_DIR, else "dataDir" in
                 ~/.xdev/config.jsonc, else ~/.xdev/agent)
  --cwd C        only the sessions started in the folder C
  --all          include subagent sessions
  --no-index     read every file's head; neither use nor make the index
  --json         print an array of objects instead of a table
`;

/** Shortest id prefix shown; UUIDv7s made within a minute share more. */
const _SHORT_ID = 8;

/** `cli list`. */
export const list: Command = defineCommand({
  name: "list",
  help: HELP,
  flags: {
    "data-dir": "value",
    cwd: "value",
    all: "switch",
    "no-index": "switch",
    json: "switch",
  },
  run: async (call, io) => {
    const dataDir = call.value("data-dir") ?? await resolveDataDir();
    const cwd = call.value("cwd");
    const options = {
      ...(cwd === undefined ? {} : { cwd }),
      includeSubagents: call.has("all"),
      onSkip: (path: string, reason: string) =>
        io.stderr(`${sanitize(`skipped "${path}": ${reason}`)}\n`),
    };
    const sessions = await attempt(
      `list the sessions in "${dataDir}"`,
      async () => {
        using index = call.has("no-index")
          ? undefined
          : await _index(dataDir, io);
        return index === undefined
          ? await listSessions(dataDir, options)
          : await index.list(options);
      },
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

/** The data dir's index, made when missing; undefined (with the warning shown) when it cannot be used. */
async function _index(
  dataDir: string,
  io: Pick<CliIo, "stderr">,
): Promise<SessionIndex | undefined> {
  try {
    await Deno.stat(join(dataDir, "sessions"));
  } catch {
    return undefined; // no sessions: nothing to index, no file to leave behind
  }
  return await SessionIndex.tryOpen(dataDir, {
    onWarning: (m) => io.stderr(`${sanitize(m)}\n`),
  });
}

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

/**
 * The shortest prefix length, at least 8, that tells every id apart: one
 * more than the longest prefix two neighbours share once sorted.
 */
function _uniquePrefix(ids: readonly string[]): number {
  const sorted = [...new Set(ids)].sort();
  let n = _SHORT_ID;
  let longest = _SHORT_ID;
  for (let i = 0; i < sorted.length; i++) {
    const b = sorted[i]!;
    longest = Math.max(longest, b.length);
    if (i === 0) continue;
    const a = sorted[i - 1]!;
    let shared = 0;
    while (shared < a.length && a[shared] === b[shared]) shared++;
    n = Math.max(n, shared + 1);
  }
  return Math.min(n, longest);
}

/** `2026-09-28 10:05` in local time. */
function _localTime(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${
    p(d.getHours())
  }:${p(d.getMinutes())}`;
}
