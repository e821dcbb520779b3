/**
 * `cli search`: every session's text searched, newest hits first.
 *
 * @module
 */

import {
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  searchSessions,
} from "../search/search.ts";
import {
  type CoveredDataDir,
  coveredDataDirs,
  elsewhere,
} from "./_data_dirs.ts";
import { existingIndex } from "./_index.ts";
import { userPathOf } from "./_user_path.ts";
import {
  attempt,
  type Call,
  type Command,
  defineCommand,
  noteSkipped,
  printNote,
  writeJson,
} from "./_command.ts";
import { localMinute, sanitize, truncate } from "./_format.ts";
import type { CliIo } from "./_io.ts";
import { progressPhases } from "./_progress.ts";

const HELP =
  `Usage: cli search <query> [--data-dir D] [--regex] [--role R] [--cwd C]
                  [--since YYYY-MM-DD] [--limit N] [--no-index] [--json]

Search the text of every session in the data dirs (by default every one
there is among xdev's, omp's and pi's: see "cli list"): user and assistant text,
tool results and harness messages (not thinking, tool-call arguments or
images; the first 64 Ki characters of each entry). Hits come newest first.

Every word of the query must appear, in any case, anywhere in an entry
(inside CJK text written without spaces too); "a phrase" matches its words
in order; word* matches at the start of a word. Nothing else is special.

With a data dir's session index (see "cli index"), the index is brought up
to date, then searched; without it, the files are read in bounded memory.
Each hit ends with FILE#ENTRY, which context, tree, export and fork take.

Options:
  --data-dir D   only this data dir (repeatable); it must exist
  --regex        the query is a regular expression in RE2 syntax (case-
                 insensitive; no backreferences or lookaround; \\d \\w \\s \\b
                 are ASCII); it runs in time linear in the text; always
                 reads the files
  --role R       only user, assistant, tool or custom text
  --cwd C        only the sessions started in the folder C
  --since D      only entries from the day D (UTC) on
  --limit N      at most N hits (default 50)
  --no-index     read the files even when there is an index
  --json         print { "hits": [ ... ], "skipped": [ ... ] }; each hit
                 names its "agent" and "dataDir"
`;

const _ROLES = ["user", "assistant", "tool", "custom"];
const _BOLD = "\x1b[1;4m";
const _PLAIN = "\x1b[22;24m";

type _Flag =
  | "data-dir"
  | "regex"
  | "role"
  | "cwd"
  | "since"
  | "limit"
  | "no-index"
  | "json";

/** `cli search`. */
export const command: Command = defineCommand<_Flag>({
  name: "search",
  help: HELP,
  flags: {
    "data-dir": "value",
    regex: "switch",
    role: "value",
    cwd: "value",
    since: "value",
    limit: "value",
    "no-index": "switch",
    json: "switch",
  },
  args: ["<query>"],
  run: async (call, io) => {
    const covered = await coveredDataDirs(call.values("data-dir"));
    const options: SearchOptions = {
      ..._filters(call),
      regex: call.has("regex"),
      onSkip: noteSkipped(io),
    };
    const from = new Map<SearchHit, CoveredDataDir>();
    const result: Pick<SearchResult, "hits" | "skipped"> = {
      hits: [],
      skipped: [],
    };
    for (const d of covered) {
      const one = await _searchOne(d.dataDir, call, options, io);
      for (const h of one.hits) from.set(h, d);
      result.hits.push(...one.hits);
      result.skipped.push(...one.skipped);
    }
    // Each data dir's newest hits, merged: the newest of them all.
    result.hits.sort((a, b) =>
      a.timestamp !== b.timestamp
        ? (a.timestamp > b.timestamp ? -1 : 1)
        : (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
    );
    result.hits.splice(options.limit ?? _LIMIT);
    if (covered.length === 0) {
      printNote(io, `No data dir to search: ${await elsewhere(covered)}`);
    }
    for (const s of result.skipped) {
      const what = s.reason === "damaged" ? "damaged" : "too long";
      printNote(
        io,
        `skipped a ${what} line that matches, at byte ${s.offset} of "${s.path}"`,
      );
    }
    if (call.has("json")) {
      writeJson(io, {
        hits: result.hits.map((h) => _json(h, from.get(h)!)),
        skipped: result.skipped,
      });
    } else if (result.hits.length === 0) io.stdout("No matches\n");
    else io.stdout(result.hits.map((h) => _text(h, io)).join("\n"));
    return 0;
  },
});

/** The most hits shown by default (the search's own default). */
const _LIMIT = 50;

/** One data dir's hits: through its index when it has one. */
async function _searchOne(
  dataDir: string,
  call: Call<_Flag>,
  options: SearchOptions,
  io: CliIo,
): Promise<SearchResult> {
  const bar = progressPhases(io, { files: 8 });
  using index = await existingIndex(dataDir, !call.has("no-index"), io);
  const opts: SearchOptions = {
    ...options,
    onProgress: (done, total) => bar.update(done, total, "files"),
  };
  try {
    return await attempt(
      `search the sessions in "${dataDir}"`,
      () =>
        index === undefined
          ? searchSessions(dataDir, call.arg(), opts)
          : index.search(call.arg(), opts),
    );
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError) {
      throw call.usageError(err.message.replace(/^Cannot search: /, ""));
    }
    throw err;
  } finally {
    bar.finish();
  }
}

/** The options that narrow the search, checked. */
function _filters(call: Call<_Flag>): SearchOptions {
  const options: SearchOptions = {};
  const cwd = userPathOf(call.value("cwd"));
  if (cwd !== undefined) options.cwd = cwd;
  const limit = call.value("limit");
  if (limit !== undefined) {
    if (!/^[1-9]\d*$/.test(limit)) {
      throw call.usageError("--limit must be a positive whole number");
    }
    options.limit = Number(limit);
  }
  const role = call.value("role");
  if (role !== undefined) {
    if (!_ROLES.includes(role)) {
      throw call.usageError("--role must be user, assistant, tool or custom");
    }
    options.role = role as NonNullable<SearchOptions["role"]>;
  }
  const since = call.value("since");
  if (since !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(since))) {
      throw call.usageError("--since must be a date, YYYY-MM-DD");
    }
    options.since = since;
  }
  return options;
}

function _json(h: SearchHit, d: CoveredDataDir): Record<string, unknown> {
  return {
    path: h.path,
    agent: d.agent,
    dataDir: d.dataDir,
    sessionId: h.sessionId,
    title: h.title ?? null,
    entryId: h.entryId,
    role: h.role,
    timestamp: h.timestamp,
    snippet: h.snippet,
    onActivePath: h.onActivePath,
  };
}

/** A hit in three lines: when, who and where; the snippet; the file and entry. */
function _text(h: SearchHit, io: CliIo): string {
  const title = truncate(sanitize(h.title ?? "(untitled)"), 60);
  const off = h.onActivePath ? "" : "  (off the active path)";
  const s = sanitize(h.snippet);
  const { start, end } = h.match;
  const snippet = io.isTerminal
    ? `${s.slice(0, start)}${_BOLD}${s.slice(start, end)}${_PLAIN}${
      s.slice(end)
    }`
    : s;
  const at = new Date(h.timestamp);
  const when = Number.isNaN(at.getTime())
    ? sanitize(h.timestamp)
    : localMinute(at);
  return `${when}  ${h.role}  ${title}${off}\n  ${snippet}\n  ${
    sanitize(h.path)
  }#${sanitize(h.entryId)}\n`;
}
