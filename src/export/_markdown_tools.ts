/**
 * Tool calls and their results in the Markdown export, as the HTML export
 * shows them: `bash` as `$ command` and its output, `read` as its path and
 * the content in a fence of the file's language, `edit` and `write` as a
 * `diff` fence, any other tool as its name and arguments; the result under
 * its call, a long output's first lines shown and the rest in a
 * `<details>` block ("N more lines"). Fences are longer than any run of
 * backticks inside ({@linkcode fenced}); names and paths are inert text.
 *
 * @module
 */

import type { Heading, ResultView } from "./_document.ts";
import { escapeMarkdownInline, fenced } from "./_escape.ts";
import { PREVIEW_CODE_LINES, PREVIEW_LINES } from "./_html_tools.ts";
import type { ToolView } from "./_tools.ts";

/** How a heading's parts after the label are written (the format's own). */
export type HeadingTail = (h: Heading) => string;

/**
 * Text in fences: its first `lines` lines, the rest in a `<details>` block.
 *
 * @param text The text, verbatim.
 * @param info The fence's info string (ours: a language name), or "".
 * @param lines How many lines to show.
 * @returns Markdown, ending in a blank line.
 */
export function previewMarkdown(
  text: string,
  info: string,
  lines: number,
): string {
  const all = text.endsWith("\n") ? text.slice(0, -1) : text;
  let at = -1;
  for (let n = 0; n < lines && at < all.length; n++) {
    const next = all.indexOf("\n", at + 1);
    at = next < 0 ? all.length : next;
  }
  if (at >= all.length) return `${fenced(all, info)}\n\n`;
  const rest = all.slice(at + 1);
  let count = 1;
  for (let i = rest.indexOf("\n"); i >= 0; i = rest.indexOf("\n", i + 1)) {
    count++;
  }
  const more = `${count} more ${count === 1 ? "line" : "lines"}`;
  return `${
    fenced(all.slice(0, at), info)
  }\n\n<details>\n<summary>${more}</summary>\n\n${
    fenced(rest, info)
  }\n\n</details>\n\n`;
}

/**
 * A tool call, its result under it when paired.
 *
 * @param call The call's view.
 * @param result Its result, or undefined.
 * @param tail How the format writes a heading's details.
 * @returns Markdown, ending in a blank line.
 */
export function toolMarkdown(
  call: ToolView,
  result: ResultView | undefined,
  tail: HeadingTail,
): string {
  const name = `**${escapeMarkdownInline(call.name)}**`;
  let out: string;
  switch (call.kind) {
    case "bash":
      out = `${name}\n\n${fenced(`$ ${call.command ?? ""}`, "sh")}\n\n`;
      break;
    case "read":
    case "edit":
    case "write": {
      const range = call.range === undefined ? "" : ` (${call.range})`;
      out = `${name} ${escapeMarkdownInline(call.path ?? "")}${range}\n\n`;
      if (call.diff !== undefined) {
        const diff = call.diff.map(({ op, text }) =>
          op === "@" ? text : `${op}${text}`
        ).join("\n");
        out += previewMarkdown(diff, "diff", PREVIEW_CODE_LINES);
      }
      break;
    }
    default:
      out = `${name}\n\n${previewMarkdown(call.json, "json", PREVIEW_LINES)}`;
  }
  return result === undefined ? out : out + resultMarkdown(result, tail, call);
}

/**
 * A tool's result: a line saying what it is, its output previewed, its
 * images after.
 *
 * @param result The result's view.
 * @param tail How the format writes a heading's details.
 * @param call Its call, when shown above it.
 * @returns Markdown, ending in a blank line.
 */
export function resultMarkdown(
  result: ResultView,
  tail: HeadingTail,
  call?: ToolView,
): string {
  const h = result.heading;
  const label = call === undefined
    ? `${h.label}: ${h.detail ?? "tool"}`
    : call.kind === "read"
    ? "Content"
    : "Output";
  const line = `*${escapeMarkdownInline(label)}*${tail(h)}\n\n`;
  const lines = call?.kind === "read" ? PREVIEW_CODE_LINES : PREVIEW_LINES;
  const body = result.text === ""
    ? "*No output.*\n\n"
    : previewMarkdown(result.text, result.language || "text", lines);
  return line + body + result.extra;
}
