/**
 * `cli list`: the sessions of a data dir, newest first.
 *
 * @module
 */

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
import { formatBytes, localMinute } from "./_format.ts";
import { indexWarnings } from "./_index.ts";
import { userPathOf } from "./_user_path.ts";
import { formatTable } from "./_table.ts";

const ABOUT =
  `List the sessions under <data dir>/sessions, newest first: by default of
every data dir there is among xdev's ($XDEV_DATA_DIR, else "dataDir" in
~/.xdev/config.jsonc, else ~/.xdev/agent), omp's (~/.omp/agent, or as
PI_CODING_AGENT_DIR, OMP_PROFILE, PI_CONFIG_DIR or XDG_DATA_HOME move it)
and pi's (~/.pi/agent, or PI_CODING_AGENT_DIR). Each row's id (or its
path, in --json) is what show, context, tree, fork and export take.

Through the session index (made on first use; xdev's own in
<data dir>/index.sqlite, omp's and pi's in ~/.cache/xdev/indexes/ or
$XDG_CACHE_HOME/xdev/indexes/: nothing is written into their folders): a
stat of each file, and the first 4 KiB of a file only when it changed since
it was listed. Without it: the first 4 KiB of every file.
`;

/** Shortest id prefix shown; UUIDv7s made within a minute share more. */
const _SHORT_ID = 8;

/** `cli list`. */
export const command: Command = defineCommand({
  name: "list",
  summary: "The sessions of every data dir, newest first.",
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
    const covered = await coveredDataDirs(call.values("data-dir"));
    const cwd = userPathOf(call.value("cwd"));
    const options = {
      ...(cwd === undefined ? {} : { cwd }),
      includeSubagents: call.has("all"),
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
    const sessions = sortNewestFirst([...from.keys()]);
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
  const idLength = _uniquePrefix(sessions.map((s) => s.id));
  const rows = sessions.map((s) => [
    localMinute(s.mtime),
    ...(agent === undefined ? [] : [agent(s)]),
    s.id.slice(0, idLength),
    s.title ?? "(untitled)",
    s.cwd,
    formatBytes(s.size),
  ]);
  return formatTable(
    [
      { header: "modified" },
      ...(agent === undefined ? [] : [{ header: "from" }]),
      { header: "id" },
      { header: "title", shrink: "end", priority: 1, min: 12 },
      { header: "cwd", shrink: "start", priority: 0, min: 12, optional: true },
      { header: "size", right: true },
    ],
    rows,
    width,
  );
}

function _json(s: SessionInfo, d: CoveredDataDir): Record<string, unknown> {
  return {
    path: s.path,
    agent: d.agent,
    dataDir: d.dataDir,
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
