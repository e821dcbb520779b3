/**
 * `cli stats`: what a session file holds and what opening it costs (the
 * figures are `_file_figures.ts`'s), for one file or every file of a folder
 * with their totals, as text or JSON.
 *
 * @module
 */

import { relative } from "node:path";
import { fs } from "../_fs.ts";
import { findSessionFiles } from "./_blobs.ts";
import {
  attempt,
  type Command,
  defineCommand,
  printError,
  writeJson,
} from "./_command.ts";
import {
  type BlobSizes,
  type FileFigures,
  fileFigures,
  totalFigures,
} from "./_file_figures.ts";
import { formatBytes, plural, sanitizeLines } from "./_format.ts";
import { formatCount, formatMoney } from "../format/numbers.ts";
import type { CliIo } from "./_io.ts";
import { progressBar } from "./_progress.ts";
import { refuseEntry, resolveSessionArg } from "./_session_arg.ts";
import { userPathOf } from "./_user_path.ts";
import { formatTable } from "./_table.ts";
import { wrapWords } from "./_wrap.ts";

const ABOUT =
  `Count what a session file holds, reading it once in chunks: entries by type,
messages by role, model calls and their cost and tokens (as usage counts
them: one file's are its usage --by session row), compactions, resets,
branches, labels, blob
references and the bytes of the blobs they name. Then open it as a resume
does and report the window: the bytes read and the entries kept against the
file's size (the figures to look at when a session opens slowly).

The session is a file, a session id or the start of one. For a folder,
every *.jsonl under it (recursively), then the totals.
`;

/** `cli stats`. */
export const command: Command = defineCommand({
  name: "stats",
  summary: "Count entries, messages, tokens, blobs; what opening one reads.",
  about: ABOUT,
  flags: {
    "data-dir": {
      value: "D",
      help:
        "where blobs/ lives, and where an id is looked up (default: for each file, the nearest ancestor that holds blobs/; ids: every data dir of xdev, omp and pi)",
    },
    json: { help: "print an object (a folder: { files, totals, errors })" },
  },
  args: ["<session|dir>"],
  run: async (call, io) => {
    const arg = await resolveSessionArg(call.arg(), {
      dataDirs: call.values("data-dir"),
    });
    refuseEntry(arg, call.name);
    const target = arg.path;
    const dataDir = userPathOf(call.value("data-dir")) ?? arg.dataDir;
    const json = call.has("json");
    const info = await attempt(`read "${target}"`, () => fs().stat(target));
    const sizes: BlobSizes = new Map();
    if (info.kind === "directory") {
      return await _folder(target, dataDir, sizes, json, io);
    }
    const figures = await fileFigures(target, dataDir, sizes);
    if (json) writeJson(io, { path: target, ...figures });
    else {
      const text = _block(figures, false, io.columns, target);
      io.stdout(`${sanitizeLines(text)}\n`);
    }
    return 0;
  },
});

async function _folder(
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
  const bar = progressBar(io, {
    total: files.length,
    unit: "files",
    minimum: 8,
  });
  const done: (FileFigures & { path: string })[] = [];
  const errors: { path: string; message: string }[] = [];
  for (const [i, path] of files.entries()) {
    bar.update(i);
    try {
      done.push({ path, ...await fileFigures(path, dataDir, sizes) });
    } catch (err) {
      errors.push({ path, message: (err as Error).message });
    }
  }
  bar.finish(files.length);
  const totals = totalFigures(done, sizes);
  if (json) writeJson(io, { files: done, totals, errors });
  else if (files.length === 0) io.stdout(`No *.jsonl files under ${dir}\n`);
  else {
    const n = plural(done.length, "file");
    io.stdout(
      `${_table(dir, done, io.columns)}\n\nTotals (${n})\n${
        sanitizeLines(_block(totals, true, io.columns))
      }\n`,
    );
  }
  for (const e of errors) printError(io, e.message);
  return errors.length > 0 ? 1 : 0;
}

/**
 * A folder's files, one row each. At 80 columns the file keeps enough of
 * its tail to tell it from the others, and the columns that matter least
 * (what opening reads, the blobs, the context) go first, named under it.
 */
function _table(
  dir: string,
  done: (FileFigures & { path: string })[],
  width: number,
): string {
  const n = formatCount;
  const rows = done.map((s) => [
    relative(dir, s.path),
    n(s.entries),
    n(s.tokens.usage),
    n(s.tokens.context),
    n(s.blobs),
    formatBytes(s.fileBytes),
    formatBytes(s.window.bytesRead),
    `${n(s.window.retained)}/${n(s.entries)}`,
  ]);
  return formatTable(
    [
      { header: "file", shrink: "start", min: 16 },
      { header: "entries", right: true },
      { header: "tokens used", right: true },
      { header: "in context", right: true, optional: true },
      { header: "blobs", right: true, optional: true },
      { header: "size", right: true },
      { header: "open reads", right: true, optional: true },
      { header: "kept", right: true },
    ],
    rows,
    width,
    { leftOutHint: "--json has them, and the totals below" },
  );
}

/** The figures as `name  value` lines, a long value wrapped under itself to fit `width`. */
function _block(
  s: FileFigures,
  totals: boolean,
  width: number,
  file?: string,
): string {
  const n = formatCount;
  // A no-break space keeps a percentage whole when the line wraps.
  const pct = (a: number, b: number): string =>
    b === 0 ? "" : ` (${(100 * a / b).toFixed(1)}\u00a0%)`;
  const missing = s.missingBlobs === 0 ? "" : `, ${s.missingBlobs} missing`;
  const bad = s.badBlobRefs === 0 ? "" : `, ${s.badBlobRefs} malformed`;
  const messages = [...s.messagesByRole.values()].reduce((a, b) => a + b, 0);
  const pairs: [string, string][] = [
    ...(file === undefined ? [] : [["file", file] as [string, string]]),
    ["size", formatBytes(s.fileBytes)],
    ["entries", `${n(s.entries)}${_breakdown(s.entriesByType)}`],
    ["messages", `${n(messages)}${_breakdown(s.messagesByRole)}`],
    [
      "calls",
      `${n(s.requests)} model calls, ${formatMoney(s.cost)}${
        totals ? " (each file's; usage counts copies once)" : " recorded"
      }`,
    ],
    [
      "tokens",
      `${n(s.tokens.usage)} used by the calls; ~${
        n(s.tokens.context)
      } in the context${totals ? "s" : ""} on resume`,
    ],
    ["compactions", n(s.compactions)],
    ["resets", n(s.resets)],
    ["branches", `${n(s.branches)} (entries with two or more children)`],
    ["labels", n(s.labels)],
    [
      "blobs",
      `${n(s.blobRefs)} references to ${n(s.blobs)} blobs, ${
        formatBytes(s.blobBytes)
      }${missing}${bad}`,
    ],
    [
      "open",
      `reads ${formatBytes(s.window.bytesRead)} of ${formatBytes(s.fileBytes)}${
        pct(s.window.bytesRead, s.fileBytes)
      }, keeps ${n(s.window.retained)} of ${n(s.entries)} entries${
        pct(s.window.retained, s.entries)
      }`,
    ],
    ["issues", n(s.issues)],
  ];
  const indent = " ".repeat(12);
  return pairs.map(([k, v]) =>
    `${k.padEnd(12)}${wrapWords(v, width - 12).join(`\n${indent}`)}`
  ).join("\n");
}

function _breakdown(counts: Map<string, number>): string {
  const parts = [...counts].sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${formatCount(v)}`);
  return parts.length === 0 ? "" : `: ${parts.join(", ")}`;
}
