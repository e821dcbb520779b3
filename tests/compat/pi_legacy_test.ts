import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { contextToJson, Session } from "../../mod.ts";

const DIR = new URL("../../fixtures/pi/", import.meta.url);

Deno.test("Session.open() migrates pi's version 1 session and rebuilds omp's context", async (t) => {
  await using session = await Session.open(
    new URL("large-session-v1.jsonl", DIR).pathname,
  );
  const expected = JSON.parse(
    await Deno.readTextFile(new URL("large-session-v1.context.json", DIR)),
  );
  const actual = JSON.parse(JSON.stringify(
    await contextToJson(
      session.buildContext(),
      session.title,
      session.titleSource,
    ),
  ));
  await t.step(
    "it was migrated in memory and the header left as on disk",
    () => {
      ok(session.migrated);
      equal(session.header.version, undefined);
      deepStrictEqual(session.issues, []);
    },
  );
  await t.step("entry counts", () => {
    equal(session.entries.length, expected.entryCount);
    const types: Record<string, number> = {};
    for (const e of session.entries) types[e.type] = (types[e.type] ?? 0) + 1;
    deepStrictEqual(types, expected.entryTypes);
  });
  await t.step(
    "messages",
    () => deepStrictEqual(actual.messages, expected.messages),
  );
  await t.step("model and models", () => {
    equal(actual.model, expected.model);
    deepStrictEqual(actual.models, expected.models);
  });
  await t.step(
    "thinking level",
    () => equal(actual.thinkingLevel, expected.thinkingLevel),
  );
  await t.step(
    "the entry types along the active path (omp mints random ids)",
    () => {
      deepStrictEqual(
        actual.activePath.map((e: { type: string }) => e.type),
        expected.activePath.map((e: { type: string }) => e.type),
      );
    },
  );
  await t.step(
    "ids are minted in file order, the same on every open",
    async () => {
      equal(session.entries[0]!.id, "00000001");
      equal(session.entries[1]!.parentId, "00000001");
      await using again = await Session.open(
        new URL("large-session-v1.jsonl", DIR).pathname,
      );
      equal(again.leafId, session.leafId);
    },
  );
});
