/**
 * The token estimate of a rebuilt context.
 *
 * @module
 */

import type { AssistantMessage, ContentBlock } from "../format/messages.ts";
import type { ContextMessage } from "./messages.ts";

/** Characters per token in the estimate of {@linkcode estimateTokens}. */
const _CHARS_PER_TOKEN = 4;

/**
 * Estimate the tokens of a context: the last assistant usage plus the text
 * after it at ~4 characters a token (all text when no usage was reported).
 *
 * @example Usage plus the text after it
 * ```ts
 * import { estimateTokens } from "./tokens.ts";
 * import { equal } from "node:assert/strict";
 * const tokens = estimateTokens([
 *   { role: "assistant", content: [{ type: "text", text: "hello" }],
 *     usage: { input: 100, output: 20, totalTokens: 120 } },
 *   { role: "user", content: "12345678" },
 * ]);
 * equal(tokens, 122);
 * ```
 *
 * @param messages A rebuilt context.
 * @returns The estimate.
 */
export function estimateTokens(messages: readonly ContextMessage[]): number {
  let base = 0;
  let from = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const u = (m as AssistantMessage).usage;
    if (u === undefined || u === null || typeof u !== "object") continue;
    base = typeof u.totalTokens === "number" && u.totalTokens > 0
      ? u.totalTokens
      : (u.input ?? 0) + (u.output ?? 0) + (u.cacheRead ?? 0) +
        (u.cacheWrite ?? 0);
    from = i + 1;
    break;
  }
  let chars = 0;
  for (let i = from; i < messages.length; i++) {
    chars += _textLength(messages[i]!);
  }
  return base + Math.ceil(chars / _CHARS_PER_TOKEN);
}

function _textLength(m: ContextMessage): number {
  if ("summary" in m && typeof m.summary === "string") return m.summary.length;
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content as ContentBlock[]) {
    if (b.type === "text" && typeof b.text === "string") n += b.text.length;
    else if (b.type === "thinking" && typeof b.thinking === "string") {
      n += b.thinking.length;
    } else if (b.type === "toolCall") {
      n += JSON.stringify(b.arguments ?? null).length;
    }
  }
  return n;
}
