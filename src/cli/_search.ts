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
  DATA_DIR_FLAG,
  defineCommand,
  noteSkipped,
  printNote,
  writeJson,
} from "./_command.ts";
import { noteOversized } from "./_oversized.ts";
import { localMinute, sanitize, textWidth, truncate } from "./_format.ts";
import { type CliIo, colorOn } from "./_io.ts";
import { progressPhases } from "./_progress.ts";
import { SINCE_FLAG, timeBound, timeBoundError } from "./_time.ts";

const ABOUT =
  `Search the text of every session in the data dirs (by default every one
there is among xdev's, omp's and pi's: see the list command): user and
assistant text, tool results and harness messages (not thinking, tool-call
arguments or images; the first 64 Ki characters of each entry). Hits come
newest first.

Every word of the query must appear, in any case, anywhere in an entry
(inside CJK text written without spaces too); "a phrase" matches its words
in order; word* matches at the start of a word. Nothing else is special.

With a data dir's session index (see the index command), the index is
brought up to date, then searched; without it, the files are read in bounded
memory. Each hit ends with FILE#ENTRY, which context, tree, export and fork
take. The exit code is 0 with hits, 1 without (as grep's), 2 for bad usage.

A line longer than the loader's limit (64 MiB) is read by no command: it is
named on stderr (and in --json), never searched.
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
  summary: "Search the text of every session, newest hits first.",
  about: ABOUT,
  flags: {
    "data-dir": DATA_DIR_FLAG,
    regex: {
      help:
        "the query is a regular expression in RE2 syntax (case-insensitive; no backreferences or lookaround; \\d \\w \\s \\b are ASCII); it runs in time linear in the text; always reads the files",
    },
    role: { value: "R", help: "only user, assistant, tool or custom text" },
    cwd: { value: "C", help: "only the sessions started in the folder C" },
    since: SINCE_FLAG,
    limit: { value: "N", help: "at most N hits (default 50)" },
    "no-index": { help: "read the files even when there is an index" },
    json: {
      help:
        'print { "hits": [ ... ], "skipped": [ ... ], "oversizedLines": [ ... ] }; each hit names its "agent" and "dataDir"',
    },
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
    const result: Pick<SearchResult, "hits" | "skipped" | "oversizedLines"> = {
      hits: [],
      skipped: [],
      oversizedLines: [],
    };
    for (const d of covered) {
      const one = await _searchOne(d.dataDir, call, options, io);
      for (const h of one.hits) from.set(h, d);
      result.hits.push(...one.hits);
      result.skipped.push(...one.skipped);
      result.oversizedLines.push(...one.oversizedLines);
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
    noteOversized(io, result.oversizedLines, "its text is not searched");
    if (call.has("json")) {
      writeJson(io, {
        hits: result.hits.map((h) => _json(h, from.get(h)!)),
        skipped: result.skipped,
        oversizedLines: result.oversizedLines,
      });
    } else if (result.hits.length === 0) io.stdout("No matches\n");
    else io.stdout(result.hits.map((h) => _text(h, io)).join("\n"));
    return result.hits.length === 0 ? 1 : 0; // as grep: 1 for no hits
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
  const index = await existingIndex(dataDir, !call.has("no-index"), io);
  try {
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
  } finally {
    index?.[Symbol.dispose]();
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
    const at = timeBound(since, "since");
    if (at === undefined) throw call.usageError(timeBoundError("since", since));
    options.since = at;
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
  const off = h.onActivePath ? "" : "  (off the active path)";
  // The title gives way so the first line fits the terminal (16: the time).
  const room = io.columns - 16 - textWidth(h.role) - textWidth(off) - 4;
  const title = truncate(
    sanitize(h.title ?? "(untitled)"),
    Math.max(12, Math.min(60, room)),
  );
  const { start, end } = h.match;
  // The snippet's end gives way to the terminal's width, never the match.
  let s = sanitize(h.snippet);
  const snippetRoom = io.columns - 2;
  if (textWidth(s) > snippetRoom && textWidth(s.slice(0, end)) < snippetRoom) {
    s = truncate(s, snippetRoom, "end");
  }
  const snippet = colorOn(io)
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
