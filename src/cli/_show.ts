/**
 * `cli show`: what opening a session file finds.
 *
 * @module
 */

import { formatBytes, formatTable, sanitize } from "./_format.ts";
import {
  cliFailure,
  type CliIo,
  flagValue,
  onePositional,
  parseArgs,
} from "./_io.ts";
import type { LoadIssue } from "../format/issues.ts";
import { Session } from "../session/session.ts";
import { TITLE_SLOT_BYTES } from "../format/title_slot.ts";

const _HELP = `Usage: cli show <file> [--data-dir D] [--full] [--json]

Open a session file (never modifying it) and print what the loader found:
the header, the title and its slot, the entries in memory by type, the leaf,
what the windowed open read, and every piece of damage it read around.

Options:
  --data-dir D   where blobs/ lives (default: the nearest ancestor of the
                 file that holds blobs/)
  --full         read every line instead of the window: counts and damage
                 then cover the whole file
  --json         print one object instead of text
`;

/** The title slot as `show` reports it. */
type _SlotState =
  | { state: "ok"; updatedAt: string }
  | { state: "wrong-width" | "ignored"; reason: string }
  | { state: "absent" };

/**
 * Run `show`.
 *
 * @param args The command's arguments.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runShow(args: string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(args, {
    "data-dir": true,
    full: false,
    json: false,
    help: false,
  });
  if (parsed.flags.has("help")) {
    io.stdout(_HELP);
    return 0;
  }
  const file = onePositional(parsed, "show", "<file>");
  const dataDir = flagValue(parsed, "data-dir");
  let session: Session;
  try {
    session = await Session.open(file, {
      ...(dataDir === undefined ? {} : { dataDir }),
      window: !parsed.flags.has("full"),
    });
  } catch (err) {
    throw cliFailure(`Cannot open "${file}"`, err);
  }
  await using _ = session;
  const byType: Record<string, number> = {};
  for (const e of session.entries) byType[e.type] = (byType[e.type] ?? 0) + 1;
  const report = {
    path: session.path ?? file,
    header: session.header,
    title: session.title ?? null,
    titleSource: session.titleSource ?? null,
    titleSlot: _slotState(session),
    migrated: session.migrated,
    entriesByType: byType,
    leafId: session.leafId,
    window: session.windowStats(),
    fileBytes: (await Deno.stat(file)).size,
    issues: session.issues.map((i: LoadIssue) => ({
      kind: i.kind,
      line: i.line,
      offset: i.offset,
      message: i.message,
    })),
  };
  if (parsed.flags.has("json")) {
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  const w = report.window;
  const lines = [
    `file      ${report.path}`,
    `title     ${report.title ?? "(untitled)"}${
      report.titleSource === null ? "" : ` (${report.titleSource})`
    }`,
    `slot      ${_slotText(report.titleSlot)}`,
    `leaf      ${report.leafId ?? "(no entries)"}`,
    `window    ${w.windowed ? "windowed" : "whole file"}: ${w.retained} ${
      w.retained === 1 ? "entry" : "entries"
    } kept, ${w.seen} lines seen, ${formatBytes(w.bytesRead)} read of ${
      formatBytes(report.fileBytes)
    }`,
    "",
    "header",
    ..._indent(Object.entries(report.header).map(([k, v]) => [k, _value(v)])),
    "",
    `entries in memory${
      w.windowed ? " (the window; --full or stats counts the whole file)" : ""
    }`,
    ..._indent(
      Object.entries(byType).sort(([a], [b]) => a < b ? -1 : 1)
        .map(([k, v]) => [k, String(v)]),
    ),
    "",
    `issues: ${report.issues.length === 0 ? "none" : report.issues.length}`,
  ];
  let text = lines.map(sanitize).join("\n");
  if (report.issues.length > 0) {
    text += `\n${
      formatTable(
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
        io.columns,
      )
    }`;
  }
  io.stdout(`${text}\n`);
  return 0;
}

function _slotState(session: Session): _SlotState {
  const slotIssue = session.issues.find((i) => i.kind === "title-slot");
  const slot = session.titleSlot;
  if (slot !== undefined && slotIssue === undefined) {
    return { state: "ok", updatedAt: slot.updatedAt };
  }
  if (slotIssue !== undefined) {
    return {
      state: slot === undefined ? "ignored" : "wrong-width",
      reason: slotIssue.message,
    };
  }
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
