import { deepStrictEqual, equal, ok } from "node:assert/strict";
import type { SessionEntry } from "../../mod.ts";
import { buildSessionContext } from "../../src/context/context.ts";
import { pathTo, resolveLeaf } from "../../src/context/tree.ts";
import { assistant, T0, toolResult, user } from "../_session_files.ts";

function build(rows: Record<string, unknown>[], leaf?: string | null) {
  const entries = rows as unknown as SessionEntry[];
  const byId = new Map(entries.map((e) => [e.id, e]));
  return buildSessionContext(
    entries,
    byId,
    leaf === undefined ? resolveLeaf(entries, byId) : leaf,
  );
}
const roles = (
  rows: Record<string, unknown>[],
  leaf?: string | null,
): string[] => build(rows, leaf).messages.map((m) => m.role);
const ids = (rows: Record<string, unknown>[], leaf?: string | null): string[] =>
  build(rows, leaf).activePath.map((e) => e.id);

const env = (
  type: string,
  id: string,
  parentId: string | null,
  rest: Record<string, unknown> = {},
) => ({
  type,
  id,
  parentId,
  timestamp: T0,
  ...rest,
});

Deno.test("pathTo() stops at a cycle and at a missing parent", async (t) => {
  await t.step("a two-entry cycle", () => {
    const rows = [user("a", "b", "x"), user("b", "a", "y")];
    const ctx = build(rows, "b");
    equal(ctx.pathEnd, "cycle");
    deepStrictEqual(ctx.activePath.map((e) => e.id), ["a", "b"]);
  });
  await t.step("an entry that is its own parent", () => {
    const rows = [user("a", "a", "x")];
    equal(build(rows).pathEnd, "cycle");
    deepStrictEqual(ids(rows), ["a"]);
  });
  await t.step("a missing parent ends the path", () => {
    const rows = [
      user("a", null, "x"),
      user("c", "deadbeef", "orphan"),
      assistant("d", "c", "reply"),
    ];
    const ctx = build(rows);
    equal(ctx.pathEnd, "missing-parent");
    deepStrictEqual(ctx.activePath.map((e) => e.id), ["c", "d"]);
  });
  await t.step("an empty session", () => {
    const ctx = build([]);
    equal(ctx.leafId, null);
    deepStrictEqual(ctx.messages, []);
    equal(ctx.thinkingLevel, "off");
    equal(ctx.model, null);
  });
  await t.step("a long chain is walked without recursion", () => {
    const map = new Map<string, SessionEntry>();
    for (let i = 0; i < 200_000; i++) {
      map.set(
        `e${i}`,
        env(
          "label",
          `e${i}`,
          i === 0 ? null : `e${i - 1}`,
        ) as unknown as SessionEntry,
      );
    }
    equal(pathTo("e199999", map).entries.length, 200_000);
  });
});

Deno.test("resolveLeaf() follows a branch marker at the end of the file", () => {
  const rows = [
    user("a", null, "one"),
    assistant("b", "a", "two"),
    user("c", "b", "three"),
    env("custom", "m", "a", { customType: "branch", data: { to: "a" } }),
  ];
  const ctx = build(rows);
  equal(ctx.leafId, "a");
  deepStrictEqual(ctx.messages.map((m) => m.role), ["user"]);
  // A marker whose target is unknown leaves the marker as the leaf.
  const bad = [
    ...rows.slice(0, 3),
    env("custom", "m", "c", { customType: "branch", data: { to: "zz" } }),
  ];
  equal(build(bad).leafId, "m");
});

Deno.test("buildSessionContext() reset and compaction rules", async (t) => {
  const base = [user("a", null, "one"), assistant("b", "a", "two")];
  await t.step("a reset keeps only what follows it", () => {
    const rows = [
      ...base,
      env("reset_boundary", "r", "b"),
      user("c", "r", "three"),
    ];
    deepStrictEqual(roles(rows), ["user"]);
  });
  await t.step(
    "a compaction emits its summary, the kept window, then what follows",
    () => {
      const rows = [
        ...base,
        user("c", "b", "three"),
        env("compaction", "k", "c", {
          summary: "S",
          firstKeptEntryId: "b",
          tokensBefore: 5,
        }),
        user("d", "k", "four"),
      ];
      deepStrictEqual(roles(rows), [
        "compactionSummary",
        "assistant",
        "user",
        "user",
      ]);
    },
  );
  await t.step("firstKeptEntryId null: the summary alone", () => {
    const rows = [
      ...base,
      env("compaction", "k", "b", {
        summary: "S",
        firstKeptEntryId: null,
        tokensBefore: 5,
      }),
      user("d", "k", "x"),
    ];
    deepStrictEqual(roles(rows), ["compactionSummary", "user"]);
  });
  await t.step(
    "firstKeptEntryId off the path: everything after the compaction",
    () => {
      const rows = [
        ...base,
        env("compaction", "k", "b", {
          summary: "S",
          firstKeptEntryId: "nowhere",
          tokensBefore: 5,
        }),
        user("d", "k", "x"),
      ];
      deepStrictEqual(roles(rows), ["compactionSummary", "user"]);
    },
  );
  await t.step("the last compaction on the path governs", () => {
    const rows = [
      ...base,
      env("compaction", "k1", "b", {
        summary: "S1",
        firstKeptEntryId: "a",
        tokensBefore: 5,
      }),
      user("c", "k1", "three"),
      env("compaction", "k2", "c", {
        summary: "S2",
        firstKeptEntryId: "c",
        tokensBefore: 6,
      }),
    ];
    const ctx = build(rows);
    deepStrictEqual(ctx.messages.map((m) => m.role), [
      "compactionSummary",
      "user",
    ]);
    equal((ctx.messages[0] as { summary: string }).summary, "S2");
  });
  await t.step("a reset after the compaction wins", () => {
    const rows = [
      ...base,
      env("compaction", "k", "b", {
        summary: "S",
        firstKeptEntryId: "a",
        tokensBefore: 5,
      }),
      env("reset_boundary", "r", "k"),
      user("c", "r", "three"),
    ];
    deepStrictEqual(roles(rows), ["user"]);
  });
  await t.step("branch summaries, custom messages and what never emits", () => {
    const rows = [
      ...base,
      env("branch_summary", "s", "b", { fromId: "a", summary: "abandoned" }),
      env("branch_summary", "s2", "s", { fromId: "a", summary: "" }),
      env("custom_message", "cm", "s2", {
        customType: "note",
        content: "hi",
        display: true,
      }),
      env("custom_message", "cm2", "cm", {
        customType: "prewalk-plan",
        content: "hidden",
        display: false,
      }),
      env("custom", "cu", "cm2", { customType: "todo", data: {} }),
      env("label", "l", "cu", { targetId: "a", label: "start" }),
      env("title_change", "tc", "l", { title: "T", source: "auto" }),
      env("xdev_probe", "p", "tc"),
    ];
    deepStrictEqual(roles(rows), [
      "user",
      "assistant",
      "branchSummary",
      "custom",
    ]);
  });
});

Deno.test("buildSessionContext() hygiene rules", async (t) => {
  const call = (id: string) => ({
    type: "toolCall",
    id,
    name: "read",
    arguments: { path: "x" },
  });
  await t.step("an aborted turn is dropped with its tool results", () => {
    const rows = [
      user("a", null, "go"),
      assistant("b", "a", [call("t1")], { stopReason: "aborted" }),
      toolResult("c", "b", "t1", [{ type: "text", text: "aborted" }]),
      user("d", "c", "again"),
    ];
    deepStrictEqual(roles(rows), ["user", "user"]);
  });
  await t.step(
    "an error turn with content is dropped; an empty one is skipped",
    () => {
      const rows = [
        user("a", null, "go"),
        assistant("b", "a", "partial", { stopReason: "error" }),
        assistant("c", "b", [], { stopReason: "error" }),
        user("d", "c", "again"),
      ];
      deepStrictEqual(roles(rows), ["user", "user"]);
    },
  );
  await t.step(
    "a tool call without a result is removed, and its turn's signatures cleared",
    () => {
      const rows = [
        user("a", null, "go"),
        assistant("b", "a", [
          { type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
          { type: "redactedThinking", data: "x" },
          { type: "text", text: "calling" },
          call("t1"),
          call("t2"),
        ], { stopReason: "toolUse" }),
        toolResult("c", "b", "t1", [{ type: "text", text: "ok" }]),
      ];
      const ctx = build(rows);
      const turn = ctx.messages[1] as { content: Record<string, unknown>[] };
      deepStrictEqual(turn.content.map((b) => b.type), [
        "thinking",
        "text",
        "toolCall",
      ]);
      equal(turn.content[0]!.thinkingSignature, undefined);
      equal(turn.content[2]!.id, "t1");
      // The loaded entry itself is untouched.
      const original = (rows[1]!.message as { content: unknown[] }).content;
      equal(original.length, 5);
    },
  );
  await t.step("a turn left empty is dropped", () => {
    const rows = [
      user("a", null, "go"),
      assistant("b", "a", [call("t9")], { stopReason: "toolUse" }),
    ];
    deepStrictEqual(roles(rows), ["user"]);
  });
  await t.step("retryRecovery turns are skipped", () => {
    const rows = [
      user("a", null, "go"),
      assistant("b", "a", "retry", { retryRecovery: true }),
    ];
    deepStrictEqual(roles(rows), ["user"]);
  });
});

Deno.test("buildSessionContext() settings: models per role, thinking level, labels", async (t) => {
  await t.step(
    "models from model_change; default inferred from assistants without one",
    () => {
      const rows = [
        user("a", null, "go"),
        assistant("b", "a", "x"),
        env("model_change", "m1", "b", {
          model: "openai/gpt-5.1-codex",
          role: "smol",
        }),
      ];
      deepStrictEqual(build(rows).models, {
        default: "anthropic/claude-sonnet-4-5",
        smol: "openai/gpt-5.1-codex",
      });
    },
  );
  await t.step(
    "an explicit default is not overwritten by later assistants",
    () => {
      const rows = [
        env("model_change", "m1", null, { model: "openai/gpt-5.1-codex" }),
        user("a", "m1", "go"),
        assistant("b", "a", "x"),
      ];
      equal(build(rows).model, "openai/gpt-5.1-codex");
    },
  );
  await t.step("thinking level: latest change, off by default", () => {
    const rows = [
      env("thinking_level_change", "t1", null, {
        thinkingLevel: "high",
        configured: "auto",
      }),
      env("thinking_level_change", "t2", "t1", { thinkingLevel: "low" }),
    ];
    const ctx = build(rows);
    equal(ctx.thinkingLevel, "low");
    equal(ctx.configuredThinkingLevel, "low");
    equal(build([user("a", null, "x")]).thinkingLevel, "off");
  });
  await t.step(
    "labels: set, replaced, cleared, from every entry in the file",
    () => {
      const rows = [
        user("a", null, "go"),
        env("label", "l1", "a", { targetId: "a", label: "one" }),
        env("label", "l2", "l1", { targetId: "a", label: "two" }),
        env("label", "l3", "l2", { targetId: "x", label: "gone" }),
        env("label", "l4", "l3", { targetId: "x" }),
        env("label", "side", "a", { targetId: "a", label: "side branch" }),
        user("z", "l4", "leaf"),
      ];
      deepStrictEqual(build(rows).labels, { a: "side branch" });
    },
  );
  await t.step("tokens: the last usage plus the text after it", () => {
    const rows = [
      user("a", null, "go"),
      assistant("b", "a", "x", {
        usage: { input: 100, output: 20, totalTokens: 120 },
      }),
      user("c", "b", "12345678"),
    ];
    equal(build(rows).tokens, 122);
    ok(build([user("a", null, "x".repeat(40))]).tokens === 10);
  });
});
