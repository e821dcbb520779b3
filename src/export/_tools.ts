/**
 * What an export shows of a tool call, by kind, for both formats: `bash`
 * its command, `read` its path (the result's content highlighted in the
 * file's language), `edit` a diff of the text replaced (made by the `diff`
 * library), `write` the lines written, any other tool its arguments
 * pretty-printed. Argument names of pi, omp and Claude Code are read
 * (`path` or `file_path`, `oldText` or `old_string` …).
 *
 * @module
 */

import { structuredPatch } from "diff";
import { languageOfPath } from "./_highlight.ts";

/** One line of a diff: kept (` `), removed (`-`), added (`+`), or a hunk's `@@` head. */
export interface DiffLine {
  op: " " | "-" | "+" | "@";
  text: string;
}

/** A tool call, as the export shows it. */
export interface ToolView {
  /** The tool's name, as the session has it. */
  name: string;
  kind: "bash" | "read" | "edit" | "write" | "other";
  /** `bash`: the command. */
  command?: string;
  /** `read`, `edit`, `write`: the file. */
  path?: string;
  /** `read`: the lines asked for, in words (`from line 10, 40 lines`). */
  range?: string;
  /** The file's language (for highlighting), or "". */
  language: string;
  /** `edit`, `write`: the change. */
  diff?: DiffLine[];
  /** The arguments as JSON, pretty-printed: shown for `other`, and when a kind's own are missing. */
  json: string;
}

/**
 * An edit with more changed lines than this is shown as the old text
 * removed and the new added: the diff's work is bounded by it.
 */
const _MAX_EDIT_LENGTH = 2000;

/**
 * A tool call's view.
 *
 * @param name The tool's name.
 * @param args Its arguments, as the session has them.
 * @returns The view.
 */
export function toolView(name: string, args: unknown): ToolView {
  const a = args !== null && typeof args === "object" && !Array.isArray(args)
    ? args as Record<string, unknown>
    : {};
  const json = JSON.stringify(args ?? null, null, 2) ?? "null";
  const str = (...keys: string[]) => {
    for (const k of keys) if (typeof a[k] === "string") return a[k] as string;
    return undefined;
  };
  const other: ToolView = { name, kind: "other", language: "json", json };
  const path = str("path", "file_path", "filePath", "file");
  const language = path === undefined ? "" : languageOfPath(path) ?? "";
  switch (name.toLowerCase()) {
    case "bash": {
      const command = str("command", "cmd");
      return command === undefined
        ? other
        : { name, kind: "bash", command, language: "bash", json };
    }
    case "read": {
      if (path === undefined) return other;
      const view: ToolView = { name, kind: "read", path, language, json };
      const range = _range(a.offset, a.limit);
      if (range !== undefined) view.range = range;
      return view;
    }
    case "edit": {
      const edits = Array.isArray(a.edits) ? a.edits : [a];
      const diff: DiffLine[] = [];
      for (const e of edits) {
        const pair = _pair(e);
        if (pair === undefined) return other;
        diff.push(...editDiff(pair[0], pair[1]));
      }
      if (path === undefined) return other;
      return { name, kind: "edit", path, language, diff, json };
    }
    case "write": {
      const content = str("content", "text");
      if (path === undefined || content === undefined) return other;
      const diff = _lines(content).map((text) => ({ op: "+" as const, text }));
      return { name, kind: "write", path, language, diff, json };
    }
  }
  return other;
}

/** An edit's old and new text, under any of the names agents give them. */
function _pair(e: unknown): [string, string] | undefined {
  if (e === null || typeof e !== "object") return undefined;
  const r = e as Record<string, unknown>;
  const old = r.oldText ?? r.old_string ?? r.old_str ?? r.oldString;
  const now = r.newText ?? r.new_string ?? r.new_str ?? r.newString;
  return typeof old === "string" && typeof now === "string"
    ? [old, now]
    : undefined;
}

function _range(offset: unknown, limit: unknown): string | undefined {
  const n = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v);
  const parts: string[] = [];
  if (n(offset)) parts.push(`from line ${offset}`);
  if (n(limit)) parts.push(`${limit} lines`);
  return parts.length === 0 ? undefined : parts.join(", ");
}

/** Text's lines, without the empty one after a final line break. */
function _lines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * The lines an edit changes, with three lines of context, by the `diff`
 * library's line diff; past {@linkcode _MAX_EDIT_LENGTH} changed lines, the
 * old text removed and the new added.
 *
 * @param before The text replaced.
 * @param after The text put instead.
 * @returns The diff's lines, each hunk after its `@@` line.
 */
export function editDiff(before: string, after: string): DiffLine[] {
  const patch = structuredPatch("", "", before, after, "", "", {
    context: 3,
    maxEditLength: _MAX_EDIT_LENGTH,
  });
  if (patch === undefined) {
    return [
      ..._lines(before).map((text) => ({ op: "-" as const, text })),
      ..._lines(after).map((text) => ({ op: "+" as const, text })),
    ];
  }
  const out: DiffLine[] = [];
  for (const h of patch.hunks) {
    out.push({
      op: "@",
      text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
    });
    for (const line of h.lines) {
      const op = line[0];
      if (op === " " || op === "-" || op === "+") {
        out.push({ op, text: line.slice(1) });
      }
    }
  }
  return out;
}

/**
 * The text of a tool's output as shown: terminal escape sequences (colors,
 * cursor moves) removed, they are noise in a document.
 *
 * @param text A tool result's text.
 * @returns The text.
 */
export function outputText(text: string): string {
  // CSI sequences and two-character escapes; each class is disjoint from
  // the next, so the match is linear.
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/g, "");
}
