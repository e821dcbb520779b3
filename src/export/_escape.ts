/**
 * Escaping for the two export formats, and the Markdown scanner both read
 * a message's text with: every string from a session passes through one of
 * these before it is written, so this file is where the export is kept
 * inert (no markup, no fence, no link of the session's survives as such).
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

/**
 * The bidirectional formatting characters: embeddings and overrides
 * (U+202A–U+202E), isolates (U+2066–U+2069), the marks (U+200E, U+200F,
 * U+061C). Invisible, they reorder what is shown around them, so a
 * session's text could show one thing and hold another.
 */
const _BIDI = String.raw`\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c`;

/**
 * C0 control characters but tab, line feed and carriage return; DEL; the
 * bidirectional controls.
 */
const _CONTROLS = new RegExp(
  `[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f${_BIDI}]`,
  "g",
);

/** What a one-line string loses: control, bidirectional, line separators. */
const _INLINE_CONTROLS = new RegExp(`[\\p{Cc}\\u2028\\u2029${_BIDI}]`, "gu");

/**
 * The characters that can start or end Markdown syntax inside a line:
 * each is escaped with a backslash (CommonMark lets any ASCII punctuation
 * be escaped so).
 */
const _MD_INLINE = /[\\`*_[\]<>#|!~&]/g;

/**
 * Text safe in HTML, as element content and as a quoted attribute value:
 * `& < > " '` become references, stray control characters U+FFFD.
 *
 * @param text Any text.
 * @returns The escaped text.
 */
export function escapeHtml(text: string): string {
  return withoutControls(text.replace(/[&<>"']/g, (c) => _HTML[c]!));
}

/**
 * Text without the control characters a document has no use for (C0 but
 * tab, line feed and carriage return; DEL; the bidirectional controls):
 * each becomes U+FFFD (as an HTML or CommonMark parser reads a C0 control),
 * so none reaches a file verbatim.
 *
 * @param text Any text.
 * @returns The text, its stray control characters replaced.
 */
export function withoutControls(text: string): string {
  return text.replace(_CONTROLS, "\ufffd");
}

/**
 * A short string (a title, a model, a tool name) as literal Markdown text on
 * one line: line breaks, control and bidirectional characters become spaces, Markdown's
 * punctuation is backslash-escaped, so it can open no link, code span, HTML
 * tag or heading.
 *
 * @param text Any text.
 * @returns The text, inert in Markdown.
 */
export function escapeMarkdownInline(text: string): string {
  return text.replace(_INLINE_CONTROLS, " ")
    .replace(_MD_INLINE, (c) => `\\${c}`);
}

/**
 * A fenced code block around `content`: the fence is a run of backticks one
 * longer than the longest run inside (at least three), so the content cannot
 * close it.
 *
 * @param content The code, shown verbatim.
 * @param info The info string (`json`, `text`); ours, never the session's.
 * @returns The block, without a line break after it.
 */
export function fenced(content: string, info = ""): string {
  const fence = "`".repeat(Math.max(3, longestBacktickRun(content) + 1));
  const text = withoutControls(content);
  const body = text.endsWith("\n") || text === "" ? text : `${text}\n`;
  return `${fence}${info}\n${body}${fence}`;
}

/**
 * The longest run of backticks in `text`: a fence or a code span one
 * longer cannot be closed from inside.
 *
 * @param text Any text.
 * @returns The run's length, 0 for none.
 */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) {
    longest = Math.max(longest, m[0].length);
  }
  return longest;
}

/**
 * A relative URL path for a file name we chose: each segment
 * percent-encoded, so it can carry no scheme, query or markup.
 *
 * @param segments The path's segments.
 * @returns The URL path.
 */
export function relativeHref(...segments: string[]): string {
  return segments.map(encodeURIComponent).join("/");
}

/**
 * A stretch of a message's text: prose, or a fenced code block, found the
 * way CommonMark finds them (by line).
 */
export type Segment =
  | { code: false; text: string }
  | {
    code: true;
    /** The opening fence: three or more backticks or tildes. */
    fence: string;
    /** The info string after the opening fence, trimmed. */
    info: string;
    /** The lines between the fences. */
    body: string;
    /** Whether a closing fence was found (else the block ran to the end). */
    closed: boolean;
  };

/**
 * An opening fence line: its info string is the rest of the line, whatever
 * it holds (`[^]`, not `.`: a `.*$` stopped by a carriage return or a line
 * separator backtracked over the whole run of backticks before it).
 */
const _OPEN = /^ {0,3}(`{3,}|~{3,})([^]*)$/;
const _CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/**
 * Split text into prose and fenced code blocks, line by line: a fence is
 * closed by a fence of the same kind at least as long, or runs to the end.
 *
 * @param text Markdown.
 * @returns The segments, in order; prose never holds a fence line.
 */
export function splitFences(text: string): Segment[] {
  const out: Segment[] = [];
  const lines = text.split("\n");
  let prose: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = _OPEN.exec(lines[i]!);
    const fence = open?.[1];
    const info = open?.[2] ?? "";
    if (fence === undefined || (fence[0] === "`" && info.includes("`"))) {
      prose.push(lines[i]!);
      continue;
    }
    if (prose.length > 0) out.push({ code: false, text: prose.join("\n") });
    prose = [];
    const body: string[] = [];
    let closed = false;
    for (i++; i < lines.length; i++) {
      const close = _CLOSE.exec(lines[i]!)?.[1];
      closed = close !== undefined && close[0] === fence[0] &&
        close.length >= fence.length;
      if (closed) break;
      body.push(lines[i]!);
    }
    const segment = { fence, info: info.trim(), body: body.join("\n") };
    out.push({ code: true, ...segment, closed });
  }
  if (prose.length > 0) out.push({ code: false, text: prose.join("\n") });
  return out;
}

/** A stretch of prose: plain, or the inside of a code span. */
export interface InlinePiece {
  /** Whether `text` is a code span's content. */
  code: boolean;
  /** The text (for a span, without its backticks). */
  text: string;
}

/**
 * Split prose into plain text and code spans, as CommonMark does: a run of
 * backticks opens a span that the next run of the same length closes; a
 * run without one is plain text; outside a span, a backtick after an odd
 * number of backslashes is escaped (text), and the rest of its run counts
 * (inside a span, a backslash is code). Linear in the text's length,
 * however the runs fall.
 *
 * @param text Prose.
 * @returns The pieces, in order; plain pieces are never empty.
 */
export function codeSpans(text: string): InlinePiece[] {
  const runs = Array.from(text.matchAll(/`+/g), (m) => [m.index, m[0].length]);
  // For each length, the runs of that length, in order: a span's closer is
  // the first of them after its opener.
  const ofLength = new Map<number, number[]>();
  for (const [r, [, length]] of runs.entries()) {
    const list = ofLength.get(length!) ?? [];
    if (list.length === 0) ofLength.set(length!, list);
    list.push(r);
  }
  const out: InlinePiece[] = [];
  let at = 0;
  for (let r = 0; r < runs.length; r++) {
    let [start, length] = runs[r] as [number, number];
    let slashes = 0;
    while (start - slashes > at && text[start - slashes - 1] === "\\") {
      slashes++;
    }
    if (slashes % 2 === 1) [start, length] = [start + 1, length - 1];
    const close = _firstAfter(ofLength.get(length), r);
    if (close === undefined) continue; // unmatched (or all escaped): text
    const end = runs[close]![0]!;
    if (start > at) out.push({ code: false, text: text.slice(at, start) });
    out.push({ code: true, text: text.slice(start + length, end) });
    at = end + length;
    r = close;
  }
  if (at < text.length) out.push({ code: false, text: text.slice(at) });
  return out;
}

/** The first of the ascending `list` greater than `r`. */
function _firstAfter(
  list: number[] | undefined,
  r: number,
): number | undefined {
  if (list === undefined) return undefined;
  let [lo, hi] = [0, list.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! > r) hi = mid;
    else lo = mid + 1;
  }
  return list[lo];
}
