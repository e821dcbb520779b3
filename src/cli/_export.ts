/**
 * `cli export`: a session as a document people can read (Markdown, or
 * self-contained HTML pages).
 *
 * @module
 */

import { basename, extname } from "node:path";
import {
  type ExportOptions,
  type ExportResult,
  exportSession,
} from "../export/export.ts";
import { attempt, type Command, defineCommand, writeJson } from "./_command.ts";
import { formatBytes, plural, sanitize } from "./_format.ts";
import { progressPhases } from "./_progress.ts";
import { entryToStopAt, resolveSessionArg } from "./_session_arg.ts";
import { userPath, userPathOf } from "./_user_path.ts";

const ABOUT =
  `Write a session (a file, a session id or the start of one) as a document
people can read: Markdown, or one self-contained HTML page (no script, no
request; past 5 MB, pages linked to each other). By default the active
branch as it happened, aborted and failed turns included (what the model
sees on resume is what the context command prints). Images are copied
beside the export; damaged lines are counted at the end.
`;

/** `cli export`. */
export const command: Command = defineCommand({
  name: "export",
  summary: "A session as Markdown or self-contained HTML people can read.",
  about: ABOUT,
  flags: {
    format: {
      value: "F",
      help: "md or html (default: from --out's extension, else html)",
    },
    out: {
      value: "F",
      help:
        "the file to write (default: the session's name with the format's extension, in the folder the command was typed in); images go to <stem>-files/ beside it",
    },
    tree: {
      help:
        "every branch, nested under its branch point, the active path marked (reads the whole file)",
    },
    at: {
      value: "ENTRY",
      help:
        "the branch as it was at that entry (the path from the root to it; SESSION#ENTRY too); not with --tree",
    },
    last: {
      value: "N",
      help: "only the last N turns (a turn starts at a user message)",
    },
    "inline-images": {
      help: "embed images in the pages instead of copying them",
    },
    "data-dir": {
      value: "D",
      help:
        "where blobs/ lives, and where an id is looked up (default: the nearest ancestor of the file that holds blobs/; ids: every data dir of xdev, omp and pi)",
    },
    json: { help: "print what was written as one object" },
  },
  args: ["<session>"],
  run: async (call, io) => {
    const arg = await resolveSessionArg(call.arg(), {
      dataDirs: call.values("data-dir"),
    });
    const at = entryToStopAt(arg, call.value("at"), call.name);
    if (at !== undefined && call.has("tree")) {
      throw call.usageError("--at and --tree cannot be combined");
    }
    const file = arg.path;
    const format = call.value("format");
    if (format !== undefined && format !== "md" && format !== "html") {
      throw call.usageError(`--format must be md or html, not "${format}"`);
    }
    const last = call.value("last");
    if (last !== undefined && !/^[1-9][0-9]{0,8}$/.test(last)) {
      throw call.usageError(
        `--last must be a positive whole number, not "${last}"`,
      );
    }
    if (last !== undefined && call.has("tree")) {
      throw call.usageError("--last and --tree cannot be combined");
    }
    const options: ExportOptions = {
      tree: call.has("tree"),
      inlineImages: call.has("inline-images"),
    };
    if (format !== undefined) options.format = format;
    if (last !== undefined) options.last = Number(last);
    if (at !== undefined) options.at = at;
    // Output lands in the user's folder, not the task's (the default too).
    const out = call.value("out");
    if (out !== undefined) options.out = userPath(out);
    else {
      const name = basename(file, extname(file));
      options.out = userPath(`${name}.${format ?? "html"}`);
    }
    const dataDir = userPathOf(call.value("data-dir")) ?? arg.dataDir;
    if (dataDir !== undefined) options.dataDir = dataDir;
    // Bytes read (a tree), or messages rendered, from which a bar is drawn.
    const bar = progressPhases(io, { bytes: 16 << 20, messages: 2000 });
    options.onProgress = (p) => bar.update(p.done, p.total, p.unit);
    const result = await attempt(
      `export "${file}"`,
      () => exportSession(file, options),
    );
    bar.finish();
    if (call.has("json")) writeJson(io, result);
    else io.stdout(`${_text(result).map(sanitize).join("\n")}\n`);
    return 0;
  },
});

function _text(r: ExportResult): string[] {
  const lines = r.files.map((f, i) =>
    `wrote ${f}${r.pages > 1 ? ` (page ${i + 1} of ${r.pages})` : ""}`
  );
  lines.push(
    `${r.messages} messages${
      r.branches > 0 ? ` (${r.branches} branches off the active path)` : ""
    }, ${r.entries} entries read, ${formatBytes(r.bytes)} written`,
  );
  const { images } = r;
  if (images.folder !== null) {
    lines.push(`${plural(images.files, "image")} copied to ${images.folder}`);
  }
  if (images.inlined > 0) {
    lines.push(`${plural(images.inlined, "image")} embedded`);
  }
  if (images.missing > 0) {
    lines.push(
      `${
        plural(images.missing, "image")
      } not shown (missing, damaged or not an image)`,
    );
  }
  if (r.issues.length > 0) {
    lines.push(
      `damage read around: ${
        r.issues.map((i) => `${i.count} ${i.kind}`).join(", ")
      }`,
    );
  }
  return lines;
}
