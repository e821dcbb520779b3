/**
 * What an export's document is made of, whatever its format: the pieces a
 * format writes ({@linkcode Format}) and the one walk through a message
 * that calls them ({@linkcode renderMessage}), so both formats show the
 * same things in the same order; and the job the two modes are given.
 *
 * @module
 */

import type { ContextMessage } from "../context/messages.ts";
import type { ContentBlock } from "../format/messages.ts";
import type { Assets, ImageOut } from "./_assets.ts";
import type { PageFormat, Pages, Wrapper, Written } from "./_files.ts";
import { type ExportMeta, messageTime } from "./_meta.ts";
import type { LoadIssueKind } from "../format/issues.ts";

/** One export, as its two modes (the active branch, the whole tree) see it. */
export interface ExportJob {
  /** The session file. */
  path: string;
  /** Where `blobs/` lives, when known. */
  dataDir: string | undefined;
  /** The output's folder (a tree's scratch file goes there too). */
  folder: string;
  format: Format;
  assets: Assets;
  /** The output, its header saying `meta`. */
  open(meta: ExportMeta): Pages;
  progress(done: number, total: number, unit: "messages" | "bytes"): void;
}

/**
 * What a mode did: the files written, and the counts `ExportResult` gives,
 * in its order (they are spread into it: `--json` prints them so).
 */
export interface JobResult {
  written: Written;
  messages: number;
  entries: number;
  branches: number;
  issues: { kind: LoadIssueKind; count: number }[];
}

/** A message's heading: who speaks, about what, how it ended, when. */
export interface Heading {
  /** The message's class: its role, or `other`. */
  role: string;
  /** Who speaks, in words. */
  label: string;
  /** The model, or the tool. */
  detail?: string | undefined;
  /** How it ended (`aborted`, `error`), when not well. */
  badge?: string | undefined;
  /** A custom message hidden from the agent's UI. */
  hidden?: boolean;
  /** Its time (ISO-8601), when valid. */
  time: string | undefined;
}

/**
 * The pieces of one format. Every string from the session reaches them
 * unescaped: each piece escapes what it writes.
 */
export interface Format extends PageFormat {
  /** The heading of a turn (a turn starts at a user message), from 1. */
  turn(n: number): string;
  /** A line of our own about the session (a model change, a reset). */
  note(text: string): string;
  /**
   * The block around a branch of the tree (`branch`), or around entries
   * whose parent is missing (`detached`), saying `what` it is.
   */
  branch(
    kind: "branch" | "detached",
    what: string,
    time: string | undefined,
  ): Wrapper;
  message(h: Heading, body: string): string;
  /** A tool result: its body folded away, its images shown after. */
  toolResult(h: Heading, body: string, images: string): string;
  /** The pieces of a body, one after the other. */
  join(pieces: string[]): string;
  /** Prose (the model's Markdown, or plain text). */
  text(text: string): string;
  /** Verbatim text: a tool's output (`text`), arguments or an entry (`json`). */
  code(text: string, info: "text" | "json"): string;
  /** The model's thinking, folded away. */
  thinking(text: string): string;
  /** A tool call, folded away: its name and its arguments as JSON. */
  toolCall(name: string, json: string): string;
  /** An image, as {@linkcode Assets.image} shows it. */
  image(out: ImageOut): string;
  /** Thinking the provider redacted. */
  redacted(): string;
  /** A block of a type not shown. */
  unknown(type: string): string;
  /** The error an assistant message ended with. */
  error(text: string): string;
}

/**
 * A message in a format: its heading, its content block by block, the
 * images of a tool result written or embedded on the way.
 *
 * @param m The message.
 * @param f The format.
 * @param assets Where its images go.
 * @returns The fragment.
 */
export async function renderMessage(
  m: ContextMessage,
  f: Format,
  assets: Assets,
): Promise<string> {
  const r = m as Record<string, unknown>;
  const h = _heading(m);
  const blocks = (content: unknown, verbatim = false) =>
    _blocks(content, f, assets, verbatim);
  switch (h.role) {
    case "toolResult": {
      const list = Array.isArray(r.content) ? r.content : [];
      const rest = Array.isArray(r.content)
        ? list.filter((b) => !_isImage(b))
        : r.content;
      const body = await blocks(rest, true);
      return f.toolResult(h, body, await blocks(list.filter(_isImage)));
    }
    case "assistant": {
      const body = [await blocks(r.content)];
      if (typeof r.errorMessage === "string" && r.errorMessage !== "") {
        body.push(f.error(r.errorMessage));
      }
      return f.message(h, f.join(body));
    }
    case "compactionSummary":
    case "branchSummary":
      return f.message(h, f.text(String(r.summary)));
    case "other":
      if (r.content === undefined) {
        return f.message(h, f.code(JSON.stringify(m, null, 2), "json"));
      }
  }
  return f.message(h, await blocks(r.content));
}

/** The labels of the roles shown as themselves (others are `other`). */
const _LABELS = new Map([
  ["user", "User"],
  ["assistant", "Assistant"],
  ["toolResult", "Tool result"],
  ["compactionSummary", "Summary of earlier history"],
  ["branchSummary", "Summary of an abandoned branch"],
]);

function _heading(m: ContextMessage): Heading {
  const r = m as Record<string, unknown>;
  const time = messageTime(m);
  if (m.role === "custom") {
    const label = String(r.customType);
    return { role: m.role, label, hidden: r.display !== true, time };
  }
  const label = _LABELS.get(m.role);
  if (label === undefined) {
    return { role: "other", label: String(m.role), time };
  }
  const h: Heading = { role: m.role, label, time };
  if (m.role === "assistant") {
    if (typeof r.model === "string") {
      h.detail = typeof r.provider === "string"
        ? `${r.provider}/${r.model}`
        : r.model;
    }
    const stop = r.stopReason;
    if (stop === "aborted" || stop === "error") h.badge = stop;
  }
  if (m.role === "toolResult") {
    h.detail = typeof r.toolName === "string" ? r.toolName : "tool";
    if (r.isError === true) h.badge = "error";
  }
  return h;
}

function _isImage(b: unknown): boolean {
  return b !== null && typeof b === "object" &&
    (b as { type?: unknown }).type === "image";
}

/** Content (a string or blocks); a tool's text shown verbatim. */
async function _blocks(
  content: unknown,
  f: Format,
  assets: Assets,
  verbatim: boolean,
): Promise<string> {
  if (typeof content === "string") {
    return verbatim ? f.code(content, "text") : f.text(content);
  }
  if (!Array.isArray(content)) return "";
  const pieces: string[] = [];
  for (const b of content as ContentBlock[]) {
    pieces.push(await _block(b, f, assets, verbatim));
  }
  return f.join(pieces);
}

async function _block(
  b: ContentBlock,
  f: Format,
  assets: Assets,
  verbatim: boolean,
): Promise<string> {
  if (b === null || typeof b !== "object") return "";
  switch (b.type) {
    case "text": {
      const text = String(b.text);
      if (!verbatim) return f.text(text);
      return f.code(await assets.text(text) ?? text, "text");
    }
    case "thinking":
      return f.thinking(String(b.thinking));
    case "toolCall":
      return f.toolCall(
        String(b.name),
        JSON.stringify(b.arguments ?? null, null, 2),
      );
    case "image":
      return f.image(await assets.image(b.data, b.mimeType));
    case "redactedThinking":
      return f.redacted();
    default:
      return f.unknown(String(b.type));
  }
}
