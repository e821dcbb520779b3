/**
 * The HTML format: self-contained pages (an inline stylesheet, allowed by
 * its hash; a Content-Security-Policy that allows no script and no request
 * but images from the export's own folder), one `<article class="msg">` per
 * message, thinking, tool calls and tool results in `<details>`. A
 * message's text keeps the little of Markdown that makes a transcript
 * readable (paragraphs, fenced code, code spans, headings as bold lines);
 * all of it is escaped, so no markup from a session survives.
 *
 * @module
 */

import type { ImageOut } from "./_assets.ts";
import type { Format, Heading } from "./_document.ts";
import type { PageNav, Wrapper } from "./_files.ts";
import { codeSpans, escapeHtml, splitFences } from "./_escape.ts";
import {
  damageText,
  displayTime,
  type ExportFooter,
  type ExportMeta,
  metaRows,
} from "./_meta.ts";

/**
 * The HTML format (async: the policy names the stylesheet's digest).
 *
 * @returns The format.
 */
export async function htmlFormat(): Promise<Format> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(_STYLESHEET),
  );
  // Scripts, frames, fonts, fetches: none. Images: embedded, or the files
  // beside the page. Styles: this stylesheet only.
  const csp = [
    "default-src 'none'",
    "img-src data: 'self'",
    `style-src 'sha256-${new Uint8Array(digest).toBase64()}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return {
    head: (meta, nav) => _head(meta, nav, csp),
    foot: _foot,
    turn: (n) => `<h2 class="turn" id="turn-${n}">Turn ${n}</h2>\n`,
    note: (text) => `<p class="note">${escapeHtml(text)}</p>\n`,
    branch: _branch,
    nest: (fragment) => fragment,
    message: (h, body) =>
      `<article class="msg ${h.role}" data-role="${escapeHtml(h.role)}">\n` +
      `<header>${_heading(h)}</header>\n${body}\n</article>\n`,
    toolResult: (h, body, images) =>
      `<article class="msg tool-result${
        h.badge === undefined ? "" : " error"
      }" data-role="toolResult">\n` +
      `<details><summary>${_heading(h)}</summary>\n${body}\n</details>\n` +
      `${images === "" ? "" : `${images}\n`}</article>\n`,
    join: (pieces) => pieces.join("\n"),
    text: (text) => `<div class="text">${textToHtml(text)}</div>`,
    code: (text, info) => codeBlockHtml(text, info === "json" ? info : ""),
    thinking: (text) =>
      `<details class="thinking"><summary>Thinking</summary>\n` +
      `<div class="text">${textToHtml(text)}</div>\n</details>`,
    toolCall: (name, json) =>
      `<details class="tool-call"><summary><span class="role">Tool call</span> <code class="detail">${
        escapeHtml(name)
      }</code></summary>\n${codeBlockHtml(json, "json")}\n</details>`,
    image: _image,
    redacted: () => `<p class="note">Thinking (redacted by the provider).</p>`,
    unknown: (type) =>
      `<p class="note">A block of type <code>${escapeHtml(type)}</code>.</p>`,
    error: (text) => `<p class="error">${escapeHtml(text)}</p>`,
  };
}

function _heading(h: Heading): string {
  let out = `<span class="role">${escapeHtml(h.label)}</span>`;
  if (h.detail !== undefined) {
    out += ` <code class="detail">${escapeHtml(h.detail)}</code>`;
  }
  const badge = h.badge ?? (h.hidden === true ? "hidden from the UI" : "");
  if (badge !== "") out += ` <span class="badge">${escapeHtml(badge)}</span>`;
  if (h.time !== undefined) out += ` ${_time(h.time)}`;
  return out;
}

function _image(out: ImageOut): string {
  if (out.kind === "missing") {
    return `<p class="missing">Image not shown: ${escapeHtml(out.reason)}.</p>`;
  }
  const src = out.kind === "inline" ? out.src : out.href;
  return `<figure><img src="${
    escapeHtml(src)
  }" alt="An image from the session"></figure>`;
}

function _head(meta: ExportMeta, nav: PageNav, csp: string): string {
  const title = meta.title ?? "Untitled session";
  const pageTitle = nav.page === 1 ? title : `${title} (page ${nav.page})`;
  const rows = metaRows(meta, {
    literal: (text) => `<code>${escapeHtml(text)}</code>`,
    time: _time,
    text: escapeHtml,
  });
  const dl = rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="@xdev/session export">
<title>${escapeHtml(pageTitle)}</title>
<style>${_STYLESHEET}</style>
</head>
<body>
<div class="page">
<header class="session">
<h1>${escapeHtml(title)}</h1>
<dl class="meta">
${dl}
</dl>
${_nav(nav)}
</header>
<main>
`;
}

function _foot(footer: ExportFooter | undefined, nav: PageNav): string {
  const damage = damageText(footer);
  const note = damage === undefined
    ? ""
    : `<p class="damage">${escapeHtml(damage)}</p>\n`;
  return `</main>\n<footer>\n${note}${
    _nav(nav)
  }\n</footer>\n</div>\n</body>\n</html>\n`;
}

function _nav(nav: PageNav): string {
  if (nav.prev === undefined && nav.next === undefined) return "";
  const prev = nav.prev === undefined
    ? `<span>← Previous</span>`
    : `<a rel="prev" href="${escapeHtml(nav.prev)}">← Previous</a>`;
  const next = nav.next === undefined
    ? `<span>Next →</span>`
    : `<a rel="next" href="${escapeHtml(nav.next)}">Next →</a>`;
  return `<nav class="pages">${prev} <span>Page ${nav.page}</span> ${next}</nav>`;
}

function _time(iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${
    escapeHtml(displayTime(iso))
  }</time>`;
}

function _branch(kind: string, what: string, time?: string): Wrapper {
  const when = time === undefined ? "" : ` · ${_time(time)}`;
  const open = (label: string, attr: string, suffix: string) =>
    `<details class="branch ${kind}"${attr}><summary><span class="role">⑂ ${label}</span>${suffix}</summary>\n`;
  return {
    open: open(what, "", when),
    close: `</details>\n`,
    reopen: open(`${what} (continued)`, " open", ""),
  };
}

/**
 * Text as HTML: fenced code becomes `<pre><code>`, code spans `<code>`,
 * blank lines separate `<p>` paragraphs (whose line breaks the stylesheet
 * keeps), a heading line a bold `<p class="heading">`; every character
 * from `text` is escaped.
 *
 * @param text A message's text (Markdown, or plain).
 * @returns HTML.
 */
export function textToHtml(text: string): string {
  const out: string[] = [];
  for (const segment of splitFences(text)) {
    if (segment.code) {
      // The info string's first word, when it is a plain language name.
      const word = segment.info.split(/\s/)[0] ?? "";
      const lang = /^[A-Za-z0-9_+#.-]{1,32}$/.test(word) ? word : "";
      out.push(codeBlockHtml(segment.body, lang));
      continue;
    }
    for (const paragraph of segment.text.split(/\n(?:[ \t]*\n)+/)) {
      _paragraph(paragraph, out);
    }
  }
  return out.join("\n");
}

/**
 * A block of verbatim text: `<pre><code>`, escaped.
 *
 * @param text The text, shown verbatim.
 * @param language A language name already checked to be a plain word, or "".
 * @returns HTML.
 */
export function codeBlockHtml(text: string, language = ""): string {
  const lang = language === "" ? "" : ` data-lang="${language}"`;
  return `<pre><code${lang}>${escapeHtml(text)}</code></pre>`;
}

const _HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)/;

/**
 * A paragraph as `<p>`, its heading lines as `<p class="heading">`. The
 * trimming is done by scans, not by regular expressions ending in `$`: a
 * backtracking engine retries those at every blank of a long run, which
 * made the time grow with the square (or cube) of the run.
 */
function _paragraph(paragraph: string, out: string[]): void {
  let lines: string[] = [];
  const flush = () => {
    const text = _withoutBlankLines(lines.join("\n")).trimEnd();
    if (text !== "") out.push(`<p>${_inline(text)}</p>`);
    lines = [];
  };
  for (const line of paragraph.split("\n")) {
    const heading = _HEADING.exec(line);
    if (heading === null) {
      lines.push(line);
      continue;
    }
    flush();
    const text = _headingText(line.slice(heading[0].length));
    if (text !== "") out.push(`<p class="heading">${_inline(text)}</p>`);
  }
  flush();
}

function _isBlank(c: string | undefined): boolean {
  return c === " " || c === "\t";
}

/** `text` without its leading lines of spaces and tabs. */
function _withoutBlankLines(text: string): string {
  let from = 0;
  for (let at = 0;; at++) {
    while (_isBlank(text[at])) at++;
    if (text[at] !== "\n") return text.slice(from);
    from = at + 1;
  }
}

/**
 * A heading's text without its closing sequence (a run of `#` after a
 * blank, or alone) and the blanks around it, as CommonMark reads it.
 */
function _headingText(text: string): string {
  let end = text.length;
  while (_isBlank(text[end - 1])) end--;
  let marks = end;
  while (text[marks - 1] === "#") marks--;
  if (marks < end && (marks === 0 || _isBlank(text[marks - 1]))) end = marks;
  while (_isBlank(text[end - 1])) end--;
  return text.slice(0, end);
}

function _inline(text: string): string {
  return codeSpans(text).map((p) =>
    p.code ? `<code>${escapeHtml(p.text)}</code>` : escapeHtml(p.text)
  ).join("");
}

/** Readable type, a bounded measure, light and dark colors, no web fonts. */
const _STYLESHEET = `
:root {
  color-scheme: light dark;
  --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa;
  --border: #d1d9e0; --user: #0969da; --assistant: #8250df; --tool: #1a7f37;
  --error: #cf222e; --summary: #9a6700; --custom: #bf3989;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23;
    --border: #3d444d; --user: #4493f8; --assistant: #ab7df8; --tool: #3fb950;
    --error: #f85149; --summary: #d29922; --custom: #db61a2;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans",
    "Helvetica Neue", Arial, sans-serif;
}
.page { max-width: 52rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1 { font-size: 1.65rem; line-height: 1.3; margin: 0 0 1rem; overflow-wrap: anywhere; }
dl.meta {
  display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem;
  margin: 0 0 1rem; font-size: .9rem;
}
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
nav.pages { display: flex; gap: 1.5rem; font-size: .9rem; color: var(--muted); margin: 1rem 0; }
a { color: var(--user); }
h2.turn {
  font-size: .78rem; font-weight: 600; text-transform: uppercase; letter-spacing: .08em;
  color: var(--muted); border-top: 1px solid var(--border);
  margin: 2.25rem 0 .5rem; padding-top: 1.25rem;
}
article.msg { border-left: 3px solid var(--border); margin: 1rem 0; padding: .1rem 0 .1rem 1rem; }
article.user { border-color: var(--user); }
article.assistant { border-color: var(--assistant); }
article.tool-result { border-color: var(--tool); }
article.tool-result.error { border-color: var(--error); }
article.compactionSummary, article.branchSummary { border-color: var(--summary); }
article.custom { border-color: var(--custom); }
.msg header, .msg summary {
  font-size: .85rem; color: var(--muted); display: flex; flex-wrap: wrap;
  gap: .25rem .6rem; align-items: baseline;
}
.role { font-weight: 600; color: var(--fg); }
.badge {
  font-size: .75rem; border: 1px solid var(--error); color: var(--error);
  border-radius: 1rem; padding: 0 .5rem;
}
time { font-variant-numeric: tabular-nums; }
.text p { margin: .5rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.text p.heading { font-weight: 650; margin-top: 1rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; }
:not(pre) > code { font-size: .88em; background: var(--panel); border-radius: 4px; padding: .05em .3em; overflow-wrap: anywhere; }
summary > code.detail, header > code.detail { background: none; padding: 0; }
pre {
  background: var(--panel); border: 1px solid var(--border); border-radius: 6px;
  padding: .75rem; margin: .6rem 0; overflow: auto; max-height: 40rem;
  font-size: .82rem; line-height: 1.45;
}
details { border: 1px solid var(--border); border-radius: 6px; margin: .5rem 0; }
details > summary { cursor: pointer; padding: .35rem .75rem; list-style-position: inside; }
details > summary::marker { color: var(--muted); }
details[open] > summary { border-bottom: 1px solid var(--border); }
details > :not(summary) { margin-left: .75rem; margin-right: .75rem; }
article.tool-result details { margin: .25rem 0; }
article.tool-result.error details { border-color: var(--error); }
details.thinking .text { color: var(--muted); font-style: italic; }
details.branch { border-left: 3px dashed var(--summary); padding-bottom: .25rem; }
details.branch.detached { border-left-color: var(--error); }
figure { margin: .75rem 0; }
img { max-width: 100%; height: auto; border: 1px solid var(--border); border-radius: 6px; }
p.missing, p.note { font-size: .9rem; color: var(--muted); }
p.missing { border: 1px dashed var(--border); border-radius: 6px; padding: .5rem .75rem; }
p.error { color: var(--error); }
footer { margin-top: 3rem; border-top: 1px solid var(--border); padding-top: 1rem; font-size: .85rem; color: var(--muted); }
`;
