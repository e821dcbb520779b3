import { deepStrictEqual } from "node:assert/strict";
import { contextToJson, Session } from "../../mod.ts";

const FILE =
  new URL("../../fixtures/xdev/compaction-past-reset.jsonl", import.meta.url)
    .pathname;
const OMP = new URL(
  "../../fixtures/xdev/compaction-past-reset.omp-context.json",
  import.meta.url,
);

const texts = (messages: Record<string, unknown>[]): string[] =>
  messages.map((m) =>
    m.role === "compactionSummary"
      ? "summary"
      : String((m.content as { text: string }[])[0]!.text)
  );

Deno.test("Session.buildContext() keeps nothing from before a reset, even inside a compaction's kept window", async () => {
  await using session = await Session.open(FILE);
  const ctx = await contextToJson(
    session.buildContext(),
    session.title,
    session.titleSource,
  );
  deepStrictEqual(texts(ctx.messages), [
    "summary",
    "After the compaction: a new question.",
    "After the compaction: a new answer.",
  ]);
});

Deno.test("Session.buildContext() with resetRule omp rebuilds what omp 18.3.4 rebuilds", async () => {
  await using session = await Session.open(FILE);
  const expected = JSON.parse(await Deno.readTextFile(OMP));
  const ctx = JSON.parse(JSON.stringify(
    await contextToJson(
      session.buildContext({ resetRule: "omp" }),
      session.title,
      session.titleSource,
    ),
  ));
  deepStrictEqual(ctx.messages, expected.messages);
  // …which reaches back past the reset: the two rules really differ here.
  deepStrictEqual(texts(expected.messages).slice(0, 2), [
    "summary",
    "Before the reset: second question (the compaction's firstKeptEntryId).",
  ]);
});
