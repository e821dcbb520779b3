/**
 * The HTML export's one stylesheet (inline in every page; the page's
 * Content-Security-Policy allows it by its hash and nothing else).
 *
 * @module
 */

/** Readable type, a bounded measure, light and dark colors, no web fonts. */
export const STYLESHEET = `
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
