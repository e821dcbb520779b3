/**
 * Escaping for the two export formats: every string read from a session
 * passes through one of these before it is written.
 *
 * @module
 */

const _HTML: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** C0 control characters but tab, line feed and carriage return; DEL. */
// deno-lint-ignore no-control-regex
const _HTML_CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/**
 * Text safe in HTML, as element content and as a quoted attribute value:
 * `& < > " '` become references, stray control characters U+FFFD.
 *
 * @example Markup becomes text
 * ```ts
 * import { escapeHtml } from "./_escape.ts";
 * console.assert(
 *   escapeHtml(`<img src=x onerror="a('b')">&`) ===
 *     "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;",
 * );
 * ```
 *
 * @param text Any text.
 * @returns The escaped text.
 */
export function escapeHtml(text: string): string {
  return withoutControls(text.replace(/[&<>"']/g, (c) => _HTML[c]!));
}

/**
 * Text without the control characters a document has no use for (C0 but
 * tab, line feed and carriage return; DEL): each becomes U+FFFD, as an HTML
 * or CommonMark parser would read it, so none reaches a file verbatim.
 *
 * @example A NUL and an escape
 * ```ts
 * import { withoutControls } from "./_escape.ts";
 * console.assert(withoutControls("a\x00b\x1b[2J\tc") === "a\ufffdb\ufffd[2J\tc");
 * ```
 *
 * @param text Any text.
 * @returns The text, its stray control characters replaced.
 */
export function withoutControls(text: string): string {
  return text.replace(_HTML_CONTROLS, "\ufffd");
}

/**
 * The characters that can start or end Markdown syntax inside a line:
 * each is escaped with a backslash (CommonMark lets any ASCII punctuation
 * be escaped so).
 */
const _MD_INLINE = /[\\`*_[\]<>#|!~&]/g;

/**
 * A short string (a title, a model, a tool name) as literal Markdown text on
 * one line: line breaks and control characters become spaces, Markdown's
 * punctuation is backslash-escaped, so it can open no link, code span, HTML
 * tag or heading.
 *
 * @example A title that tries to be markup
 * ```ts
 * import { escapeMarkdownInline } from "./_escape.ts";
 * console.assert(
 *   escapeMarkdownInline("Fix <b>\n[x](y) #1") === "Fix \\<b\\> \\[x\\](y) \\#1",
 * );
 * ```
 *
 * @param text Any text.
 * @returns The text, inert in Markdown.
 */
export function escapeMarkdownInline(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, " ").replace(
    _MD_INLINE,
    (c) => `\\${c}`,
  );
}

/**
 * A fenced code block around `content`: the fence is a run of backticks one
 * longer than the longest run inside (at least three), so the content cannot
 * close it.
 *
 * @example Content holding a fence of its own
 * ```ts
 * import { fenced } from "./_escape.ts";
 * const three = "`".repeat(3);
 * const four = "`".repeat(4);
 * console.assert(fenced(`${three}\nrm -rf /\n${three}`, "text") ===
 *   `${four}text\n${three}\nrm -rf /\n${three}\n${four}`);
 * ```
 *
 * @param content The code, shown verbatim.
 * @param info The info string (`json`, `text`); ours, never the session's.
 * @returns The block, without a line break after it.
 */
export function fenced(content: string, info = ""): string {
  let longest = 0;
  for (const m of content.matchAll(/`+/g)) {
    longest = Math.max(longest, m[0].length);
  }
  const fence = "`".repeat(Math.max(3, longest + 1));
  const text = withoutControls(content);
  const body = text.endsWith("\n") || text === "" ? text : `${text}\n`;
  return `${fence}${info}\n${body}${fence}`;
}

/**
 * A relative URL path for a file name we chose: each segment
 * percent-encoded, so it can carry no scheme, query or markup.
 *
 * @example A stem with a space and a colon
 * ```ts
 * import { relativeHref } from "./_escape.ts";
 * console.assert(relativeHref("my: notes-files", "ab.png") === "my%3A%20notes-files/ab.png");
 * ```
 *
 * @param segments The path's segments.
 * @returns The URL path.
 */
export function relativeHref(...segments: string[]): string {
  return segments.map(encodeURIComponent).join("/");
}
