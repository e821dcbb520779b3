/**
 * `cli list`: the sessions of a data dir, newest first.
 *
 * @module
 */

import { statOrUndefined } from "../_fs.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import { SessionIndex } from "../index/session_index.ts";
import { listSessions, type ListSessionsOptions } from "../store/list.ts";
import { parseSessionFileName, sessionsDir } from "../store/places.ts";
import type { SessionInfo } from "../store/session_info.ts";
import {
  attempt,
  type Command,
  DATA_DIR_FLAG,
  defineCommand,
  noteSkipped,
  writeJson,
} from "./_command.ts";
import { localMinute } from "./_format.ts";
import { indexWarnings } from "./_index.ts";
import type { CliIo } from "./_io.ts";
import { formatTable } from "./_table.ts";

const ABOUT =
  `List the sessions under <data dir>/sessions, last active first (by each
session's last entry), as a session picker shows them: the title, or the
first user message of an untitled session; how many messages; the session
it was forked from. Through the session index (<data dir>/index.sqlite,
made on first use): a stat of each file, its head read only when it
changed; the index keeps each file's summary, so its entries are read once,
and after an append only the new lines.
`;

/** Shortest id prefix shown; UUIDv7s made within a minute share more. */
const _SHORT_ID = 8;

/** `cli list`. */
export const command: Command = defineCommand({
  name: "list",
  summary: "The sessions of a data dir, last active first.",
  about: ABOUT,
  flags: {
    "data-dir": DATA_DIR_FLAG,
    cwd: { value: "C", help: "only the sessions started in the folder C" },
    limit: { value: "N", help: "the N sessions last active only" },
    all: { help: "include subagent sessions" },
    "no-index": {
      help: "read the files alone; neither use nor make the index",
    },
    json: {
      help: "print an array of objects (full id and path) instead of a table",
    },
  },
  run: async (call, io) => {
    const dataDir = call.value("data-dir") ?? await resolveDataDir();
    const cwd = call.value("cwd");
    const limit = call.value("limit");
    if (limit !== undefined && !/^[1-9]\d*$/.test(limit)) {
      throw call.usageError("--limit must be a positive whole number");
    }
    const options = {
      ...(cwd === undefined ? {} : { cwd }),
      includeSubagents: call.has("all"),
      summary: true,
      onSkip: noteSkipped(io),
    };
    const all = await attempt(
      `list the sessions in "${dataDir}"`,
      () => _list(dataDir, options, !call.has("no-index"), io),
    );
    const sessions = limit === undefined ? all : all.slice(0, Number(limit));
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
  using index = indexed && await statOrUndefined(sessionsDir(dataDir))
    ? await SessionIndex.tryOpen(dataDir, { onWarning: indexWarnings(io) })
    : undefined;
  if (index !== undefined) return await index.list(options);
  return await listSessions(dataDir, options);
}

function _table(sessions: SessionInfo[], width: number): string {
  const idLength = _uniquePrefix(sessions.map((s) => s.id));
  const rows = sessions.map((s) => [
    localMinute(_lastActive(s)),
    s.id.slice(0, idLength),
    s.title ??
      (s.firstMessage === undefined ? "(untitled)" : `“${s.firstMessage}”`),
    String(s.messageCount ?? ""),
    _parent(s.parentSession),
    s.cwd,
  ]);
  return formatTable(
    [
      { header: "last active" },
      { header: "id" },
      {
        header: "title or first message",
        shrink: "middle",
        priority: 1,
        min: 30,
      },
      { header: "msgs", right: true },
      { header: "parent", optional: true, shrink: "end", priority: 0, min: 8 },
      { header: "cwd", shrink: "start", priority: 0, min: 12, optional: true },
    ],
    rows,
    width,
  );
}

/** When a session was last active (the list's order): its last entry's time, else its header's, else its file's. */
function _lastActive(s: SessionInfo): Date {
  const t = Date.parse(s.lastActivity ?? s.timestamp);
  return Number.isNaN(t) ? s.mtime : new Date(t);
}

/**
 * A parent as a column shows it: the first 8 characters of its id (a
 * fork's parent is an id; a subagent's, its parent's file, whose name holds
 * the id), else the file's name.
 */
function _parent(parent: string | undefined): string {
  if (parent === undefined) return "";
  if (!parent.includes("/") && !parent.includes("\\")) {
    return parent.slice(0, _SHORT_ID);
  }
  const name = parent.split(/[\\/]/).pop()!;
  const parsed = parseSessionFileName(name);
  return parsed === undefined ? name : parsed.id.slice(0, _SHORT_ID);
}

function _json(s: SessionInfo): Record<string, unknown> {
  return {
    path: s.path,
    id: s.id,
    title: s.title ?? null,
    titleSource: s.titleSource ?? null,
    firstMessage: s.firstMessage ?? null,
    messageCount: s.messageCount ?? null,
    lastActivity: s.lastActivity ?? null,
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
