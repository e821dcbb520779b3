/**
 * `cli usage`: tokens, requests and cost of every session, grouped by day,
 * week, month, session, model or project.
 *
 * @module
 */

import { resolveDataDir } from "../store/data_dir.ts";
import {
  type UsageReport,
  usageReport,
  type UsageRow,
} from "../usage/usage_report.ts";
import {
  type Call,
  type Command,
  defineCommand,
  writeJson,
} from "./_command.ts";
import { attempt } from "./_failure.ts";
import { sanitize, textWidth } from "./_format.ts";
import { formatCompact, formatCount, formatFixed } from "./_numbers.ts";
import type { CliIo } from "./_io.ts";
import { type Progress, progressBar } from "./_progress.ts";
import { formatTable, type TableColumn } from "./_table.ts";

const HELP =
  `Usage: cli usage [--data-dir D] [--by day|week|month|session|model|project]
                 [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--utc]
                 [--exclude-deleted] [--no-index] [--json | --csv]

Tokens, requests and cost of every model call the sessions of a data dir
record (subagents included), counted as omp's own statistics count them:
each assistant message with a usage and each model_usage entry, once. An
entry a fork copied from its parent (same id and time) counts once, in the
session created first. Failed: stop reason "error"; aborted: "aborted".
The cost is what each call recorded (usage.cost.total); calls that record
none count 0 and are reported (omp prices them from its catalog).

Uses the data dir's session index when it has one (index.sqlite, made by
"cli index" or "cli list"): only what changed is read, and the calls of
deleted session files still count. It never makes one: without it, each
file is read once, in chunks, which is faster than building an index.

Options:
  --data-dir D       the data dir (default: $XDEV_DATA_DIR, else "dataDir" in
                     ~/.xdev/config.jsonc, else ~/.xdev/agent)
  --by G             rows by day (default), week (weeks start on Monday; the
                     key is that Monday), month, session (its id), model
                     (provider/model) or project (the session's cwd)
  --since DAY        count calls from this day on (files last modified
                     before it are not opened)
  --until DAY        count calls up to this day, included
  --utc              days in UTC (default: the local time zone)
  --exclude-deleted  leave out the calls of deleted session files
  --no-index         read the files, even where there is an index
  --json             print { totals, rows, ... } as JSON
  --csv              print the rows as CSV, with a header line
`;

const _GROUPINGS = ["day", "week", "month", "session", "model", "project"];

/** Work from which a progress bar is drawn (on a terminal). */
const _PROGRESS_FROM = { bytes: 64 << 20, files: 200 };

const _FIELDS = [
  "requests",
  "failedRequests",
  "abortedRequests",
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "cost",
] as const satisfies readonly (keyof UsageRow)[];

type _Grouping = UsageReport["by"];
type _Figures = UsageReport["totals"];

type _Flag =
  | "data-dir"
  | "by"
  | "since"
  | "until"
  | "utc"
  | "exclude-deleted"
  | "no-index"
  | "json"
  | "csv";

/** `cli usage`. */
export const usage: Command = defineCommand<_Flag>({
  name: "usage",
  help: HELP,
  flags: {
    "data-dir": "value",
    by: "value",
    since: "value",
    until: "value",
    utc: "switch",
    "exclude-deleted": "switch",
    "no-index": "switch",
    json: "switch",
    csv: "switch",
  },
  run: async (call, io) => {
    const by = _grouping(call);
    const days = _days(call);
    if (call.has("json") && call.has("csv")) {
      throw call.usageError("--json and --csv exclude each other");
    }
    const dataDir = call.value("data-dir") ?? await resolveDataDir();
    const bar = _lazyBar(io);
    const report = await attempt(
      `report the usage of "${dataDir}"`,
      () =>
        usageReport(dataDir, {
          by,
          ...days,
          ...(call.has("utc") ? { timeZone: "UTC" } : {}),
          excludeDeleted: call.has("exclude-deleted"),
          index: !call.has("no-index"),
          onProgress: bar.update,
          onWarning: (m) => io.stderr(`${sanitize(`warning: ${m}`)}\n`),
          onSkip: (path, reason) =>
            io.stderr(`${sanitize(`skipped "${path}": ${reason}`)}\n`),
        }),
    );
    bar.finish();
    if (call.has("json")) writeJson(io, report);
    else if (call.has("csv")) io.stdout(_csv(report.rows));
    else io.stdout(_text(report, io.columns));
    return 0;
  },
});

function _grouping(call: Call<_Flag>): _Grouping {
  const by = call.value("by") ?? "day";
  if (!_GROUPINGS.includes(by)) {
    throw call.usageError(
      `--by must be one of ${_GROUPINGS.join(", ")}, not "${by}"`,
    );
  }
  return by as _Grouping;
}

function _days(call: Call<_Flag>): { since?: string; until?: string } {
  const out: { since?: string; until?: string } = {};
  for (const flag of ["since", "until"] as const) {
    const day = call.value(flag);
    if (day === undefined) continue;
    const t = Date.parse(`${day}T00:00:00Z`);
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(day) || !Number.isFinite(t) ||
      new Date(t).toISOString().slice(0, 10) !== day
    ) {
      throw call.usageError(
        `--${flag} must be a date YYYY-MM-DD, not "${day}"`,
      );
    }
    out[flag] = day;
  }
  return out;
}

/** A bar made on the first progress report, when the work is worth one. */
function _lazyBar(
  io: CliIo,
): { update: (d: number, t: number, u: string) => void; finish(): void } {
  let bar: Progress | undefined;
  let unit = "";
  let last = 0;
  return {
    update: (done, total, u) => {
      if (u !== unit) {
        bar?.finish(last);
        unit = u;
        bar = progressBar(io, {
          total,
          unit: u === "bytes" ? "bytes" : "files",
          minimum: u === "bytes" ? _PROGRESS_FROM.bytes : _PROGRESS_FROM.files,
        });
      }
      last = done;
      bar?.update(done);
    },
    finish: () => bar?.finish(last),
  };
}

const _HEADINGS: Record<_Grouping, string> = {
  day: "day",
  week: "week of",
  month: "month",
  session: "session",
  model: "model",
  project: "project",
};

/** The table, its totals row last, then what was not counted in full. */
function _text(report: UsageReport, width: number): string {
  if (report.rows.length === 0) return "No model calls found\n";
  const natural = _table(report, Infinity, false);
  const fits = natural.split("\n").every((l) => textWidth(l) <= width);
  const notes: string[] = [];
  if (report.by === "day" || report.by === "week" || report.by === "month") {
    notes.push(`Days in ${report.timeZone}.`);
  }
  if (report.malformedRequests > 0) {
    notes.push(
      `${
        _requests(report.malformedRequests)
      } a malformed token count or cost, counted as 0.`,
    );
  }
  if (report.unpricedRequests > 0) {
    notes.push(
      `${
        _requests(report.unpricedRequests)
      } no recorded cost, counted as $0 (omp prices them from its catalog).`,
    );
  }
  const table = fits ? natural : _table(report, width, true);
  const tail = notes.length === 0 ? "" : `\n${sanitize(notes.join(" "))}\n`;
  return `${table}\n${tail}`;
}

function _requests(n: number): string {
  return n === 1 ? "1 request has" : `${_whole(n)} requests have`;
}

function _table(report: UsageReport, width: number, compact: boolean): string {
  const n = compact ? _compact : _whole;
  const cells = (key: string, f: _Figures): string[] => [
    key,
    n(f.requests),
    n(f.failedRequests),
    n(f.abortedRequests),
    n(f.inputTokens),
    n(f.outputTokens),
    n(f.cacheReadTokens),
    n(f.cacheWriteTokens),
    formatMoney(f.cost),
  ];
  const columns: TableColumn[] = [
    {
      header: _HEADINGS[report.by],
      shrink: report.by === "project" ? "start" : "end",
      min: 12,
    },
    { header: "requests", right: true },
    { header: "failed", right: true, optional: true },
    { header: "aborted", right: true, optional: true },
    { header: "input", right: true },
    { header: "output", right: true },
    { header: "cache read", right: true, optional: true },
    { header: "cache write", right: true, optional: true },
    { header: "cost", right: true },
  ];
  const rows = report.rows.map((r) => cells(r.key, r));
  rows.push(cells("total", report.totals));
  return formatTable(columns, rows, width);
}

const _whole = formatCount;
const _compact = formatCompact;

/**
 * Dollars for people: cents from $1 up (`$1,234.56`), four decimals below
 * (`$0.0048`), `<$0.0001` for less, `$0.00` for nothing.
 *
 * @param dollars An amount.
 * @returns The text.
 */
export function formatMoney(dollars: number): string {
  if (dollars === 0) return "$0.00";
  if (dollars < 0.0001) return "<$0.0001";
  return `$${formatFixed(dollars, dollars >= 1 ? 2 : 4)}`;
}

/** The rows as CSV: a header line, then a line per row. */
function _csv(rows: readonly UsageRow[]): string {
  const lines = [["key", ..._FIELDS].join(",")];
  for (const row of rows) {
    lines.push([_csvCell(row.key), ..._FIELDS.map((f) => row[f])].join(","));
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A text cell: quoted when it holds a comma, a quote or a line break; a
 * leading `=`, `+`, `-`, `@` gets a `'` so a spreadsheet does not run it.
 */
function _csvCell(text: string): string {
  let t = sanitize(text);
  if (/^[=+\-@]/.test(t)) t = `'${t}`;
  return /[",]/.test(t) ? `"${t.replaceAll('"', '""')}"` : t;
}
