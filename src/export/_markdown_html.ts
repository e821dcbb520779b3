/**
 * A message's Markdown as HTML, rendered in full by markdown-it (CommonMark
 * and GitHub's tables, strikethrough, bare links), with code highlighted at
 * export time, and kept inert:
 *
 * - raw HTML is off: a tag in a message is text;
 * - a link is kept only to an `http:`, `https:` or `mailto:` address (after
 *   markdown-it has decoded entities and escapes: `jav&#x61;script:` is
 *   `javascript:` by then), else it is text;
 * - an image is a link to it, so no request leaves the page on load;
 * - a table cell's alignment is a class, not a `style` attribute (the
 *   page's policy allows only its own stylesheet);
 * - headings move two levels down, below the page's `h1` and turn `h2`;
 * - control and bidirectional characters are U+FFFD before parsing.
 *
 * @module
 */

import MarkdownIt from "markdown-it";
import { escapeHtml, withoutControls } from "./_escape.ts";
import { highlightHtml } from "./_highlight.ts";

/** The link schemes kept. */
const _LINK = /^(?:https?:|mailto:)/i;

/** A fence's language: its info string's first word, when a plain name. */
export function fenceLanguage(info: string): string {
  const word = info.trim().split(/\s/, 1)[0] ?? "";
  return /^[A-Za-z0-9_+#.-]{1,32}$/.test(word) ? word.toLowerCase() : "";
}

/**
 * A block of code: `<pre><code>`, highlighted when its language is known.
 *
 * @param code The code, verbatim.
 * @param language A language name, or "".
 * @returns HTML.
 */
export function codeBlockHtml(code: string, language = ""): string {
  const lang = fenceLanguage(language);
  const attr = lang === "" ? "" : ` data-lang="${escapeHtml(lang)}"`;
  const body = code.endsWith("\n") ? code.slice(0, -1) : code;
  return `<pre><code class="hljs"${attr}>${
    highlightHtml(body, lang)
  }</code></pre>`;
}

function _renderer(): InstanceType<typeof MarkdownIt> {
  const md = new MarkdownIt({
    html: false,
    linkify: true,
    typographer: false,
    highlight: (code, info) => codeBlockHtml(code, info),
  });
  md.validateLink = (url) => _LINK.test(url);
  const rules = md.renderer.rules;
  rules.image = (tokens, i) => {
    const t = tokens[i]!;
    const src = String(t.attrGet("src") ?? "");
    const alt = t.content === "" ? "image" : t.content;
    return `<a class="image" href="${escapeHtml(src)}" rel="noreferrer">` +
      `🖼 ${escapeHtml(alt)}</a>`;
  };
  rules.link_open = (tokens, i, options, _env, self) => {
    tokens[i]!.attrSet("rel", "noreferrer");
    return self.renderToken(tokens, i, options);
  };
  md.core.ruler.push("xdev_inert", (state) => {
    for (const t of state.tokens) {
      if (t.type === "heading_open" || t.type === "heading_close") {
        t.tag = `h${Math.min(6, Number(t.tag.slice(1)) + 2)}`;
      }
      if (t.type === "th_open" || t.type === "td_open") {
        const align = /text-align:(left|right|center)/.exec(
          String(t.attrGet("style") ?? ""),
        )?.[1];
        t.attrs = align === undefined ? null : [["class", `align-${align}`]];
      }
    }
  });
  return md;
}

const _MD = _renderer();

/**
 * A message's text (Markdown) as inert HTML.
 *
 * @param text Markdown from a session.
 * @returns HTML.
 */
export function markdownHtml(text: string): string {
  return _MD.render(withoutControls(text));
}
