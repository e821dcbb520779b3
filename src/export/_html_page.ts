/**
 * The HTML export's pages: a self-contained document (inline stylesheet, no
 * script, a Content-Security-Policy that allows no script and no request
 * but images from the export's own folder), its header and footer, and the
 * renderer that fills it.
 *
 * @module
 */

import type { ContextMessage } from "../context/messages.ts";
import type { Assets } from "./_assets.ts";
import { escapeHtml } from "./_escape.ts";
import { messageHtml } from "./_html.ts";
import { STYLESHEET } from "./_html_style.ts";
import {
  damageText,
  displayTime,
  type ExportFooter,
  type ExportMeta,
} from "./_meta.ts";
import type { BranchInfo, PageNav, Renderer, Wrapper } from "./_renderer.ts";

/**
 * The HTML renderer of one export.
 *
 * @param assets Where images go.
 * @returns The renderer.
 */
export async function htmlRenderer(assets: Assets): Promise<Renderer> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(STYLESHEET),
  );
  const styleHash = new Uint8Array(digest).toBase64();
  // Scripts, frames, fonts, fetches: none. Images: embedded, or the files
  // beside the page. Styles: this stylesheet only.
  const csp = [
    "default-src 'none'",
    "img-src data: 'self'",
    `style-src 'sha256-${styleHash}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return {
    format: "html",
    head: (meta, nav) => _head(meta, nav, csp),
    foot: _foot,
    turn: (n) => `<h2 class="turn" id="turn-${n}">Turn ${n}</h2>\n`,
    message: (m: ContextMessage) => messageHtml(m, assets),
    note: (text) => `<p class="note">${escapeHtml(text)}</p>\n`,
    branch: _branch,
  };
}

function _head(meta: ExportMeta, nav: PageNav, csp: string): string {
  const title = meta.title ?? "Untitled session";
  const pageTitle = nav.page === 1 ? title : `${title} (page ${nav.page})`;
  const rows: [string, string][] = [];
  if (meta.models.length > 0) {
    rows.push([
      meta.models.length === 1 ? "Model" : "Models",
      meta.models.map((m) => `<code>${escapeHtml(m)}</code>`).join(", "),
    ]);
  }
  if (meta.first !== undefined && meta.last !== undefined) {
    rows.push(["First message", _time(meta.first)]);
    rows.push(["Last message", _time(meta.last)]);
  }
  rows.push([
    "Exported",
    `${
      escapeHtml(meta.scope)
    }: ${meta.messages} messages, ${meta.entries} entries read`,
  ]);
  if (meta.cwd !== undefined) {
    rows.push(["Directory", `<code>${escapeHtml(meta.cwd)}</code>`]);
  }
  if (meta.sessionId !== undefined) {
    rows.push(["Session", `<code>${escapeHtml(meta.sessionId)}</code>`]);
  }
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
  const damage = footer === undefined ? undefined : damageText(footer);
  const note = damage === undefined
    ? ""
    : `<p class="damage">${escapeHtml(damage)}</p>\n`;
  return `</main>
<footer>
${note}${_nav(nav)}
</footer>
</div>
</body>
</html>
`;
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

function _branch(info: BranchInfo): Wrapper {
  const what = info.kind === "branch"
    ? "Another branch from here (not on the active path)"
    : "Entries whose parent is missing";
  const when = info.time === undefined ? "" : ` · ${_time(info.time)}`;
  const summary =
    `<summary><span class="role">⑂ ${what}</span>${when}</summary>`;
  return {
    open: `<details class="branch ${info.kind}">${summary}\n`,
    close: `</details>\n`,
    reopen:
      `<details class="branch ${info.kind}" open><summary><span class="role">⑂ ${what} (continued)</span></summary>\n`,
  };
}
