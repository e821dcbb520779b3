/**
 * Tool calls and their results in the HTML export, by kind: `bash` as
 * `$ command` and its output, `read` as its path and the file's content
 * highlighted, `edit` and `write` as a diff, any other tool as its name and
 * arguments. The result sits under its call; a long output shows its first
 * lines, the rest behind a `<details>` ("N more lines"). Everything from the
 * session is escaped (or highlighted, which escapes).
 *
 * @module
 */

import type { Heading, ResultView } from "./_document.ts";
import { escapeHtml } from "./_escape.ts";
import { cutHtmlLines, highlightHtml } from "./_highlight.ts";
import type { DiffLine, ToolView } from "./_tools.ts";

/** Lines of an output shown before "N more lines". */
export const PREVIEW_LINES = 8;
/** Lines of a file's content or a diff shown before "N more lines". */
export const PREVIEW_CODE_LINES = 10;

/** How a heading is written (the page's own, passed in: one way to write it). */
export type HeadingHtml = (h: Heading) => string;

/**
 * Code as a preview: its first `lines` lines, the rest folded.
 *
 * @param html Escaped or highlighted code (text and `<span>` only).
 * @param lines How many lines to show.
 * @param cls A class for the `<pre>`, or "".
 * @returns HTML.
 */
export function previewHtml(html: string, lines: number, cls = ""): string {
  const { head, rest, restLines } = cutHtmlLines(html, lines);
  const pre = (body: string) =>
    `<pre${
      cls === "" ? "" : ` class="${cls}"`
    }><code class="hljs">${body}</code></pre>`;
  if (restLines === 0) return pre(head);
  const more = `${restLines} more ${restLines === 1 ? "line" : "lines"}`;
  return `${pre(head)}\n<details class="more"><summary>${more}</summary>\n${
    pre(rest)
  }\n</details>`;
}

/**
 * A diff's lines as HTML: each line a span of its kind.
 *
 * @param diff The lines.
 * @returns HTML for a `<pre class="diff">`.
 */
export function diffHtml(diff: readonly DiffLine[]): string {
  return diff.map(({ op, text }) => {
    const cls = op === "+"
      ? "add"
      : op === "-"
      ? "del"
      : op === "@"
      ? "hunk"
      : "ctx";
    const mark = op === "@" ? "" : `${op} `;
    return `<span class="${cls}">${escapeHtml(mark + text)}</span>`;
  }).join("\n");
}

/**
 * A tool call, its result under it when paired.
 *
 * @param call The call's view.
 * @param result Its result, or undefined.
 * @param heading How the page writes a heading.
 * @returns HTML.
 */
export function toolHtml(
  call: ToolView,
  result: ResultView | undefined,
  heading: HeadingHtml,
): string {
  const name = `<span class="tool-name">${escapeHtml(call.name)}</span>`;
  const pieces: string[] = [];
  switch (call.kind) {
    case "bash":
      pieces.push(
        `<div class="tool-head">${name}</div>`,
        `<pre class="command"><code class="hljs">$ ${
          highlightHtml(call.command ?? "", "bash")
        }</code></pre>`,
      );
      break;
    case "read":
    case "edit":
    case "write": {
      const range = call.range === undefined
        ? ""
        : ` <span class="note">${escapeHtml(call.range)}</span>`;
      pieces.push(
        `<div class="tool-head">${name} <code>${
          escapeHtml(call.path ?? "")
        }</code>${range}</div>`,
      );
      if (call.diff !== undefined) {
        pieces.push(
          previewHtml(diffHtml(call.diff), PREVIEW_CODE_LINES, "diff"),
        );
      }
      break;
    }
    default:
      pieces.push(
        `<div class="tool-head">${name}</div>`,
        previewHtml(highlightHtml(call.json, "json"), PREVIEW_LINES),
      );
  }
  if (result !== undefined) pieces.push(resultHtml(result, heading, call));
  return `<div class="tool tool-${call.kind}">\n${pieces.join("\n")}\n</div>`;
}

/**
 * A tool's result: its heading, its output previewed, its images after.
 *
 * @param result The result's view.
 * @param heading How the page writes a heading.
 * @param call Its call, when shown above it.
 * @returns HTML: an `<article class="msg tool-result">`.
 */
export function resultHtml(
  result: ResultView,
  heading: HeadingHtml,
  call?: ToolView,
): string {
  const h = result.heading;
  const id = h.anchor === undefined
    ? ""
    : ` id="entry-${escapeHtml(h.anchor)}"`;
  const label: Heading = call === undefined ? h : {
    ...h,
    label: call.kind === "read" ? "Content" : "Output",
    detail: undefined,
  };
  const lines = call?.kind === "read" ? PREVIEW_CODE_LINES : PREVIEW_LINES;
  const body = result.text === ""
    ? `<p class="note">No output.</p>`
    : previewHtml(highlightHtml(result.text, result.language), lines);
  const extra = result.extra === "" ? "" : `\n${result.extra}`;
  return `<article class="msg tool-result${
    result.error ? " error" : ""
  }"${id} data-role="toolResult">\n<header>${
    heading(label)
  }</header>\n${body}${extra}\n</article>`;
}
