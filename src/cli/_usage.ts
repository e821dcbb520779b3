/**
 * `cli usage`: tokens, requests and cost of every session, grouped by day,
 * week, month, session, model or project.
 *
 * @module
 */

import {
  type UsageReport,
  usageReport,
  type UsageReportOptions,
  type UsageRow,
} from "../usage/usage_report.ts";
import {
  type CoveredDataDir,
  coveredDataDirs,
  elsewhere,
  sessionsIn,
} from "./_data_dirs.ts";
import { existingIndex, indexWarnings } from "./_index.ts";
import { mergeUsageReports, USAGE_FIGURES } from "./_usage_merge.ts";
import {
  attempt,
  type Call,
  type Command,
  DATA_DIR_FLAG,
  defineCommand,
  noteSkipped,
  writeJson,
} from "./_command.ts";
import { noteOversized } from "./_oversized.ts";
import { sanitize, textWidth } from "./_format.ts";
import {
  formatCompact,
  formatCount,
  formatMoney,
  moneyDigits,
} from "../format/numbers.ts";
import { progressPhases } from "./_progress.ts";
import { SINCE_FLAG, timeBound, timeBoundError, UNTIL_FLAG } from "./_time.ts";
import { formatTable, type TableColumn } from "./_table.ts";
import { wrapWords } from "./_wrap.ts";

const ABOUT =
  `Tokens, requests and cost of every model call the sessions of the data
dirs record (by default every one there is among xdev's, omp's and pi's:
see the list command; one table each; subagents included), counted as omp's
own statistics count them: each assistant message with a usage and each
model_usage entry, once. An entry a fork copied from its parent (same id
and time) counts once, in the session created first. Failed: stop reason "error"; aborted: "aborted".
The cost is what each call recorded (usage.cost.total); calls that record
none count 0 and are reported (omp prices them from its catalog). A line
longer than the loader's limit (64 MiB) is read by no command: it is named
on stderr (and in --json), and a call on it is not counted.

Uses each data dir's session index when it has one (made by the index or
the list command): only what changed is read, and the calls of
deleted session files still count. It never makes one: without it, each
file is read once, in chunks, which is faster than building an index.
`;

const _GROUPINGS = ["day", "week", "month", "session", "model", "project"];

const _HEADINGS: Record<UsageReport["by"], string> = {
  day: "day",
  week: "week of",
  month: "month",
  session: "session",
  model: "model",
  project: "project",
};

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
export const command: Command = defineCommand<_Flag>({
  name: "usage",
  summary:
    "Tokens, requests and cost of every session, each call counted once.",
  about: ABOUT,
  flags: {
    "data-dir": DATA_DIR_FLAG,
    by: {
      value: "G",
      help:
        "rows by day (default), week (weeks start on Monday; the key is that Monday), month, session (its id), model (provider/model) or project (the session's cwd)",
    },
    since: SINCE_FLAG,
    until: UNTIL_FLAG,
    utc: {
      help:
        "rows by days, weeks and months in UTC (default: the local time zone); --since and --until stay local",
    },
    "exclude-deleted": { help: "leave out the calls of deleted session files" },
    "no-index": { help: "read the files, even where there is an index" },
    json: {
      help:
        'print { totals, rows, ... } as JSON: the data dirs\' figures summed; each row names its "agent" and "dataDir", and "dataDirs" each one\'s totals',
    },
    csv: { help: "print the rows as CSV, with a header line" },
  },
  run: async (call, io) => {
    const by = call.value("by") ?? "day";
    if (!_GROUPINGS.includes(by)) {
      throw call.usageError(
        `--by must be one of ${_GROUPINGS.join(", ")}, not "${by}"`,
      );
    }
    const days = _days(call);
    if (call.has("json") && call.has("csv")) {
      throw call.usageError("--json and --csv exclude each other");
    }
    const covered = await coveredDataDirs(call.values("data-dir"));
    const reports: [CoveredDataDir, UsageReport][] = [];
    const titles = new Map<string, string>();
    for (const d of covered) {
      const bar = progressPhases(io, { bytes: 64 << 20, files: 200 });
      const options: UsageReportOptions = {
        by: by as UsageReport["by"],
        ...days,
        ...(call.has("utc") ? { timeZone: "UTC" } : {}),
        excludeDeleted: call.has("exclude-deleted"),
        onProgress: bar.update,
        onSkip: noteSkipped(io),
      };
      const index = await existingIndex(d.dataDir, !call.has("no-index"), io);
      let report: UsageReport;
      try {
        report = await attempt(
          `report the usage of "${d.dataDir}"`,
          () =>
            index === undefined
              ? usageReport(d.dataDir, options)
              : index.usageReport(options),
        );
      } finally {
        bar.finish(); // a bar is never left on screen, even under an error
        index?.[Symbol.dispose]();
      }
      noteOversized(io, report.oversizedLines, "a call on it is not counted");
      reports.push([d, report]);
      if (by === "session" && !call.has("json") && !call.has("csv")) {
        const use = { indexed: !call.has("no-index"), create: false };
        const found = await attempt(
          `list the sessions in "${d.dataDir}"`,
          () =>
            sessionsIn(
              d.dataDir,
              { includeSubagents: true },
              use,
              indexWarnings(io),
            ),
        );
        for (const s of found) {
          if (s.title !== undefined && !titles.has(s.id)) {
            titles.set(s.id, s.title);
          }
        }
      }
    }
    if (reports.length === 0) {
      io.stdout(`No model calls found (${await elsewhere(covered)})\n`);
    } else if (call.has("json")) writeJson(io, mergeUsageReports(reports));
    else if (call.has("csv")) {
      io.stdout(_csv(mergeUsageReports(reports).rows));
    } else if (reports.length === 1) {
      io.stdout(_text(reports[0]![1], io.columns, titles));
    } else {
      io.stdout(
        reports.map(([d, r]) =>
          `${sanitize(`${d.agent}: ${d.dataDir}`)}\n${
            _text(r, io.columns, titles)
          }`
        ).join("\n"),
      );
    }
    return 0;
  },
});

/** `--since` and `--until` as moments: local days or ISO times ({@linkcode timeBound}). */
function _days(call: Call<_Flag>): { since?: Date; until?: Date } {
  const out: { since?: Date; until?: Date } = {};
  for (const flag of ["since", "until"] as const) {
    const text = call.value(flag);
    if (text === undefined) continue;
    const at = timeBound(text, flag);
    if (at === undefined) throw call.usageError(timeBoundError(flag, text));
    out[flag] = at;
  }
  return out;
}

/** The table, its totals row last, then what was not counted in full. */
function _text(
  report: UsageReport,
  width: number,
  titles: ReadonlyMap<string, string>,
): string {
  if (report.rows.length === 0) return "No model calls found\n";
  const natural = _table(report, Infinity, false, titles);
  const fits = natural.split("\n").every((l) => textWidth(l) <= width);
  const notes: string[] = [];
  if (report.by === "day" || report.by === "week" || report.by === "month") {
    notes.push(`Days in ${report.timeZone}.`);
  }
  const requests = (n: number): string =>
    n === 1 ? "1 request has" : `${formatCount(n)} requests have`;
  if (report.malformedRequests > 0) {
    notes.push(
      `${
        requests(report.malformedRequests)
      } a malformed token count or cost, counted as 0.`,
    );
  }
  if (report.unpricedRequests > 0) {
    notes.push(
      `${
        requests(report.unpricedRequests)
      } no recorded cost, counted as $0 (omp prices them from its catalog).`,
    );
  }
  const table = fits ? natural : _table(report, width, true, titles);
  const tail = notes.length === 0
    ? ""
    : `\n${wrapWords(sanitize(notes.join(" ")), width).join("\n")}\n`;
  return `${table}\n${tail}`;
}

/**
 * The rows and the totals; counts in compact form when the width is short.
 * Each column reads one way: counts all grouped or all compact, amounts with
 * the same decimals. A session's row has its title beside its id.
 */
function _table(
  report: UsageReport,
  width: number,
  compact: boolean,
  titles: ReadonlyMap<string, string>,
): string {
  const n = compact ? formatCompact : formatCount;
  const digits = moneyDigits(
    [...report.rows, report.totals].map((r) => r.cost),
  );
  const bySession = report.by === "session";
  const cells = (key: string, f: UsageReport["totals"]): string[] => [
    ...(bySession && key !== "total"
      ? [key, titles.get(key) ?? ""]
      : bySession
      ? [key, ""]
      : [key]),
    n(f.requests),
    n(f.failedRequests),
    n(f.abortedRequests),
    n(f.inputTokens),
    n(f.outputTokens),
    n(f.cacheReadTokens),
    n(f.cacheWriteTokens),
    formatMoney(f.cost, { digits }),
  ];
  const key: TableColumn[] = bySession
    ? [
      // A cut id is still a prefix every command takes; the table keeps
      // different ids apart, so what is shown is unique.
      { header: "session", shrink: "end", ownCutOnly: true, min: 13 },
      { header: "title", shrink: "end", priority: 1, min: 20 },
    ]
    : [{
      header: _HEADINGS[report.by],
      shrink: report.by === "project"
        ? "start"
        : report.by === "model"
        ? "middle"
        : "end",
      min: 12,
    }];
  const columns: TableColumn[] = [
    ...key,
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
  return formatTable(columns, rows, width, { leftOutHint: "--json has them" });
}

/** The rows as CSV: a header line, then a line per row. */
function _csv(rows: readonly UsageRow[]): string {
  const lines = [["key", ...USAGE_FIGURES].join(",")];
  for (const row of rows) {
    lines.push(
      [_csvCell(row.key), ...USAGE_FIGURES.map((f) => row[f])].join(","),
    );
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
