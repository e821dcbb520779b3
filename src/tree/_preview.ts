/**
 * An entry in one line of text: the role and the start of a message's
 * text, a tool call's name, a tool result's tool and output, or a short
 * description of any other entry. Works on what {@linkcode readJsonPrefix}
 * reads of a line's first bytes as well as on a whole parsed entry.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { branchMarkerTarget } from "../format/_branch_marker.ts";
import { summaryText } from "../format/messages.ts";
import { isCut } from "../read/_json_prefix.ts";

/** Characters of text a preview keeps at most. */
export const PREVIEW_CHARS = 200;

/** What a tree shows of one entry. */
export interface Described {
  /** A message's role. */
  role: string | undefined;
  /** One line, at most {@linkcode PREVIEW_CHARS} characters of text. */
  preview: string;
  /** An assistant turn holding tool calls and no text. */
  toolOnly: boolean;
}

/** The fields {@linkcode describe} reads, at any depth. */
export const PREVIEW_KEYS: readonly string[] = [
  "type",
  "message",
  "role",
  "content",
  "text",
  "name",
  "toolName",
  "isError",
  "command",
  "stopReason",
  "customType",
  "data",
  "to",
  "model",
  "thinkingLevel",
  "tokensBefore",
  "summary",
  "targetId",
  "label",
  "title",
  "task",
  "purpose",
  "mode",
  "injectedRules",
  "provider",
];

type _Object = Record<string, unknown>;

/**
 * Describe an entry.
 *
 * @param type The entry's type.
 * @param entry Its fields, whole or as far as its first bytes go.
 * @returns Its role, preview and whether it is a tool-only turn.
 */
export function describe(type: string, entry: _Object): Described {
  if (type === "message") return _message(asObject(entry.message));
  return { role: undefined, preview: _other(type, entry), toolOnly: false };
}

function _message(m: _Object): Described {
  const role = typeof m.role === "string" ? m.role : undefined;
  const { text, calls, thinking, cut } = _blocks(m.content);
  if (role === "assistant" && text === "") {
    const names = calls.length > 0 ? `→ ${calls.join(", ")}` : "";
    // Tool-only only when the whole content was read and held no text.
    const toolOnly = names !== "" && !isCut(m.content) && !cut;
    const stop = m.stopReason === "aborted" || m.stopReason === "error"
      ? `(${m.stopReason})`
      : "";
    const preview = names || (thinking ? "(thinking)" : stop);
    return { role, preview, toolOnly };
  }
  let preview = text;
  if (role === "toolResult") {
    const tool = typeof m.toolName === "string" ? m.toolName : "tool";
    preview = _cut(`${tool}${m.isError === true ? " (error)" : ""}: ${text}`);
  } else if (role === "bashExecution") preview = _text(m.command);
  else if (role === "custom") preview = _cut(`${_text(m.customType)}: ${text}`);
  return { role, preview, toolOnly: false };
}

/** The text blocks' text (up to the preview's length), tool calls' names. */
function _blocks(
  content: unknown,
): { text: string; calls: string[]; thinking: boolean; cut: boolean } {
  if (typeof content === "string") {
    return { text: _text(content), calls: [], thinking: false, cut: false };
  }
  const calls: string[] = [];
  let text = "";
  let thinking = false;
  let cut = false;
  for (const block of Array.isArray(content) ? content : []) {
    const b = asObject(block);
    if (b.type === "text" && typeof b.text === "string") {
      const t = _text(b.text);
      if (t !== "") text = text === "" ? t : `${text} ${t}`;
      if (isCut(b)) cut = true;
    } else if (b.type === "toolCall") {
      calls.push(typeof b.name === "string" ? b.name : "?");
    } else if (b.type === "thinking") thinking = true;
    if (text.length >= PREVIEW_CHARS) break;
  }
  return { text: _cut(text), calls, thinking, cut };
}

function _other(type: string, e: _Object): string {
  switch (type) {
    case "model_change":
      return `model ${_text(e.model)}${
        typeof e.role === "string" ? ` (${e.role})` : ""
      }`;
    case "thinking_level_change":
      return `thinking ${_text(e.thinkingLevel ?? "off")}`;
    case "service_tier_change":
      return "service tier";
    case "compaction":
      return typeof e.tokensBefore === "number"
        ? `compaction (${Math.round(e.tokensBefore / 1000)}k tokens before)`
        : "compaction";
    case "branch_summary":
      return _cut(`branch summary: ${_text(summaryText(e.summary))}`);
    case "reset_boundary":
      return "reset";
    case "custom": {
      const to = branchMarkerTarget(e as unknown as SessionEntry);
      return to !== undefined
        ? `branch → ${to}`
        : `custom ${_text(e.customType)}`;
    }
    case "custom_message":
      return _cut(`${_text(e.customType)}: ${_blocks(e.content).text}`);
    case "label":
      return typeof e.label === "string"
        ? _cut(`label ${_text(e.targetId)}: ${_text(e.label)}`)
        : `label ${_text(e.targetId)} cleared`;
    case "title_change":
      return _cut(`title: ${_text(e.title)}`);
    case "session_init":
      return _cut(`session init: ${_text(e.task)}`);
    case "model_usage":
      return `model usage: ${_text(e.purpose)} ${_text(e.model)}`;
    case "mode_change":
      return `mode ${_text(e.mode)}`;
    case "ttsr_injection":
      return Array.isArray(e.injectedRules)
        ? _cut(`rules: ${e.injectedRules.map(_text).join(", ")}`)
        : "rules";
    case "credential_pin":
      return `credential pin: ${_text(e.provider)}`;
    default:
      return `[${type}]`;
  }
}

/**
 * A JSON object's fields, or none for anything else.
 *
 * @param value A parsed (or prefix-read) JSON value.
 * @returns The object, or `{}`.
 */
export function asObject(value: unknown): _Object {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as _Object
    : {};
}

/** Text on one line: runs of white space as one space, ends trimmed, cut. */
function _text(value: unknown): string {
  if (typeof value !== "string") {
    return typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : "";
  }
  const s = value.slice(0, _SOURCE_CHARS);
  return _cut(_SPACES.test(s) ? s.replace(/\s+/g, " ").trim() : s.trim());
}

/** Characters of a text looked at: a preview's, and some for the spaces it collapses. */
const _SOURCE_CHARS = PREVIEW_CHARS + 56;

/** White space other than single spaces: what {@linkcode _text} collapses. */
const _SPACES = /[^\S ]| {2}/;

function _cut(text: string): string {
  if (text.length <= PREVIEW_CHARS) return text;
  let end = PREVIEW_CHARS - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // keep a surrogate pair whole
  return `${text.slice(0, end)}…`;
}
