/**
 * Code highlighted at export time (highlight.js, its common languages), so
 * the page needs no script: the output is the code, escaped, inside
 * `<span class="hljs-…">` elements the stylesheet colors. Only a language
 * named (a fence's info string, a file's extension) is highlighted, never a
 * guessed one (guessing runs every grammar over the text).
 *
 * @module
 */

// @ts-types="./_hljs.d.ts"
import hljs from "highlight.js/lib/common";
import { escapeHtml, withoutControls } from "./_escape.ts";

/**
 * Code longer than this is shown plain: a grammar's cost on one block is
 * then bounded, and the export stays linear in its input.
 */
const _MAX_HIGHLIGHT_CHARS = 200_000;

/** File extensions whose language highlight.js names otherwise. */
const _EXTENSIONS: Readonly<Record<string, string>> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsonl: "json",
  jsonc: "json",
  md: "markdown",
  py: "python",
  rs: "rust",
  sh: "bash",
  zsh: "bash",
  yml: "yaml",
  toml: "ini",
  html: "xml",
  svg: "xml",
  h: "c",
  hpp: "cpp",
  cc: "cpp",
  kt: "kotlin",
  rb: "ruby",
  cs: "csharp",
};

/**
 * The language of a file, by its extension, when highlight.js knows it.
 *
 * @param path A path from a tool call.
 * @returns The language's name, or undefined.
 */
export function languageOfPath(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot < 0) return name === "Dockerfile" ? "dockerfile" : undefined;
  const ext = name.slice(dot + 1).toLowerCase();
  const lang = _EXTENSIONS[ext] ?? ext;
  return hljs.getLanguage(lang) === undefined ? undefined : lang;
}

/**
 * Code as HTML: highlighted when `language` is one highlight.js knows and
 * the code is not too long, else escaped; control and bidirectional
 * characters are U+FFFD either way.
 *
 * @param code The code, verbatim.
 * @param language A language name (from the session: looked up, never
 * written out), or "".
 * @returns HTML for inside a `<code>` element.
 */
export function highlightHtml(code: string, language: string): string {
  const text = withoutControls(code);
  if (
    language === "" || text.length > _MAX_HIGHLIGHT_CHARS ||
    hljs.getLanguage(language) === undefined
  ) return escapeHtml(text);
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}

/** Highlighted HTML cut after some lines, its open elements closed and reopened. */
export interface HtmlLines {
  /** The first lines. */
  head: string;
  /** The rest ("" when none). */
  rest: string;
  /** How many lines the rest holds. */
  restLines: number;
}

const _TAG = /<span[^>]*>|<\/span>/g;

/**
 * Cut HTML made of text and `<span>` elements (escaped code, or
 * {@linkcode highlightHtml}'s output) after `lines` lines: the spans open at
 * the cut are closed at the end of the head and opened again at the start
 * of the rest, so both halves are whole. One scan.
 *
 * @param html The HTML.
 * @param lines How many lines the head keeps.
 * @returns The two halves.
 */
export function cutHtmlLines(whole: string, lines: number): HtmlLines {
  const html = whole.endsWith("\n") ? whole.slice(0, -1) : whole;
  let at = -1;
  for (let n = 0; n < lines; n++) {
    at = html.indexOf("\n", at + 1);
    if (at < 0) return { head: html, rest: "", restLines: 0 };
  }
  let restLines = 1;
  for (
    let i = html.indexOf("\n", at + 1);
    i >= 0;
    i = html.indexOf("\n", i + 1)
  ) {
    restLines++;
  }
  const open: string[] = [];
  for (const m of html.slice(0, at).matchAll(_TAG)) {
    if (m[0] === "</span>") open.pop();
    else open.push(m[0]);
  }
  return {
    head: html.slice(0, at) + "</span>".repeat(open.length),
    rest: open.join("") + html.slice(at + 1),
    restLines,
  };
}
