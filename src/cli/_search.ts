/**
 * `cli search`: every session's text searched, newest hits first.
 *
 * @module
 */

import { resolveDataDir } from "../store/data_dir.ts";
import {
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  searchSessions,
} from "../search/search.ts";
import { existingIndex } from "./_index.ts";
import {
  attempt,
  type Call,
  type Command,
  defineCommand,
  noteOversized,
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

Search the text of every session in a data dir: user and assistant text,
tool results and harness messages (not thinking, tool-call arguments or
images; the first 64 Ki characters of each entry). Hits come newest first.

Every word of the query must appear, in any case, anywhere in an entry
(inside CJK text written without spaces too); "a phrase" matches its words
in order; word* matches at the start of a word. Nothing else is special.

With the data dir's session index (see "cli index"), the index is brought up
to date, then searched; without it, the files are read in bounded memory.

Options:
  --data-dir D   the data dir (default: $XDEV_DATA_DIR, else "dataDir" in
                 ~/.xdev/config.jsonc, else ~/.xdev/agent)
  --regex        the query is a regular expression in RE2 syntax (case-
                 insensitive; no backreferences or lookaround; \\d \\w \\s \\b
                 are ASCII); it runs in time linear in the text; always
                 reads the files
  --role R       only user, assistant, tool or custom text
  --cwd C        only the sessions started in the folder C
  --since D      only entries from the day D (UTC) on
  --limit N      at most N hits (default 50)
  --no-index     read the files even when there is an index
  --json         print { "hits": [ ... ], "skipped": [ ... ],
                 "oversizedLines": [ ... ] }

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
    const dataDir = call.value("data-dir") ?? await resolveDataDir();
    const bar = progressPhases(io, { files: 8 });
    const options: SearchOptions = {
      ..._filters(call),
      regex: call.has("regex"),
      onSkip: noteSkipped(io),
      onProgress: (done, total) => bar.update(done, total, "files"),
    };
    let result: SearchResult;
    using index = await existingIndex(dataDir, !call.has("no-index"), io);
    try {
      result = await attempt(
        `search the sessions in "${dataDir}"`,
        () =>
          index === undefined
            ? searchSessions(dataDir, call.arg(), options)
            : index.search(call.arg(), options),
      );
    } catch (err) {
      if (err instanceof TypeError || err instanceof RangeError) {
        throw call.usageError(err.message.replace(/^Cannot search: /, ""));
      }
      throw err;
    } finally {
      bar.finish();
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
        hits: result.hits.map(_json),
        skipped: result.skipped,
        oversizedLines: result.oversizedLines,
      });
    } else if (result.hits.length === 0) io.stdout("No matches\n");
    else io.stdout(result.hits.map((h) => _text(h, io)).join("\n"));
    return 0;
  },
});

/** The options that narrow the search, checked. */
function _filters(call: Call<_Flag>): SearchOptions {
  const options: SearchOptions = {};
  const cwd = call.value("cwd");
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

function _json(h: SearchHit): Record<string, unknown> {
  return {
    path: h.path,
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
