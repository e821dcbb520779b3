/**
 * The HTML format: self-contained pages (an inline stylesheet, allowed by
 * its hash; a Content-Security-Policy that allows no script and no request
 * but images from the export's own folder), one `<article class="msg">` per
 * message with an anchor (`id="entry-<id>"`), a sidebar outline of the
 * turns and branches. A message's Markdown is rendered in full, inert
 * ({@linkcode markdownHtml}); code is highlighted at export time; tool calls
 * are shown by kind with their results under them ({@linkcode toolHtml}).
 *
 * @module
 */

import { toBase64 } from "../format/_encoding.ts";
import type { ImageOut } from "./_assets.ts";
import type { Format, Heading } from "./_document.ts";
import type { PageNav, Wrapper } from "./_files.ts";
import { escapeHtml } from "./_escape.ts";
import { STYLESHEET } from "./_html_style.ts";
import { resultHtml, toolHtml } from "./_html_tools.ts";
import { codeBlockHtml, markdownHtml } from "./_markdown_html.ts";
import {
  damageText,
  displayTime,
  type ExportFooter,
  type ExportMeta,
  metaRows,
  type OutlineItem,
} from "./_meta.ts";

/**
 * The HTML format (async: the policy names the stylesheet's digest).
 *
 * @returns The format.
 */
export async function htmlFormat(): Promise<Format> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(STYLESHEET),
  );
  // Scripts, frames, fonts, fetches: none. Images: embedded, or the files
  // beside the page. Styles: this stylesheet only.
  const csp = [
    "default-src 'none'",
    "img-src data: 'self'",
    `style-src 'sha256-${toBase64(new Uint8Array(digest))}'`,
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
      `<article class="msg ${h.role}"${_id(h)} data-role="${
        escapeHtml(h.role)
      }">\n<header>${_heading(h)}</header>\n${body}\n</article>\n`,
    tool: (call, result) => toolHtml(call, result, _heading),
    toolResult: (result) => `${resultHtml(result, _heading)}\n`,
    join: (pieces) => pieces.join("\n"),
    text: (text) => `<div class="text">${markdownHtml(text)}</div>`,
    code: (text, info) => codeBlockHtml(text, info === "json" ? info : ""),
    thinking: (text) =>
      `<details class="thinking"><summary>Thinking</summary>\n` +
      `<div class="text">${markdownHtml(text)}</div>\n</details>`,
    image: _image,
    redacted: () => `<p class="note">Thinking (redacted by the provider).</p>`,
    unknown: (type) =>
      `<p class="note">A block of type <code>${escapeHtml(type)}</code>.</p>`,
    error: (text) => `<p class="error">${escapeHtml(text)}</p>`,
  };
}

function _id(h: Heading): string {
  return h.anchor === undefined ? "" : ` id="entry-${escapeHtml(h.anchor)}"`;
}

function _heading(h: Heading): string {
  let out = h.anchor === undefined
    ? ""
    : `<a class="anchor" href="#entry-${escapeHtml(h.anchor)}">#</a> `;
  out += `<span class="role">${escapeHtml(h.label)}</span>`;
  if (h.detail !== undefined) {
    out += ` <code class="detail">${escapeHtml(h.detail)}</code>`;
  }
  const badge = h.badge ?? (h.hidden === true ? "hidden from the UI" : "");
  if (badge !== "") out += ` <span class="badge">${escapeHtml(badge)}</span>`;
  if (h.tag !== undefined) {
    out += ` <span class="tag">${escapeHtml(h.tag)}</span>`;
  }
  if (h.usage !== undefined) {
    out += ` <span class="usage">${escapeHtml(h.usage)}</span>`;
  }
  if (h.time !== undefined) out += ` ${_time(h.time)}`;
  return out;
}

/** The outline's list: one line per item, its depth and path as classes. */
function _outline(items: readonly OutlineItem[]): string {
  const lines = items.map((item) => {
    const cls = `d${Math.min(4, item.depth)} ${item.active ? "on" : "off"}`;
    const tag = item.tag === undefined
      ? ""
      : ` <span class="tag">${escapeHtml(item.tag)}</span>`;
    return `<li class="${cls}"><a href="#entry-${escapeHtml(item.anchor)}">${
      escapeHtml(item.text)
    }</a>${tag}</li>`;
  });
  return `<ol>\n${lines.join("\n")}\n</ol>`;
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
    link: (anchor, text) =>
      `<a href="#entry-${escapeHtml(anchor)}">${escapeHtml(text)}</a>`,
  });
  const outline = meta.outline.length === 0 ? "" : _outline(meta.outline);
  const legend = "Turns (● the active path)";
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
<style>${STYLESHEET}</style>
</head>
<body>
<div class="layout">
${
    outline === ""
      ? ""
      : `<nav class="outline" aria-label="Outline"><h2>${legend}</h2>\n${outline}\n</nav>\n`
  }<div class="page">
<header class="session">
<h1>${escapeHtml(title)}</h1>
<dl class="meta">
${dl}
</dl>
${
    outline === ""
      ? ""
      : `<details class="outline"><summary>${legend}</summary>\n${outline}\n</details>\n`
  }${_nav(nav)}
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
  }\n</footer>\n</div>\n</div>\n</body>\n</html>\n`;
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
