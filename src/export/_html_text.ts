/**
 * A message's text as HTML: the little of Markdown that makes a transcript
 * readable (paragraphs, fenced code blocks, code spans), everything else
 * shown as written. All of it escaped: no markup from a session survives.
 *
 * @module
 */

import { escapeHtml } from "./_escape.ts";
import { codeSpans, splitFences } from "./_markdown_scan.ts";

/**
 * Text as HTML: fenced code becomes `<pre><code>`, code spans `<code>`,
 * blank lines separate `<p>` paragraphs (whose line breaks the stylesheet
 * keeps), a heading line a bold `<p class="heading">`; every character
 * from `text` is escaped.
 *
 * @example Prose, a code span and a fence
 * ```ts
 * import { textToHtml } from "./_html_text.ts";
 * console.assert(
 *   textToHtml(`Use \`<b>\`:\n\n${"`".repeat(3)}html\n<script>x</script>\n${"`".repeat(3)}`) ===
 *     '<p>Use <code>&lt;b&gt;</code>:</p>\n' +
 *       '<pre><code data-lang="html">&lt;script&gt;x&lt;/script&gt;</code></pre>',
 * );
 * ```
 *
 * @param text A message's text (Markdown, or plain).
 * @returns HTML.
 */
export function textToHtml(text: string): string {
  const out: string[] = [];
  for (const segment of splitFences(text)) {
    if (segment.code) {
      out.push(codeBlockHtml(segment.body, _language(segment.info)));
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
 * @example A tool's output
 * ```ts
 * import { codeBlockHtml } from "./_html_text.ts";
 * console.assert(codeBlockHtml("a < b") === "<pre><code>a &lt; b</code></pre>");
 * ```
 *
 * @param text The text, shown verbatim.
 * @param language A language name already checked to be a plain word.
 * @returns HTML.
 */
export function codeBlockHtml(text: string, language?: string): string {
  const lang = language === undefined ? "" : ` data-lang="${language}"`;
  return `<pre><code${lang}>${escapeHtml(text)}</code></pre>`;
}

const _HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)/;

/** A paragraph as `<p>`, its heading lines as `<p class="heading">`. */
function _paragraph(paragraph: string, out: string[]): void {
  let lines: string[] = [];
  const flush = () => {
    const text = lines.join("\n").replace(/^(?:[ \t]*\n)+|\s+$/g, "");
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
    const text = line.slice(heading[0].length).replace(/[ \t]+#*[ \t]*$/, "");
    if (text !== "") out.push(`<p class="heading">${_inline(text)}</p>`);
  }
  flush();
}

function _inline(text: string): string {
  return codeSpans(text).map((p) =>
    p.code ? `<code>${escapeHtml(p.text)}</code>` : escapeHtml(p.text)
  ).join("");
}

/** The first word of an info string, when it is a plain language name. */
function _language(info: string): string | undefined {
  const word = info.split(/\s/)[0] ?? "";
  return /^[A-Za-z0-9_+#.-]{1,32}$/.test(word) ? word : undefined;
}
