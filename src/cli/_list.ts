/**
 * `cli list`: the sessions of a data dir, newest first.
 *
 * @module
 */

import { statOrUndefined } from "../_fs.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import { SessionIndex } from "../index/session_index.ts";
import { listSessions, type ListSessionsOptions } from "../store/list.ts";
import { sessionsDir } from "../store/places.ts";
import type { SessionInfo } from "../store/session_info.ts";
import {
  attempt,
  type Command,
  DATA_DIR_FLAG,
  defineCommand,
  noteSkipped,
  writeJson,
} from "./_command.ts";
import { formatBytes, localMinute } from "./_format.ts";
import { indexWarnings } from "./_index.ts";
import type { CliIo } from "./_io.ts";
import { formatTable } from "./_table.ts";

const ABOUT =
  `List the sessions under <data dir>/sessions, newest first. Through the
session index (<data dir>/index.sqlite, made on first use): a stat of each
file, and the first 4 KiB of a file only when it changed since it was
listed. Without it: the first 4 KiB of every file.
`;

/** Shortest id prefix shown; UUIDv7s made within a minute share more. */
const _SHORT_ID = 8;

/** `cli list`. */
export const command: Command = defineCommand({
  name: "list",
  summary: "The sessions of a data dir, newest first.",
  about: ABOUT,
  flags: {
    "data-dir": DATA_DIR_FLAG,
    cwd: { value: "C", help: "only the sessions started in the folder C" },
    all: { help: "include subagent sessions" },
    "no-index": {
      help: "read every file's head; neither use nor make the index",
    },
    json: { help: "print an array of objects instead of a table" },
  },
  run: async (call, io) => {
    const dataDir = call.value("data-dir") ?? await resolveDataDir();
    const cwd = call.value("cwd");
    const options = {
      ...(cwd === undefined ? {} : { cwd }),
      includeSubagents: call.has("all"),
      onSkip: noteSkipped(io),
    };
    const sessions = await attempt(
      `list the sessions in "${dataDir}"`,
      () => _list(dataDir, options, !call.has("no-index"), io),
    );
    if (call.has("json")) writeJson(io, sessions.map(_json));
    else if (sessions.length === 0) io.stdout(`No sessions in ${dataDir}\n`);
    else io.stdout(`${_table(sessions, io.columns)}\n`);
    return 0;
  },
});

/**
 * Through the data dir's index (made when missing) when it can be used,
 * else from the files. A data dir without sessions gets no index: nothing
 * to index, no file to leave behind.
 */
async function _list(
  dataDir: string,
  options: ListSessionsOptions,
  indexed: boolean,
  io: CliIo,
): Promise<SessionInfo[]> {
  const index = indexed && await statOrUndefined(sessionsDir(dataDir))
    ? await SessionIndex.tryOpen(dataDir, { onWarning: indexWarnings(io) })
    : undefined;
  try {
    if (index !== undefined) return await index.list(options);
    return await listSessions(dataDir, options);
  } finally {
    index?.[Symbol.dispose]();
  }
}

function _table(sessions: SessionInfo[], width: number): string {
  const idLength = _uniquePrefix(sessions.map((s) => s.id));
  const rows = sessions.map((s) => [
    localMinute(s.mtime),
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
