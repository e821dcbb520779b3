/**
 * What of an entry the search reads: the text people and the model wrote
 * and tools returned, and nothing else (no thinking, no tool-call
 * arguments, no images or blob references, no summaries, which repeat
 * entries the file still holds). The index and the scan both read entries
 * through {@linkcode entryText}, so they search the same text.
 *
 * @module
 */

import type { SessionEntry } from "../format/entries.ts";
import { looksLikeBlobRef } from "../format/blob_ref.ts";

/**
 * The text searched per entry: its first 64 Ki UTF-16 code units (a huge
 * tool output would otherwise dominate the index; a match further in is
 * not found, by the index or by the scan).
 */
export const SEARCH_TEXT_CHARS = 64 * 1024;

/** Who wrote an entry's text. */
export type SearchRole = "user" | "assistant" | "tool" | "custom";

/** The roles, for checking an option. */
export const SEARCH_ROLES: readonly SearchRole[] = [
  "user",
  "assistant",
  "tool",
  "custom",
];

/** An entry's searchable text. */
export interface EntryText {
  /** Who wrote it. */
  role: SearchRole;
  /** The text, cut to {@linkcode SEARCH_TEXT_CHARS}. */
  text: string;
}

/**
 * The searchable text of an entry: a user message's text, an assistant
 * message's text blocks, a tool result's text (`tool`, and so are omp's
 * `bashExecution` and `pythonExecution`: the command, then its output), a
 * `custom_message`'s text (`custom`). Undefined for anything else, or no
 * text.
 *
 * @param entry The entry.
 * @returns Its role and text.
 */
export function entryText(entry: SessionEntry): EntryText | undefined {
  let role: SearchRole;
  let parts: string[];
  if (entry.type === "custom_message") {
    role = "custom";
    parts = _contentText(entry.content);
  } else if (entry.type === "message") {
    const m = entry.message as unknown as Record<string, unknown> | null;
    if (m === null || typeof m !== "object") return undefined;
    switch (m.role) {
      case "user":
        role = "user";
        parts = _contentText(m.content);
        break;
      case "assistant":
        role = "assistant";
        parts = _contentText(m.content);
        break;
      case "toolResult":
        role = "tool";
        parts = _contentText(m.content);
        break;
      case "bashExecution":
        role = "tool";
        parts = _strings(m.command, m.output);
        break;
      case "pythonExecution":
        role = "tool";
        parts = _strings(m.code, m.output);
        break;
      default:
        return undefined;
    }
  } else return undefined;
  const text = cutText(parts.join("\n"));
  return text === "" ? undefined : { role, text };
}

/**
 * `text` cut to {@linkcode SEARCH_TEXT_CHARS}, never inside a surrogate pair.
 *
 * @param text The text.
 * @returns Its start.
 */
export function cutText(text: string): string {
  if (text.length <= SEARCH_TEXT_CHARS) return text;
  let end = SEARCH_TEXT_CHARS;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end);
}

/** The text of a damaged line: its first bytes, decoded leniently and cut. */
export function damagedText(bytes: Uint8Array): string {
  const head = bytes.subarray(0, SEARCH_TEXT_CHARS * 3);
  return cutText(_lenient.decode(head));
}

const _lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/** The text blocks of message content (a string is one). */
function _contentText(content: unknown): string[] {
  if (typeof content === "string") return _strings(content);
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "text") out.push(..._strings(b.text));
  }
  return out;
}

/** The strings among `values` that are not blob references. */
function _strings(...values: unknown[]): string[] {
  return values.filter((v): v is string =>
    typeof v === "string" && v !== "" && !looksLikeBlobRef(v)
  );
}
