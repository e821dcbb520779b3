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
    const badge = h.badge === undefined ? "" : ` (${h.badge})`;
    const label = escapeMarkdownInline(h.label);
    return `### ${label}${detail}${badge}${_time(h)}\n\n${body}`;
  },
  toolResult: (h, body, images) => {
    const badge = h.badge === undefined ? "" : ` (${h.badge})`;
    return _details(`${h.label}: ${h.detail}${badge}${_time(h)}`, body) +
      images;
  },
  join: (pieces) => pieces.join(""),
  text: (text) => `${safeMarkdown(text)}\n\n`,
  code: (text, info) => `${fenced(text, info)}\n\n`,
  thinking: (text) => _details("Thinking", `${safeMarkdown(text)}\n\n`),
  toolCall: (name, json) =>
    _details(`Tool call: ${name}`, `${fenced(json, "json")}\n\n`),
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

function _time(h: Heading): string {
  return h.time === undefined ? "" : ` · ${displayTime(h.time)}`;
}

function _head(meta: ExportMeta): string {
  const title = escapeMarkdownInline(meta.title ?? "Untitled session");
  const rows = metaRows(meta, {
    literal: escapeMarkdownInline,
    time: displayTime,
    text: escapeMarkdownInline,
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

/** `[label]: destination` at the start of a line (in a quote or not). */
const _REF_DEF = /^((?:[ \t]*>)*[ \t]{0,3})\[([^\]\n]*)\]:[ \t]*(\S*)/;

/**
 * A message's own Markdown, made safe to embed: it still reads as the
 * model wrote it, but it cannot open raw HTML (so no `<script>`, no
 * `</details>` closing our blocks), cannot leave a code fence open over the
 * rest of the export, and cannot link to a `javascript:` URL. Its code is
 * left alone; outside code, `<` is written `&lt;` (no raw HTML, no
 * autolink); an inline link, image or link reference definition whose
 * destination has a scheme other than http, https or mailto (or an `&`,
 * `%` or `\` that could spell one) is turned to plain text; a fence left
 * open is closed; headings move three levels down, below the export's own.
 *
 * @param text Markdown from a session.
 * @returns Markdown that stays inside the block it is put in.
 */
export function safeMarkdown(text: string): string {
  const out: string[] = [];
  for (const segment of splitFences(withoutControls(text))) {
    if (!segment.code) {
      out.push(_prose(segment.text));
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

function _prose(text: string): string {
  return text.split("\n").map((line) => _heading(_referenceDefinition(line)))
    .join("\n")
    .split(/(\n[ \t]*\n)/).map((paragraph) =>
      codeSpans(paragraph).map((p) => p.code ? _span(p.text) : _plain(p.text))
        .join("")
    ).join("");
}

/** A code span put back with a fence its content cannot close. */
function _span(content: string): string {
  const ticks = "`".repeat(longestBacktickRun(content) + 1);
  const pad = content.startsWith("`") || content.endsWith("`") ? " " : "";
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

function _plain(text: string): string {
  return text.replaceAll("<", "&lt;").replace(
    /\]\(\s*([^\s)]*)/g,
    (whole, dest: string) =>
      _safeDestination(dest) ? whole : `]\\(${whole.slice(2)}`,
  );
}

/** An ATX heading moved three levels down (`#` → `####`, at most `######`). */
function _heading(line: string): string {
  return line.replace(
    /^( {0,3})(#{1,6})(?=[ \t]|$)/,
    (_, indent: string, marks: string) =>
      `${indent}${"#".repeat(Math.min(6, marks.length + 3))}`,
  );
}

function _referenceDefinition(line: string): string {
  const m = _REF_DEF.exec(line);
  if (m === null || _safeDestination(m[3]!)) return line;
  return `${m[1]}\\${line.slice(m[1]!.length)}`;
}

function _safeDestination(raw: string): boolean {
  const dest = raw.replace(/^(?:<|&lt;)/, "");
  if (_SAFE_SCHEME.test(dest)) return true;
  // Up to the first / ? or #: no scheme, and nothing that could decode to one.
  const head = /^[^/?#]*/.exec(dest)![0];
  return !/[:&\\%]/.test(head);
}
