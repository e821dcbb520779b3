/**
 * `cli show`: what opening a session file finds.
 *
 * @module
 */

import { fs } from "../_fs.ts";
import { TITLE_SLOT_BYTES } from "../format/title_slot.ts";
import type { Session } from "../session/session.ts";
import { type Command, defineCommand, writeJson } from "./_command.ts";
import { openSession } from "./_context.ts";
import { formatBytes, plural, sanitize } from "./_format.ts";
import { indexWarnings } from "./_index.ts";
import { refuseEntry, resolveSessionArg } from "./_session_arg.ts";
import { formatTable } from "./_table.ts";

const ABOUT =
  `Open a session (a file, a session id or the start of one; never modifying
it) and print what the loader found: the header, the title and its slot,
the entries in memory by type, the leaf, what the windowed open read, and
every piece of damage it read around.
`;

/** The title slot as `show` reports it. */
type _SlotState =
  | { state: "ok"; updatedAt: string }
  | { state: "wrong-width" | "ignored"; reason: string }
  | { state: "absent" };

/** `cli show`. */
export const command: Command = defineCommand({
  name: "show",
  summary: "What opening a session finds: header, title, leaf, window, damage.",
  about: ABOUT,
  flags: {
    "data-dir": {
      value: "D",
      help:
        "where blobs/ lives, and where an id is looked up (default: the nearest ancestor of the file that holds blobs/; ids: every data dir of xdev, omp and pi)",
    },
    full: {
      help:
        "read every line instead of the window: counts and damage then cover the whole file",
    },
    json: { help: "print one object instead of text" },
  },
  args: ["<session>"],
  run: async (call, io) => {
    const onWarning = indexWarnings(io);
    const arg = await resolveSessionArg(call.arg(), {
      dataDirs: call.values("data-dir"),
      onWarning,
    });
    refuseEntry(arg, call.name);
    const file = arg.path;
    const session = await openSession(file, {
      dataDir: call.value("data-dir") ?? arg.dataDir,
      window: !call.has("full"),
      onWarning,
    });
    try {
      const report = await _report(session, file);
      if (call.has("json")) writeJson(io, report);
      else io.stdout(`${_text(report, io.columns, call.has("full"))}\n`);
      return 0;
    } finally {
      await session?.[Symbol.asyncDispose]();
    }
  },
});

type _Report = Awaited<ReturnType<typeof _report>>;

async function _report(session: Session, file: string) {
  const byType = new Map<string, number>();
  for (const e of session.entries) {
    byType.set(e.type, (byType.get(e.type) ?? 0) + 1); // a Map: `constructor` is a type too
  }
  return {
    path: session.path ?? file,
    header: session.header,
    title: session.title ?? null,
    titleSource: session.titleSource ?? null,
    titleSlot: _slotState(session),
    migrated: session.migrated,
    entriesByType: byType,
    leafId: session.leafId,
    window: session.windowStats(),
    fileBytes: (await fs().stat(file)).size,
    issues: session.issues.map((i) => ({
      kind: i.kind,
      line: i.line,
      offset: i.offset,
      message: i.message,
    })),
  };
}

/**
 * The report as text. `window` says whether the open left bytes unread
 * ("windowed") or read every one ("whole file"); either way a windowed open
 * keeps only the window's entries, which `full` (--full) does not.
 */
function _text(report: _Report, width: number, full: boolean): string {
  const w = report.window;
  const source = report.titleSource === null ? "" : ` (${report.titleSource})`;
  const lines = [
    `file      ${report.path}`,
    `title     ${report.title ?? "(untitled)"}${source}`,
    `slot      ${_slotText(report.titleSlot)}`,
    `leaf      ${report.leafId ?? "(no entries)"}`,
    `window    ${w.windowed ? "windowed" : "whole file"}: ${
      plural(w.retained, "entry", "entries")
    } kept, ${w.seen} lines seen, ${formatBytes(w.bytesRead)} read of ${
      formatBytes(report.fileBytes)
    }`,
    "",
    "header",
    ..._indent(Object.entries(report.header).map(([k, v]) => [k, _value(v)])),
    "",
    `entries in memory${
      full ? "" : " (the window; --full or stats counts the whole file)"
    }`,
    ..._indent(
      [...report.entriesByType].sort(([a], [b]) => a < b ? -1 : 1)
        .map(([k, v]) => [k, String(v)]),
    ),
    "",
    `issues: ${report.issues.length === 0 ? "none" : report.issues.length}`,
  ];
  const text = lines.map(sanitize).join("\n");
  if (report.issues.length === 0) return text;
  const table = formatTable(
    [
      { header: "  kind" },
      { header: "line", right: true },
      { header: "offset", right: true },
      { header: "message", shrink: "end", min: 20 },
    ],
    report.issues.map((i) => [
      `  ${i.kind}`,
      i.line === 0 ? "-" : String(i.line),
      i.offset < 0 ? "-" : String(i.offset),
      i.message,
    ]),
    width,
  );
  return `${text}\n${table}`;
}

function _slotState(session: Session): _SlotState {
  const slotIssue = session.issues.find((i) => i.kind === "title-slot");
  const slot = session.titleSlot;
  if (slotIssue !== undefined) {
    return {
      state: slot === undefined ? "ignored" : "wrong-width",
      reason: slotIssue.message,
    };
  }
  if (slot !== undefined) return { state: "ok", updatedAt: slot.updatedAt };
  return { state: "absent" };
}

function _slotText(s: _SlotState): string {
  switch (s.state) {
    case "ok":
      return `${TITLE_SLOT_BYTES} bytes, updated ${s.updatedAt}`;
    case "absent":
      return "none (a legacy file: the header is line 1)";
    default:
      return `${s.state}: ${s.reason}`;
  }
}

function _indent(pairs: string[][]): string[] {
  const width = Math.max(0, ...pairs.map(([k]) => k!.length));
  return pairs.map(([k, v]) => `  ${k!.padEnd(width)}  ${v}`);
}

function _value(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}
