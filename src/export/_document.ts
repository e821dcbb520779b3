/**
 * What an export's document is made of, whatever its format: the pieces a
 * format writes ({@linkcode Format}) and the one walk through a message
 * that calls them ({@linkcode renderMessage}), so both formats show the
 * same things in the same order; and the job the two modes are given.
 *
 * @module
 */

import type { ContextMessage } from "../context/messages.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { LoadIssueKind } from "../format/issues.ts";
import type { ContentBlock } from "../format/messages.ts";
import { requestUsage } from "../format/usage.ts";
import type { Assets, ImageOut } from "./_assets.ts";
import type { PageFormat, Pages, Wrapper, Written } from "./_files.ts";
import { type ExportMeta, messageTime, usageText } from "./_meta.ts";
import { outputText, type ToolView, toolView } from "./_tools.ts";

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
  /** Its entry's id, for an anchor (`entry-<id>`), when known. */
  anchor?: string | undefined;
  /** The label the session gave its entry. */
  tag?: string | undefined;
  /** An assistant's call: its tokens and cost, in words. */
  usage?: string | undefined;
}

/** A tool's result, as both formats show it. */
export interface ResultView {
  heading: Heading;
  /** Its text blocks, joined, escape sequences removed (shown verbatim). */
  text: string;
  /** The language its text is in (a `read` of a known file), or "". */
  language: string;
  /** Its images and other blocks, rendered. */
  extra: string;
  /** Whether its call failed. */
  error: boolean;
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
  /** A tool call by kind, its result under it when paired. */
  tool(call: ToolView, result: ResultView | undefined): string;
  /** A tool result shown alone (its call not beside it). */
  toolResult(result: ResultView): string;
  /** The pieces of a body, one after the other. */
  join(pieces: string[]): string;
  /** Prose (the model's Markdown, or plain text). */
  text(text: string): string;
  /** Verbatim text: a tool's output (`text`), arguments or an entry (`json`). */
  code(text: string, info: "text" | "json"): string;
  /** The model's thinking, folded away. */
  thinking(text: string): string;
  /** An image, as {@linkcode Assets.image} shows it. */
  image(out: ImageOut): string;
  /** Thinking the provider redacted. */
  redacted(): string;
  /** A block of a type not shown. */
  unknown(type: string): string;
  /** The error an assistant message ended with. */
  error(text: string): string;
}

/** A message, and what the export knows of where it comes from. */
export interface Shown {
  m: ContextMessage;
  /** Its entry, when known (its id is the anchor, its usage shown). */
  entry?: SessionEntry | undefined;
}

/** Where an export looks up what a message's heading shows. */
export interface RenderContext {
  /** Labels in effect: entry id → label. */
  labels: Readonly<Record<string, string>>;
}

/**
 * A message in a format: its heading, its content block by block, the
 * images of a tool result written or embedded on the way; an assistant's
 * tool calls by kind, each with its result under it when it is among
 * `results` (by `toolCallId`), the results left shown after it.
 *
 * @param shown The message (and its entry).
 * @param f The format.
 * @param assets Where its images go.
 * @param ctx Labels.
 * @param results The tool results that follow it.
 * @returns The fragment.
 */
export async function renderMessage(
  shown: Shown,
  f: Format,
  assets: Assets,
  ctx: RenderContext = { labels: {} },
  results: readonly Shown[] = [],
): Promise<string> {
  const { m } = shown;
  const r = m as Record<string, unknown>;
  const h = _heading(shown, ctx);
  switch (h.role) {
    case "toolResult":
      return f.toolResult(await _result(shown, f, assets, ctx, undefined));
    case "assistant": {
      const pending = new Map<string, Shown>();
      for (const s of results) {
        pending.set(String((s.m as { toolCallId?: unknown }).toolCallId), s);
      }
      const pieces: string[] = [];
      for (const b of Array.isArray(r.content) ? r.content : []) {
        if (b?.type !== "toolCall") {
          pieces.push(await _block(b, f, assets, false));
          continue;
        }
        const view = toolView(String(b.name), b.arguments);
        const paired = pending.get(String(b.id));
        pending.delete(String(b.id));
        pieces.push(f.tool(
          view,
          paired && await _result(paired, f, assets, ctx, view),
        ));
      }
      if (typeof r.errorMessage === "string" && r.errorMessage !== "") {
        pieces.push(f.error(r.errorMessage));
      }
      const out = [f.message(h, f.join(pieces))];
      for (const s of pending.values()) {
        out.push(f.toolResult(await _result(s, f, assets, ctx, undefined)));
      }
      return out.join("");
    }
    case "compactionSummary":
    case "branchSummary":
      return f.message(h, f.text(String(r.summary)));
    case "other":
      if (r.content === undefined) {
        return f.message(h, f.code(JSON.stringify(m, null, 2), "json"));
      }
  }
  return f.message(h, await _blocks(r.content, f, assets, false));
}

/**
 * The note an entry that is no message stands for (a model or thinking
 * level change, a reset, a rename), or undefined for one not shown.
 *
 * @example A model change
 * ```ts
 * import { entryNote } from "./_document.ts";
 * import { equal } from "node:assert/strict";
 * const t = "2026-01-01T00:00:00.000Z";
 * equal(
 *   entryNote({ type: "model_change", id: "a", parentId: null, timestamp: t, model: "p/m" }),
 *   "Model: p/m",
 * );
 * ```
 *
 * @param e The entry.
 * @returns What the note says, unescaped.
 */
export function entryNote(e: SessionEntry): string | undefined {
  switch (e.type) {
    case "model_change": {
      const role = typeof e.role === "string" ? ` (${e.role})` : "";
      return `Model: ${String(e.model)}${role}`;
    }
    case "thinking_level_change":
      return `Thinking level: ${String(e.thinkingLevel)}`;
    case "reset_boundary":
      return "Context reset: nothing before this point reaches the model.";
    case "title_change":
      return `Renamed: ${String(e.title)}`;
    default:
      return undefined;
  }
}

/** A tool result's view; `call` tells the language of a `read`. */
async function _result(
  shown: Shown,
  f: Format,
  assets: Assets,
  ctx: RenderContext,
  call: ToolView | undefined,
): Promise<ResultView> {
  const r = shown.m as Record<string, unknown>;
  const texts: string[] = [];
  const extra: string[] = [];
  if (typeof r.content === "string") texts.push(r.content);
  for (const b of Array.isArray(r.content) ? r.content : []) {
    if (b?.type === "text") {
      const text = String(b.text);
      texts.push(await assets.text(text) ?? text);
    } else {
      const piece = await _block(b, f, assets, true);
      if (piece !== "") extra.push(piece);
    }
  }
  return {
    heading: _heading(shown, ctx),
    text: outputText(texts.join("\n")),
    language: call?.kind === "read" ? call.language : "",
    extra: f.join(extra),
    error: r.isError === true,
  };
}

/** The labels of the roles shown as themselves (others are `other`). */
const _LABELS = new Map([
  ["user", "User"],
  ["assistant", "Assistant"],
  ["toolResult", "Tool result"],
  ["compactionSummary", "Summary of earlier history"],
  ["branchSummary", "Summary of an abandoned branch"],
]);

function _heading({ m, entry }: Shown, ctx: RenderContext): Heading {
  const h = _who(m);
  if (entry !== undefined && typeof entry.id === "string" && entry.id !== "") {
    h.anchor = entry.id;
    const tag = Object.hasOwn(ctx.labels, entry.id)
      ? ctx.labels[entry.id]
      : undefined;
    if (tag !== undefined) h.tag = tag;
    const usage = m.role === "assistant" ? requestUsage(entry) : undefined;
    if (usage !== undefined) h.usage = usageText(usage);
  }
  return h;
}

function _who(m: ContextMessage): Heading {
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
    case "toolCall": // outside an assistant's message: shown by kind, alone
      return f.tool(toolView(String(b.name), b.arguments), undefined);
    case "image":
      return f.image(await assets.image(b.data, b.mimeType));
    case "redactedThinking":
      return f.redacted();
    default:
      return f.unknown(String(b.type));
  }
}
