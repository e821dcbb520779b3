/**
 * Shared by the export's Markdown tests (no tests of its own): what the
 * reference CommonMark renderer (npm:commonmark, which passes raw HTML and
 * every URL through) makes of Markdown, and what in its HTML is unsafe.
 */
import * as commonmark from "commonmark";

const _parser = new commonmark.Parser();
const _renderer = new commonmark.HtmlRenderer();

/** Markdown as the renderer writes it in HTML. */
export function render(markdown: string): string {
  return _renderer.render(_parser.parse(markdown));
}

/** An attribute's value as a browser reads it: references decoded. */
function _decoded(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot);/gi, (_, e) => {
    const named: Record<string, string> = {
      amp: "&",
      lt: "<",
      gt: ">",
      quot: '"',
    };
    if (e[0] !== "#") return named[e.toLowerCase()]!;
    const hex = e[1] === "x" || e[1] === "X";
    return String.fromCodePoint(parseInt(e.slice(hex ? 2 : 1), hex ? 16 : 10));
  });
}

/**
 * What is wrong with a rendering: a tag the renderer does not write itself
 * (raw HTML), an attribute it does not write (a handler), an image (a
 * viewer fetches it), a URL with a scheme other than http, https, mailto.
 */
export function unsafe(html: string): string[] {
  const wrong: string[] = [];
  const allowed: Record<string, string[]> = {
    a: ["href", "title"],
    details: [],
    summary: [],
    code: ["class"],
    ol: ["start"],
  };
  for (const tag of html.matchAll(/<(\/?)([a-z0-9]+)([^>]*)>/gi)) {
    const name = tag[2]!.toLowerCase();
    if (tag[1] === "/" || tag[3] === "" || tag[3] === " /") {
      if (!_RENDERER_TAGS.has(name) && !(name in allowed)) {
        wrong.push(tag[0]);
      }
      continue;
    }
    const attrs = [...tag[3]!.matchAll(/\s([^\s=]+)(?:="([^"]*)")?/g)];
    const names = attrs.map((a) => a[1]!);
    if (
      !(name in allowed) ||
      names.some((n) => !allowed[name]!.includes(n)) ||
      tag[3]!.replace(/\s[^\s=]+(?:="[^"]*")?/g, "").trim() !== ""
    ) {
      wrong.push(tag[0]);
      continue;
    }
    for (const a of attrs) {
      if (a[1] !== "href") continue;
      // A browser drops tabs and line breaks, and blanks before the scheme.
      const url = _decoded(a[2] ?? "").replace(/[\t\n\r]/g, "")
        .replace(/^[^!-~]+/, "");
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
      if (
        scheme !== undefined && !["http", "https", "mailto"].includes(scheme)
      ) {
        wrong.push(tag[0]);
      }
    }
  }
  return wrong;
}

/** The tags the renderer writes for Markdown, without attributes. */
const _RENDERER_TAGS = new Set([
  "p",
  "em",
  "strong",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "br",
  "a",
]);
