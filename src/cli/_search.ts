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
import { type Command, defineCommand, writeJson } from "./_command.ts";
import { attempt } from "./_failure.ts";
import { sanitize, truncate } from "./_format.ts";
import type { CliIo } from "./_io.ts";
import { type Progress, progressBar } from "./_progress.ts";

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
  --regex        the query is a JavaScript regular expression (case-
                 insensitive); always reads the files
  --role R       only user, assistant, tool or custom text
  --cwd C        only the sessions started in the folder C
  --since D      only entries from the day D (UTC) on
  --limit N      at most N hits (default 50)
  --no-index     read the files even when there is an index
  --json         print { "hits": [ ... ], "skipped": [ ... ] }
`;

/** Files from which a progress bar is drawn (on a terminal). */
const _PROGRESS_FROM = 8;
const _BOLD = "\x1b[1;4m";
const _PLAIN = "\x1b[22;24m";

/** `cli search`. */
export const search: Command = defineCommand({
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
    const progress = _progress(io);
    const options: SearchOptions = {
      regex: call.has("regex"),
      index: !call.has("no-index"),
      onSkip: (path, reason) =>
        io.stderr(`${sanitize(`skipped "${path}": ${reason}`)}\n`),
      onWarning: (message) => io.stderr(`${sanitize(message)}\n`),
      onProgress: progress.update,
    };
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
      if (!["user", "assistant", "tool", "custom"].includes(role)) {
        throw call.usageError("--role must be user, assistant, tool or custom");
      }
      options.role = role as NonNullable<SearchOptions["role"]>;
    }
    const since = call.value("since");
    if (since !== undefined) {
      if (
        !/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(since))
      ) {
        throw call.usageError("--since must be a date, YYYY-MM-DD");
      }
      options.since = since;
    }
    let result: SearchResult;
    try {
      result = await attempt(
        `search the sessions in "${dataDir}"`,
        () => searchSessions(dataDir, call.arg(), options),
      );
    } catch (err) {
      if (err instanceof TypeError || err instanceof RangeError) {
        throw call.usageError(err.message.replace(/^Cannot search: /, ""));
      }
      throw err;
    } finally {
      progress.finish();
    }
    for (const s of result.skipped) {
      io.stderr(
        `${
          sanitize(
            `skipped a ${
              s.reason === "damaged" ? "damaged" : "too long"
            } line that matches, at byte ${s.offset} of "${s.path}"`,
          )
        }\n`,
      );
    }
    if (call.has("json")) {
      writeJson(io, {
        hits: result.hits.map(_json),
        skipped: result.skipped,
      });
      return 0;
    }
    if (result.hits.length === 0) {
      io.stdout("No matches\n");
      return 0;
    }
    io.stdout(result.hits.map((h) => _text(h, io)).join("\n"));
    return 0;
  },
});

/** A progress bar per phase (refreshing the index, reading files). */
function _progress(
  io: CliIo,
): { update: (done: number, total: number) => void; finish: () => void } {
  let bar: Progress | undefined;
  let total = -1;
  let done = 0;
  return {
    update: (n, all) => {
      if (all !== total) {
        bar?.finish(done);
        total = all;
        bar = progressBar(io, {
          total,
          unit: "files",
          minimum: _PROGRESS_FROM,
        });
      }
      done = n;
      bar!.update(n);
    },
    finish: () => bar?.finish(done),
  };
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
  return `${_when(h.timestamp)}  ${h.role}  ${title}${off}\n  ${snippet}\n  ${
    sanitize(h.path)
  }#${sanitize(h.entryId)}\n`;
}

/** `2026-09-28 10:05` in local time, or the timestamp as written. */
function _when(timestamp: string): string {
  const d = new Date(timestamp);
  if (Number.isNaN(d.getTime())) return sanitize(timestamp);
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${
    p(d.getHours())
  }:${p(d.getMinutes())}`;
}
