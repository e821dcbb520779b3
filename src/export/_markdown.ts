/**
 * The Markdown format: a heading per turn and per message, the model's own
 * Markdown kept but made inert ({@linkcode safeMarkdown}), thinking, tool
 * calls and tool results in `<details>` blocks (GitHub renders them), code
 * and outputs in fences their content cannot close, images as links, a
 * branch of the tree quoted (`> `) once per level of nesting.
 *
 * @module
 */

import type { Format, Heading } from "./_document.ts";
import type { Wrapper } from "./_files.ts";
import { resultMarkdown, toolMarkdown } from "./_markdown_tools.ts";
import {
  codeSpans,
  escapeHtml,
  escapeMarkdownInline,
  fenced,
  longestBacktickRun,
  splitFences,
  withoutControls,
} from "./_escape.ts";
import {
  damageText,
  displayTime,
  type ExportFooter,
  type ExportMeta,
  metaRows,
} from "./_meta.ts";

/** The Markdown format. */
export const MARKDOWN: Format = {
  head: _head,
  foot: _foot,
  turn: (n) => `## Turn ${n}\n\n`,
  note: (text) => `*${escapeMarkdownInline(text)}*\n\n`,
  branch: _branch,
  nest: _quote,
  message: (h, body) => {
    const detail = h.detail === undefined
      ? ""
      : ` · ${escapeMarkdownInline(h.detail)}`;
    const label = escapeMarkdownInline(h.label);
    return `### ${label}${detail}${_tail(h)}\n\n${body}`;
  },
  tool: (call, result) => toolMarkdown(call, result, _tail),
  toolResult: (result) => resultMarkdown(result, _tail),
  join: (pieces) => pieces.join(""),
  text: (text) => `${safeMarkdown(text)}\n\n`,
  code: (text, info) => `${fenced(text, info)}\n\n`,
  thinking: (text) => _details("Thinking", `${safeMarkdown(text)}\n\n`),
  image: (out) =>
    out.kind === "missing"
      ? `*Image not shown: ${out.reason}.*\n\n`
      : `![An image from the session](${
        out.kind === "inline" ? out.src : out.href
      })\n\n`,
  redacted: () => "*Thinking (redacted by the provider).*\n\n",
  unknown: (type) => `*A block of type ${escapeMarkdownInline(type)}.*\n\n`,
  error: (text) => `> ${escapeMarkdownInline(text)}\n\n`,
};

/** A heading's parts after its label and detail: how it ended, its label, usage, time. */
function _tail(h: Heading): string {
  const badge = h.badge === undefined ? "" : ` (${h.badge})`;
  const tag = h.tag === undefined
    ? ""
    : ` · label: ${escapeMarkdownInline(h.tag)}`;
  const usage = h.usage === undefined ? "" : ` · ${h.usage}`;
  const time = h.time === undefined ? "" : ` · ${displayTime(h.time)}`;
  return badge + tag + usage + time;
}

function _head(meta: ExportMeta): string {
  const title = escapeMarkdownInline(meta.title ?? "Untitled session");
  const rows = metaRows(meta, {
    literal: escapeMarkdownInline,
    time: displayTime,
    text: escapeMarkdownInline,
    link: (anchor, text) =>
      `${escapeMarkdownInline(text)} (${escapeMarkdownInline(anchor)})`,
  });
  const items = rows.map(([k, v]) => `- **${k}:** ${v}\n`).join("");
  return `# ${title}\n\n${items}\n`;
}

function _foot(footer: ExportFooter | undefined): string {
  const damage = damageText(footer);
  return damage === undefined
    ? ""
    : `---\n\n*${escapeMarkdownInline(damage)}*\n`;
}

function _branch(_kind: string, what: string, time?: string): Wrapper {
  const when = time === undefined ? "" : ` · ${displayTime(time)}`;
  return {
    open: `**⑂ ${what}**${when}\n\n`,
    close: "\n",
    reopen: `**⑂ ${what} (continued)**\n\n`,
  };
}

/** Quote every line `depth` times, blank lines too (the quote goes on). */
function _quote(text: string, depth: number): string {
  if (depth === 0) return text;
  const prefix = ">".repeat(depth);
  const lines = text.split("\n");
  const last = lines.pop(); // "" after a final line break
  const quoted = lines.map((l) => l === "" ? prefix : `${prefix} ${l}`);
  if (last !== undefined && last !== "") quoted.push(`${prefix} ${last}`);
  return quoted.join("\n") + (last === "" ? "\n" : "");
}

/**
 * A `<details>` block: the summary is HTML (escaped; brackets and
 * backticks as references too, for a renderer that would read Markdown in
 * it), the body Markdown.
 */
function _details(summary: string, body: string): string {
  const text = escapeHtml(summary.replace(/\s+/g, " ")).replace(
    /[[\]`]/g,
    (c) => `&#${c.charCodeAt(0)};`,
  );
  return `<details>\n<summary>${text}</summary>\n\n${body}</details>\n\n`;
}

/**
 * Link destinations kept as links: web and mail addresses, and relative
 * ones (no scheme). Anything else (`javascript:`, `data:`, a scheme hidden
 * behind an entity or a backslash escape) is shown as text.
 */
const _SAFE_SCHEME = /^(?:https?:\/\/|mailto:)/i;

/**
 * A message's own Markdown, made safe to embed: it still reads as the
 * model wrote it, but it cannot open raw HTML (so no `<script>`, no
 * `</details>` closing our blocks), cannot leave a code fence open over the
 * rest of the export, cannot show an image (a viewer would fetch it) and
 * cannot link to a `javascript:` URL, however a CommonMark renderer reads
 * it. Code blocks are left alone, their fences moved to the line's start
 * (where a renderer sees a fence whatever came before) and a fence left
 * open closed. The rest is read line by line:
 *
 * - code spans are found on one line, as a renderer finds them once every
 *   other backtick is escaped (`` \` ``): so no span of ours reads
 *   differently across lines, quotes or lists;
 * - outside them, `<` is written `&lt;` (no raw HTML, no autolink), `![`
 *   is `\![` (an image becomes a link to it);
 * - an inline link is kept only as `](destination)` on its line, with a
 *   scheme of http, https or mailto, or none (no title, no angle brackets,
 *   no `&`, `%` or `\` that could spell a scheme); any other `](` is
 *   `]\(`;
 * - no link reference definition survives: a line that starts (after
 *   indentation and block quote or list markers) with a `[` whose label
 *   ends in `]:`, or not on that line, starts with `\[` instead;
 * - headings move three levels down, below the export's own.
 *
 * Every step is a scan or a bounded regular expression: linear in the
 * text's length.
 *
 * @param text Markdown from a session.
 * @returns Markdown that stays inside the block it is put in.
 */
export function safeMarkdown(text: string): string {
  const out: string[] = [];
  // A carriage return ends a line for a renderer: for us too.
  const lines = withoutControls(text.replace(/\r\n?/g, "\n"));
  for (const segment of splitFences(lines)) {
    if (!segment.code) {
      out.push(segment.text.split("\n").map(_line).join("\n"));
      continue;
    }
    // Closed again with the opening fence, whether or not it was.
    const { fence, info, body } = segment;
    out.push(
      `${fence}${info.replaceAll("<", "&lt;")}\n` +
        (body === "" ? "" : `${body}\n`) + fence,
    );
  }
  return out.join("\n");
}

/** A line of prose, made inert (see {@linkcode safeMarkdown}). */
function _line(line: string): string {
  return codeSpans(_noDefinition(_heading(line)))
    .map((p) => p.code ? _span(p.text) : _plain(p.text)).join("");
}

/** A code span put back with a fence its content cannot close. */
function _span(content: string): string {
  const ticks = "`".repeat(longestBacktickRun(content) + 1);
  const pad = content.startsWith("`") || content.endsWith("`") ? " " : "";
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

/** The characters {@linkcode _plain} may change. */
const _PLAIN_SPECIAL = /[\\<`!\]]/g;

/** Text outside code spans: no HTML, no stray backtick, no image, no unsafe link. */
function _plain(text: string): string {
  const out: string[] = [];
  let from = 0;
  for (const m of text.matchAll(_PLAIN_SPECIAL)) {
    const i = m.index;
    if (i < from) continue; // the character an escape took
    const next = text[i + 1];
    let put: string | undefined;
    switch (m[0]) {
      case "\\": // an escape: kept, and what it escapes with it
        if (next !== undefined && _isPunctuation(next)) {
          out.push(text.slice(from, i + 2));
          from = i + 2;
        }
        continue;
      case "<":
        put = "&lt;";
        break;
      case "`":
        put = "\\`";
        break;
      case "!":
        if (next === "[") put = "\\!";
        break;
      case "]":
        if (next === "(" && !_keptLinkTail(text, i + 2)) put = "]\\";
        break;
    }
    if (put === undefined) continue;
    out.push(text.slice(from, i), put);
    from = i + 1;
  }
  out.push(text.slice(from));
  return out.join("");
}

/** Whether `c` is ASCII punctuation (what a backslash escapes). */
function _isPunctuation(c: string): boolean {
  const code = c.charCodeAt(0);
  return (code >= 0x21 && code <= 0x2f) || (code >= 0x3a && code <= 0x40) ||
    (code >= 0x5b && code <= 0x60) || (code >= 0x7b && code <= 0x7e);
}

/**
 * Characters that end a kept destination: a title's quotes, angle
 * brackets, escapes, backticks (a title or destination holding one would
 * take a backtick from a code span after it), brackets (each scan then
 * stops at the next `](`: linear).
 */
const _NOT_IN_DESTINATION = new Set(["<", ">", '"', "'", "\\", "`", "[", "]"]);

/**
 * Whether the inline link tail at `at` (after `](`) is one kept: blanks, a
 * destination with a kept scheme (or none; parentheses balanced), blanks,
 * `)`, all on this line.
 */
function _keptLinkTail(text: string, at: number): boolean {
  let i = at;
  while (text[i] === " " || text[i] === "\t") i++;
  const start = i;
  for (let depth = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ")" && depth === 0) break;
    if (c === " " || c === "\t") break;
    if (_NOT_IN_DESTINATION.has(c)) return false;
    if (c === "(") depth++;
    if (c === ")") depth--;
  }
  const end = i;
  while (text[i] === " " || text[i] === "\t") i++;
  return text[i] === ")" && _safeDestination(text.slice(start, end));
}

/** An ATX heading moved three levels down (`#` → `####`, at most `######`). */
function _heading(line: string): string {
  return line.replace(
    /^( {0,3})(#{1,6})(?=[ \t]|$)/,
    (_, indent: string, marks: string) =>
      `${indent}${"#".repeat(Math.min(6, marks.length + 3))}`,
  );
}

/** What may come before a link reference definition on its line. */
const _BEFORE_DEFINITION = new Set(" \t>*+-.)0123456789");

/**
 * A line that could start a link reference definition, with its `[`
 * escaped: the `[` comes after indentation and block quote or list markers
 * only, and its label's first unescaped `]` is followed by `:` or is not on
 * this line (a label, and a definition's destination and title, may go on
 * over the next lines, or a lazy one outside the quote).
 */
function _noDefinition(line: string): string {
  let i = 0;
  while (_BEFORE_DEFINITION.has(line[i]!)) i++;
  if (line[i] !== "[") return line;
  for (let j = i + 1; j < line.length; j++) {
    if (line[j] === "\\") j++; // an escaped character is no `]`
    else if (line[j] === "]") {
      if (line[j + 1] !== ":") return line;
      break;
    }
  }
  return `${line.slice(0, i)}\\${line.slice(i)}`;
}

function _safeDestination(dest: string): boolean {
  if (_SAFE_SCHEME.test(dest)) return true;
  // Up to the first / ? or #: no scheme, and nothing that could decode to one.
  const head = /^[^/?#]*/.exec(dest)![0];
  return !/[:&\\%]/.test(head);
}
