/**
 * A message's own Markdown, made safe to embed in the Markdown export: it
 * still reads as the model wrote it, but it cannot open raw HTML (so no
 * `<script>`, no `</details>` closing our blocks), cannot leave a code fence
 * open over the rest of the export, and cannot link to a `javascript:` URL.
 *
 * @module
 */

import { withoutControls } from "./_escape.ts";
import { codeSpans, splitFences } from "./_markdown_scan.ts";

/**
 * Link destinations kept as links: web and mail addresses, and relative
 * ones (no scheme). Anything else (`javascript:`, `data:`, a scheme hidden
 * behind an entity or a backslash escape) is shown as text.
 */
const _SAFE_SCHEME = /^(?:https?:\/\/|mailto:)/i;

/**
 * `text` with its code left alone and, outside code: `<` written `&lt;`
 * (no raw HTML, no autolink); an inline link or image whose destination
 * has a scheme other than http, https or mailto (or an `&` or `\` that
 * could spell one) turned to plain text; the same for a link reference
 * definition. A fenced block left open is closed; headings are moved
 * three levels down, below the export's own.
 *
 * @example Markup and a script link, made inert
 * ```ts
 * import { safeMarkdown } from "./_markdown_text.ts";
 * console.assert(
 *   safeMarkdown("</details><script>x</script> [a](javascript:x) `<b>`") ===
 *     "&lt;/details>&lt;script>x&lt;/script> [a]\\(javascript:x) `<b>`",
 * );
 * const fence = "`".repeat(3);
 * console.assert(safeMarkdown(`${fence}\nopen`) === `${fence}\nopen\n${fence}`);
 * ```
 *
 * @param text Markdown from a session.
 * @returns Markdown that stays inside the block it is put in.
 */
export function safeMarkdown(text: string): string {
  const out: string[] = [];
  for (const segment of splitFences(withoutControls(text))) {
    if (!segment.code) {
      out.push(_prose(segment.text));
      continue;
    }
    // Closed again with the opening fence, whether or not it was.
    const { fence, info, body } = segment;
    out.push(
      `${fence}${info.replaceAll("<", "&lt;")}\n` +
        (body === "" ? "" : `${body}\n`) + fence,
    );
  }
  return out.join("\n");
}

function _prose(text: string): string {
  return text.split("\n").map((line) => _heading(_referenceDefinition(line)))
    .join("\n")
    .split(/(\n[ \t]*\n)/).map((paragraph) =>
      codeSpans(paragraph).map((p) => p.code ? _span(p.text) : _plain(p.text))
        .join("")
    ).join("");
}

/** A code span put back with a fence its content cannot close. */
function _span(content: string): string {
  let longest = 0;
  for (const m of content.matchAll(/`+/g)) {
    longest = Math.max(longest, m[0].length);
  }
  const ticks = "`".repeat(longest + 1);
  const pad = content.startsWith("`") || content.endsWith("`") ? " " : "";
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

function _plain(text: string): string {
  return text.replaceAll("<", "&lt;").replace(
    /\]\(\s*([^\s)]*)/g,
    (whole, dest: string) =>
      _safeDestination(dest) ? whole : `]\\(${whole.slice(2)}`,
  );
}

/**
 * An ATX heading moved three levels down (`#` → `####`, at most `######`),
 * below the export's own headings: a message's headings stay inside it.
 */
function _heading(line: string): string {
  return line.replace(
    /^( {0,3})(#{1,6})(?=[ \t]|$)/,
    (_, indent: string, marks: string) =>
      `${indent}${"#".repeat(Math.min(6, marks.length + 3))}`,
  );
}

/** `[label]: destination` at the start of a line (in a quote or not). */
const _REF_DEF = /^((?:[ \t]*>)*[ \t]{0,3})\[([^\]\n]*)\]:[ \t]*(\S*)/;

function _referenceDefinition(line: string): string {
  const m = _REF_DEF.exec(line);
  if (m === null || _safeDestination(m[3]!)) return line;
  return `${m[1]}\\${line.slice(m[1]!.length)}`;
}

function _safeDestination(raw: string): boolean {
  const dest = raw.startsWith("<") || raw.startsWith("&lt;")
    ? raw.replace(/^(?:<|&lt;)/, "")
    : raw;
  if (_SAFE_SCHEME.test(dest)) return true;
  // Up to the first / ? or #: no scheme, and nothing that could decode to one.
  const head = /^[^/?#]*/.exec(dest)![0];
  return !/[:&\\%]/.test(head);
}
