/**
 * The hygiene rules applied to a rebuilt context, as omp applies them.
 *
 * @module
 */

import type { AssistantMessage, ContentBlock } from "../format/messages.ts";
import type { ContextMessage, CustomContextMessage } from "./messages.ts";

/**
 * The hygiene rules: tool calls without a result are removed (the turn also
 * loses redacted thinking and thinking signatures; an emptied turn is
 * dropped), then assistant turns that were aborted or failed are dropped with
 * their tool results.
 */
export function cleanMessages(
  input: readonly (ContextMessage | undefined)[],
): ContextMessage[] {
  const messages = input.filter((m): m is ContextMessage => m !== undefined);
  const results = new Set<string>();
  for (const m of messages) {
    if (m.role === "toolResult") results.add(String(m.toolCallId));
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const content = (m as AssistantMessage).content;
    const dangling = (b: ContentBlock): boolean =>
      b.type === "toolCall" && !results.has(String(b.id));
    if (!content.some(dangling)) continue;
    const kept = content
      .filter((b) => !dangling(b) && b.type !== "redactedThinking")
      .map((b) => {
        if (b.type !== "thinking" || !b.thinkingSignature) return b;
        const { thinkingSignature: _, ...rest } = b;
        return rest as ContentBlock;
      });
    if (kept.length === 0) messages.splice(i, 1);
    else messages[i] = { ...m, content: kept } as AssistantMessage;
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const a = m as AssistantMessage;
    if (a.stopReason !== "aborted" && a.stopReason !== "error") continue;
    const next = messages[i + 1];
    if (
      next?.role === "custom" &&
      (next as CustomContextMessage).customType === "interrupted-thinking"
    ) continue;
    const calls = new Set<string>();
    for (const b of a.content) {
      if (b.type === "toolCall") calls.add(String(b.id));
    }
    messages.splice(i, 1);
    for (let j = messages.length - 1; j >= i && calls.size > 0; j--) {
      const r = messages[j]!;
      if (r.role === "toolResult" && calls.has(String(r.toolCallId))) {
        messages.splice(j, 1);
      }
    }
  }
  return messages;
}
