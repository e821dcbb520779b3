/**
 * `cli stats`: what a session file holds and what opening it costs.
 *
 * @module
 */

import { relative } from "node:path";
import {
  type BlobSizes,
  type FileFigures,
  fileFigures,
  totalFigures,
} from "./_figures.ts";
import { formatBytes, sanitizeLines } from "./_format.ts";
import { formatCount } from "./_numbers.ts";
import { progressBar } from "./_progress.ts";
import { formatTable } from "./_table.ts";
import {
  type Command,
  defineCommand,
  printError,
  writeJson,
} from "./_command.ts";
import { attempt } from "./_failure.ts";
import type { CliIo } from "./_io.ts";
import { findSessionFiles } from "./_scan.ts";

const HELP = `Usage: cli stats <file|dir> [--data-dir D] [--json]

Count what a session file holds, reading it once in chunks: entries by type,
messages by role, tokens, compactions, resets, branches, labels, blob
references and the bytes of the blobs they name. Then open it as a resume
does and report the window: the bytes read and the entries kept against the
file's size (the figures to look at when a session opens slowly).

For a folder, every *.jsonl under it (recursively), then the totals.

Options:
  --data-dir D   where blobs/ lives (default: for each file, the nearest
                 ancestor that holds blobs/)
  --json         print an object (a folder: { files, totals, errors })
`;

/** Files from which a progress bar is drawn (on a terminal). */
const _PROGRESS_FROM = 8;

/** `cli stats`. */
export const stats: Command = defineCommand({
  name: "stats",
  help: HELP,
  flags: { "data-dir": "value", json: "switch" },
  args: ["<file|dir>"],
  run: async (call, io) => {
    const target = call.arg();
    const dataDir = call.value("data-dir");
    const json = call.has("json");
    const info = await attempt(`read "${target}"`, () => Deno.stat(target));
    const sizes: BlobSizes = new Map();
    if (info.isDirectory) {
      return await _dirStats(target, dataDir, sizes, json, io);
    }
    const figures = await fileFigures(target, dataDir, sizes);
    if (json) writeJson(io, { path: target, ...figures });
    else {
      const text = `file        ${target}\n${_block(figures, false)}`;
      io.stdout(`${sanitizeLines(text)}\n`);
    }
    return 0;
  },
});

async function _dirStats(
  dir: string,
  dataDir: string | undefined,
  sizes: BlobSizes,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const files = await attempt(
    `read the folder "${dir}"`,
    () => findSessionFiles(dir),
  );
  const progress = progressBar(io, {
    total: files.length,
    unit: "files",
    minimum: _PROGRESS_FROM,
  });
  const done: { path: string; stats: FileFigures }[] = [];
  const errors: { path: string; message: string }[] = [];
  for (const [i, path] of files.entries()) {
    progress.update(i);
    try {
      done.push({ path, stats: await fileFigures(path, dataDir, sizes) });
    } catch (err) {
      errors.push({ path, message: (err as Error).message });
    }
  }
  progress.finish(files.length);
  const totals = totalFigures(done.map((d) => d.stats), sizes);
  if (json) {
    const out = { files: done.map((d) => ({ path: d.path, ...d.stats })) };
    writeJson(io, { ...out, totals, errors });
  } else if (files.length === 0) {
    io.stdout(`No *.jsonl files under ${dir}\n`);
  } else {
    const rows = done.map(({ path, stats: s }) => [
      relative(dir, path),
      _n(s.entries),
      _n(s.tokens.usage),
      _n(s.tokens.context),
      _n(s.blobs),
      formatBytes(s.fileBytes),
      formatBytes(s.window.bytesRead),
      `${_n(s.window.retained)}/${_n(s.entries)}`,
    ]);
    const table = formatTable(
      [
        { header: "file", shrink: "start", min: 12 },
        { header: "entries", right: true },
        { header: "tokens used", right: true },
        { header: "in context", right: true },
        { header: "blobs", right: true },
        { header: "size", right: true },
        { header: "open reads", right: true },
        { header: "kept", right: true },
      ],
      rows,
      io.columns,
    );
    const n = `${done.length} ${done.length === 1 ? "file" : "files"}`;
    io.stdout(
      `${table}\n\nTotals (${n})\n${sanitizeLines(_block(totals, true))}\n`,
    );
  }
  for (const e of errors) printError(io, e.message);
  return errors.length > 0 ? 1 : 0;
}

/** The figures as `name  value` lines. */
function _block(s: FileFigures, totals: boolean): string {
  const pct = (a: number, b: number): string =>
    b === 0 ? "" : ` (${(100 * a / b).toFixed(1)} %)`;
  const missing = s.missingBlobs === 0 ? "" : `, ${s.missingBlobs} missing`;
  const bad = s.badBlobRefs === 0 ? "" : `, ${s.badBlobRefs} malformed`;
  const pairs: [string, string][] = [
    ["size", formatBytes(s.fileBytes)],
    ["entries", `${_n(s.entries)}${_breakdown(s.entriesByType)}`],
    [
      "messages",
      `${_n(_sum(s.messagesByRole))}${_breakdown(s.messagesByRole)}`,
    ],
    [
      "tokens",
      `${_n(s.tokens.usage)} used by assistant turns; ~${
        _n(s.tokens.context)
      } in the context${totals ? "s" : ""} on resume`,
    ],
    ["compactions", _n(s.compactions)],
    ["resets", _n(s.resets)],
    ["branches", `${_n(s.branches)} (entries with two or more children)`],
    ["labels", _n(s.labels)],
    [
      "blobs",
      `${_n(s.blobRefs)} references to ${_n(s.blobs)} blobs, ${
        formatBytes(s.blobBytes)
      }${missing}${bad}`,
    ],
    [
      "open",
      `reads ${formatBytes(s.window.bytesRead)} of ${formatBytes(s.fileBytes)}${
        pct(s.window.bytesRead, s.fileBytes)
      }, keeps ${_n(s.window.retained)} of ${_n(s.entries)} entries${
        pct(s.window.retained, s.entries)
      }`,
    ],
    ["issues", _n(s.issues)],
  ];
  return pairs.map(([k, v]) => `${k.padEnd(12)}${v}`).join("\n");
}

function _breakdown(counts: Map<string, number>): string {
  const parts = [...counts].sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${_n(v)}`);
  return parts.length === 0 ? "" : `: ${parts.join(", ")}`;
}

function _sum(counts: Map<string, number>): number {
  return [...counts.values()].reduce((a, b) => a + b, 0);
}

function _n(n: number): string {
  return formatCount(n);
}
