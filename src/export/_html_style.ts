/**
 * The HTML export's one stylesheet (the page's policy allows it by its
 * hash, and no other): readable type in a bounded measure, light and dark
 * colors (the code's too: highlight.js's classes, colored here), no web
 * fonts; a sidebar outline beside the content on a wide screen, folded
 * above it on a narrow one.
 *
 * @module
 */

/** The stylesheet. */
export const STYLESHEET = `
:root {
  color-scheme: light dark;
  --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa;
  --border: #d1d9e0; --user: #0969da; --assistant: #8250df; --tool: #1a7f37;
  --error: #cf222e; --summary: #9a6700; --custom: #bf3989;
  --add-bg: #dafbe1; --del-bg: #ffebe9; --hunk: #0550ae;
  --k: #cf222e; --s: #0a3069; --c: #6e7781; --n: #0550ae; --f: #8250df; --t: #953800;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23;
    --border: #3d444d; --user: #4493f8; --assistant: #ab7df8; --tool: #3fb950;
    --error: #f85149; --summary: #d29922; --custom: #db61a2;
    --add-bg: #12361f; --del-bg: #3c1618; --hunk: #79c0ff;
    --k: #ff7b72; --s: #a5d6ff; --c: #8b949e; --n: #79c0ff; --f: #d2a8ff; --t: #ffa657;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; scroll-padding-top: 1rem; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans",
    "Helvetica Neue", Arial, sans-serif;
}
.layout { display: flex; justify-content: center; gap: 2rem; }
nav.outline {
  flex: 0 0 17rem; position: sticky; top: 0; align-self: flex-start;
  max-height: 100vh; overflow: auto; padding: 2rem 0 2rem 1rem; font-size: .85rem;
}
details.outline { display: none; }
.page { flex: 0 1 52rem; min-width: 0; padding: 2rem 1.25rem 4rem; }
@media (max-width: 64rem) {
  .layout { display: block; }
  nav.outline { display: none; }
  details.outline { display: block; font-size: .9rem; }
  .page { max-width: 52rem; margin: 0 auto; }
}
.outline h2 { font-size: .78rem; text-transform: uppercase; letter-spacing: .08em; color: var(--muted); margin: 0 0 .5rem; }
.outline ol { list-style: none; margin: 0; padding: 0; }
.outline li { margin: 0; padding: .1rem 0 .1rem .5rem; border-left: 2px solid var(--border); overflow-wrap: anywhere; }
.outline li.on { border-left-color: var(--user); }
.outline li.on > a::before { content: "● "; color: var(--user); font-size: .7em; }
.outline li.off a { color: var(--muted); }
.outline li.d1 { margin-left: 1rem; } .outline li.d2 { margin-left: 2rem; }
.outline li.d3 { margin-left: 3rem; } .outline li.d4 { margin-left: 4rem; }
.outline li a { text-decoration: none; color: var(--fg); }
.outline li a:hover { text-decoration: underline; }
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
a.anchor { color: var(--muted); text-decoration: none; }
.role { font-weight: 600; color: var(--fg); }
.badge {
  font-size: .75rem; border: 1px solid var(--error); color: var(--error);
  border-radius: 1rem; padding: 0 .5rem;
}
.tag {
  font-size: .75rem; border: 1px solid var(--summary); color: var(--summary);
  border-radius: 1rem; padding: 0 .5rem;
}
.usage { font-variant-numeric: tabular-nums; }
time { font-variant-numeric: tabular-nums; }
.text { overflow-wrap: anywhere; }
.text p, .text ul, .text ol, .text blockquote, .text table { margin: .5rem 0; }
.text h3, .text h4, .text h5, .text h6 { font-size: 1rem; margin: 1rem 0 .25rem; }
.text h3 { font-size: 1.1rem; }
.text blockquote { border-left: 3px solid var(--border); color: var(--muted); margin-left: 0; padding-left: .75rem; }
.text table { border-collapse: collapse; display: block; overflow: auto; font-size: .9rem; }
.text th, .text td { border: 1px solid var(--border); padding: .25rem .6rem; }
.text th { background: var(--panel); }
.align-right { text-align: right; } .align-center { text-align: center; }
.text hr { border: 0; border-top: 1px solid var(--border); }
code, pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; }
:not(pre) > code { font-size: .88em; background: var(--panel); border-radius: 4px; padding: .05em .3em; overflow-wrap: anywhere; }
summary > code.detail, header > code.detail, .tool-head > code { background: none; padding: 0; }
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
details.more { border: 0; margin: -.4rem 0 .6rem; }
details.more > summary { font-size: .8rem; color: var(--muted); padding: .1rem 0; }
details.more[open] > summary { border: 0; }
details.more > pre { margin: 0; border-top-left-radius: 0; border-top-right-radius: 0; }
details.more > :not(summary) { margin-left: 0; margin-right: 0; }
.tool { border: 1px solid var(--border); border-radius: 6px; margin: .6rem 0; padding: .4rem .75rem; }
.tool-head { font-size: .85rem; display: flex; flex-wrap: wrap; gap: .25rem .6rem; align-items: baseline; }
.tool-name { font-weight: 600; color: var(--tool); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.tool pre.command { margin: .4rem 0; }
.tool article.msg { margin: .4rem 0 .2rem; }
article.tool-result pre, pre.command { white-space: pre-wrap; overflow-wrap: anywhere; }
details.thinking .text { color: var(--muted); font-style: italic; }
details.branch { border-left: 3px dashed var(--summary); padding-bottom: .25rem; }
details.branch.detached { border-left-color: var(--error); }
figure { margin: .75rem 0; }
img { max-width: 100%; height: auto; border: 1px solid var(--border); border-radius: 6px; }
p.missing, p.note { font-size: .9rem; color: var(--muted); }
p.missing { border: 1px dashed var(--border); border-radius: 6px; padding: .5rem .75rem; }
p.error { color: var(--error); }
pre.diff .add { background: var(--add-bg); display: inline-block; min-width: 100%; }
pre.diff .del { background: var(--del-bg); display: inline-block; min-width: 100%; }
pre.diff .hunk { color: var(--hunk); }
.hljs-keyword, .hljs-selector-tag, .hljs-literal, .hljs-doctag, .hljs-meta .hljs-keyword { color: var(--k); }
.hljs-string, .hljs-regexp, .hljs-meta .hljs-string, .hljs-template-tag { color: var(--s); }
.hljs-comment, .hljs-quote { color: var(--c); font-style: italic; }
.hljs-number, .hljs-attr, .hljs-attribute, .hljs-variable, .hljs-template-variable, .hljs-selector-id, .hljs-selector-class, .hljs-property, .hljs-symbol, .hljs-built_in { color: var(--n); }
.hljs-title, .hljs-title.function_, .hljs-section { color: var(--f); }
.hljs-type, .hljs-title.class_, .hljs-params, .hljs-name, .hljs-tag { color: var(--t); }
.hljs-addition { color: var(--tool); } .hljs-deletion { color: var(--error); }
.hljs-emphasis { font-style: italic; } .hljs-strong { font-weight: 600; }
footer { margin-top: 3rem; border-top: 1px solid var(--border); padding-top: 1rem; font-size: .85rem; color: var(--muted); }
`;
