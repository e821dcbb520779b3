/**
 * Which tool results go under an assistant's calls: both export modes
 * gather them with {@linkcode CallGroup}, so a result is nested under its
 * call in the tree as on the active branch.
 *
 * @module
 */

import type { ContextMessage } from "../context/messages.ts";
import type { Shown } from "./_document.ts";

/**
 * An assistant's message and the tool results that come right after it
 * and go under its calls: each result continues the chain (its entry's
 * parent is the message's or the result's before it) and answers one of
 * its calls not yet answered (by `toolCallId`). The first message that
 * does not ends the group, and is shown alone: a result whose call is not
 * there, or a second answer to a call. On a branch of the tree, a branch
 * from a result inside the group is shown after the whole group.
 *
 * @example A call and its result, then one that answers no call
 * ```ts
 * import { CallGroup } from "./_call_group.ts";
 * import { equal } from "node:assert/strict";
 * const t = "2026-01-01T00:00:00.000Z";
 * const entry = (id: string, parentId: string | null) =>
 *   ({ type: "message", id, parentId, timestamp: t });
 * const group = new CallGroup({
 *   m: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "read", arguments: {} }] },
 *   entry: entry("a", null),
 * } as never);
 * const result = (id: string, call: string) => ({
 *   m: { role: "toolResult", toolCallId: call, toolName: "read", content: [], isError: false, timestamp: 0 },
 *   entry: entry(id, "a"),
 * }) as never;
 * equal(group.take(result("b", "c1")), true);
 * equal(group.take(result("c", "c1")), false); // answered already
 * equal(group.results.length, 1);
 * ```
 */
export class CallGroup {
  /** The assistant's message. */
  readonly head: Shown;
  /** Where its rendering goes (a tree's span), for the caller. */
  readonly index: number;
  /** The results taken, in order. */
  readonly results: Shown[] = [];
  readonly #open: Set<string>;
  #last: string | undefined;

  /**
   * @param head The assistant's message.
   * @param index Where its rendering goes (a tree's span), for the caller.
   */
  constructor(head: Shown, index = 0) {
    this.head = head;
    this.index = index;
    this.#open = CallGroup.calls(head.m);
    this.#last = head.entry?.id;
  }

  /**
   * The ids of a message's tool calls.
   *
   * @param m A message (an assistant's has calls).
   * @returns The ids, as strings.
   */
  static calls(m: ContextMessage): Set<string> {
    const ids = new Set<string>();
    if (m.role !== "assistant") return ids;
    const content = (m as { content?: unknown }).content;
    for (const b of Array.isArray(content) ? content : []) {
      if (b?.type === "toolCall") ids.add(String(b.id));
    }
    return ids;
  }

  /**
   * Take a result into the group, if it belongs there.
   *
   * @param shown The message after the group's last.
   * @returns Whether it was taken.
   */
  take(shown: Shown): boolean {
    const { m, entry } = shown;
    if (
      m.role !== "toolResult" || this.#last === undefined ||
      entry?.parentId !== this.#last ||
      !this.#open.delete(String((m as { toolCallId?: unknown }).toolCallId))
    ) return false;
    this.results.push(shown);
    this.#last = entry.id;
    return true;
  }
}
