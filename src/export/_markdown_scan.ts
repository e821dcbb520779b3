/**
 * The two Markdown constructs whose insides are verbatim, found the way
 * CommonMark finds them: fenced code blocks (by line) and code spans
 * (inside a line or paragraph). Both exports use them: the HTML export to
 * show code as code, the Markdown export to leave code alone while it
 * escapes markup around it.
 *
 * @module
 */

/** A stretch of text: prose, or a fenced code block. */
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

const _OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const _CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/**
 * Split text into prose and fenced code blocks, line by line.
 *
 * @example A paragraph, then code
 * ```ts
 * import { splitFences } from "./_markdown_scan.ts";
 * const fence = "`".repeat(3);
 * const [prose, code] = splitFences(`Run:\n${fence}sh\nls\n${fence}`);
 * console.assert(prose?.code === false && prose.text === "Run:");
 * console.assert(code?.code === true && code.info === "sh" && code.body === "ls");
 * ```
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
      if (
        close !== undefined && close[0] === fence[0] &&
        close.length >= fence.length
      ) {
        closed = true;
        break;
      }
      body.push(lines[i]!);
    }
    out.push({
      code: true,
      fence,
      info: info.trim(),
      body: body.join("\n"),
      closed,
    });
  }
  if (prose.length > 0) out.push({ code: false, text: prose.join("\n") });
  return out;
}

/** A stretch of a line: plain, or the inside of a code span. */
export interface InlinePiece {
  /** Whether `text` is a code span's content. */
  code: boolean;
  /** The text (for a span, without its backticks). */
  text: string;
}

/**
 * Split prose into plain text and code spans: a run of backticks opens a
 * span that the next run of the same length closes; a run without one is
 * plain text. Linear in the text's length, however the runs fall.
 *
 * @example One span, one lone backtick
 * ```ts
 * import { codeSpans } from "./_markdown_scan.ts";
 * const pieces = codeSpans("use `a<b` then ` alone");
 * console.assert(pieces.map((p) => `${p.code}:${p.text}`).join("|") ===
 *   "false:use |true:a<b|false: then ` alone");
 * ```
 *
 * @param text Prose.
 * @returns The pieces, in order; plain pieces are never empty.
 */
export function codeSpans(text: string): InlinePiece[] {
  const runs = Array.from(text.matchAll(/`+/g), (m) => [m.index, m[0].length]);
  // For each run, the next run of the same length (or -1).
  const next = new Int32Array(runs.length).fill(-1);
  const lastOfLength = new Map<number, number>();
  for (let r = runs.length - 1; r >= 0; r--) {
    const length = runs[r]![1]!;
    next[r] = lastOfLength.get(length) ?? -1;
    lastOfLength.set(length, r);
  }
  const out: InlinePiece[] = [];
  let at = 0;
  for (let r = 0; r < runs.length; r++) {
    const [start, length] = runs[r] as [number, number];
    if (start < at) continue; // inside a span already taken
    const close = next[r]!;
    if (close < 0) continue;
    const end = runs[close]![0]!;
    if (start > at) out.push({ code: false, text: text.slice(at, start) });
    out.push({ code: true, text: text.slice(start + length, end) });
    at = end + length;
    r = close;
  }
  if (at < text.length) out.push({ code: false, text: text.slice(at) });
  return out;
}
