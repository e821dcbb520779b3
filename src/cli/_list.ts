/**
 * `cli list`: the sessions of a data dir, newest first.
 *
 * @module
 */

import { parseSessionFileName } from "../store/places.ts";
import { type SessionInfo, sortNewestFirst } from "../store/session_info.ts";
import {
  attempt,
  type Command,
  DATA_DIR_FLAG,
  defineCommand,
  noteSkipped,
  writeJson,
} from "./_command.ts";
import {
  type CoveredDataDir,
  coveredDataDirs,
  elsewhere,
  sessionsIn,
} from "./_data_dirs.ts";
import { localMinute, uniqueIdPrefix } from "./_format.ts";
import { indexWarnings } from "./_index.ts";
import { userPathOf } from "./_user_path.ts";
import { formatTable } from "./_table.ts";

const ABOUT =
  `List the sessions under <data dir>/sessions, last active first (by each
session's last entry), as a session picker shows them: the title, or the
first user message of an untitled session; how many messages; the session
it was forked from. By default of every data dir there is among xdev's
($XDEV_DATA_DIR, else "dataDir" in ~/.xdev/config.jsonc, else
~/.xdev/agent), omp's (~/.omp/agent, or as PI_CODING_AGENT_DIR, OMP_PROFILE,
PI_CONFIG_DIR or XDG_DATA_HOME move it) and pi's (~/.pi/agent, or
PI_CODING_AGENT_DIR). Each row's id (or its path, in --json) is what show,
context, tree, fork and export take.

Through the session index (made on first use; xdev's own in
<data dir>/index.sqlite, omp's and pi's in ~/.cache/xdev/indexes/ or
$XDG_CACHE_HOME/xdev/indexes/: nothing is written into their folders): a
stat of each file, its head read only when it changed; the index keeps
each file's summary, so its entries are read once, and after an append only
the new lines. Without it: every file is read.
`;

/** Shortest id prefix shown; UUIDv7s made within a minute share more. */
const _SHORT_ID = 8;

/** `cli list`. */
export const command: Command = defineCommand({
  name: "list",
  summary: "The sessions of every data dir, last active first.",
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
    const covered = await coveredDataDirs(call.values("data-dir"));
    const cwd = userPathOf(call.value("cwd"));
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
    const use = { indexed: !call.has("no-index"), create: true };
    const from = new Map<SessionInfo, CoveredDataDir>();
    for (const d of covered) {
      const found = await attempt(
        `list the sessions in "${d.dataDir}"`,
        () => sessionsIn(d.dataDir, options, use, indexWarnings(io)),
      );
      for (const s of found) from.set(s, d);
    }
    const all = sortNewestFirst([...from.keys()]);
    const sessions = limit === undefined ? all : all.slice(0, Number(limit));
    if (call.has("json")) {
      writeJson(io, sessions.map((s) => _json(s, from.get(s)!)));
    } else if (sessions.length === 0) {
      const where = covered.map((d) => d.dataDir).join(", ");
      io.stdout(
        `No sessions${where === "" ? "" : ` in ${where}`} (${await elsewhere(
          covered,
        )})\n`,
      );
    } else {
      const agents = covered.length > 1
        ? (s: SessionInfo) => from.get(s)!.agent
        : undefined;
      io.stdout(`${_table(sessions, io.columns, agents)}\n`);
    }
    return 0;
  },
});

function _table(
  sessions: SessionInfo[],
  width: number,
  agent: ((s: SessionInfo) => string) | undefined,
): string {
  const idLength = uniqueIdPrefix(sessions.map((s) => s.id));
  const rows = sessions.map((s) => [
    localMinute(_lastActive(s)),
    ...(agent === undefined ? [] : [agent(s)]),
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
      ...(agent === undefined ? [] : [{ header: "from" }]),
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
    { leftOutHint: "--json has them" },
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

function _json(s: SessionInfo, d: CoveredDataDir): Record<string, unknown> {
  return {
    path: s.path,
    agent: d.agent,
    dataDir: d.dataDir,
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
