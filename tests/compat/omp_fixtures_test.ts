import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { contextToJson, Session } from "../../mod.ts";
import { CONTEXT_JSON_FIELDS } from "../../src/context/context_json.ts";

const DIR = new URL("../../fixtures/omp/", import.meta.url);

const names = [...Deno.readDirSync(DIR)]
  .map((e) => e.name)
  .filter((n) => n.endsWith(".jsonl"))
  .map((n) => n.slice(0, -".jsonl".length))
  .sort();

Deno.test("fixtures/omp holds the 14 omp-written sessions", () => {
  assertEquals(names.length, 14);
});

for (const name of names) {
  Deno.test(`Session.open() rebuilds omp's context for ${name}`, async (t) => {
    const path = new URL(`${name}.jsonl`, DIR).pathname;
    const expected = JSON.parse(
      await Deno.readTextFile(new URL(`${name}.context.json`, DIR)),
    );
    await using session = await Session.open(path);
    const actual = JSON.parse(JSON.stringify(
      await contextToJson(
        session.buildContext(),
        session.title,
        session.titleSource,
      ),
    ));
    for (const field of CONTEXT_JSON_FIELDS) {
      await t.step(field, () => {
        assertEquals(actual[field], expected[field]);
      });
    }
  });
}
