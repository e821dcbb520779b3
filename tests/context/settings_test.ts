import assert from "node:assert/strict";
import fc from "fast-check";
import { collectLabels, LatestLabels } from "../../src/context/labels.ts";
import {
  emptySettings,
  foldSettings,
  LatestSettings,
  type Settings,
} from "../../src/context/settings.ts";
import type { SessionEntry } from "../../src/format/entries.ts";

const T = "2026-10-01T09:00:00.000Z";
let n = 0;
const env = (type: string, rest: Record<string, unknown>): SessionEntry =>
  ({
    type,
    id: `e${++n}`,
    parentId: null,
    timestamp: T,
    ...rest,
  }) as SessionEntry;

/** Entries a settings fold looks at, well-formed or not, and others. */
const entry: fc.Arbitrary<SessionEntry> = fc.oneof(
  fc.record({
    level: fc.constantFrom("off", "low", "high", null, 7),
    configured: fc.constantFrom("auto", "medium", null, undefined),
  }).map(({ level, configured }) =>
    env("thinking_level_change", { thinkingLevel: level, configured })
  ),
  fc.record({
    model: fc.constantFrom("openai/gpt-5", "anthropic/claude", "", 3),
    role: fc.constantFrom(undefined, "default", "smol", 9),
  }).map(({ model, role }) =>
    env("model_change", role === undefined ? { model } : { model, role })
  ),
  fc.record({
    role: fc.constantFrom("assistant", "user"),
    provider: fc.constantFrom("openai", "anthropic"),
    model: fc.constantFrom("a", "b"),
  }).map((message) => env("message", { message })),
  fc.constantFrom("label", "reset_boundary", "custom").map((type) =>
    env(type, {})
  ),
);

const base: fc.Arbitrary<Settings | undefined> = fc.option(
  fc.record({
    models: fc.dictionary(fc.constantFrom("default", "smol"), fc.string()),
    explicitDefaultModel: fc.boolean(),
    thinkingLevel: fc.constantFrom("off", "high"),
    configuredThinkingLevel: fc.constantFrom(null, "auto"),
  }),
  { nil: undefined },
);

Deno.test("LatestSettings over a path walked backwards folds to what foldSettings gives forwards", () => {
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 30 }), base, (path, start) => {
      const latest = new LatestSettings();
      for (let i = path.length - 1; i >= 0; i--) {
        const e = path[i]!;
        // A walk parses (and offers) only the lines the fold still wants.
        if (latest.wants(e.type)) latest.offer(e);
      }
      assert.deepEqual(latest.fold(start), foldSettings(path, start));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("foldSettings() reads models per role, the thinking level and the assistant's model", async (t) => {
  await t.step("nothing on the path: off, no model", () => {
    assert.deepEqual(foldSettings([]), emptySettings());
  });
  await t.step("a default model change wins over any assistant message", () => {
    const s = foldSettings([
      env("message", {
        message: { role: "assistant", provider: "p", model: "a" },
      }),
      env("model_change", { model: "q/b" }),
      env("message", {
        message: { role: "assistant", provider: "p", model: "c" },
      }),
    ]);
    assert.deepEqual([s.models.default, s.explicitDefaultModel], ["q/b", true]);
  });
  await t.step("without one, the last assistant's provider/model", () => {
    const s = foldSettings([
      env("message", {
        message: { role: "assistant", provider: "p", model: "a" },
      }),
      env("model_change", { model: "q/s", role: "smol" }),
      env("message", {
        message: { role: "assistant", provider: "p", model: "c" },
      }),
    ]);
    assert.deepEqual(s.models, { default: "p/c", smol: "q/s" });
  });
  await t.step(
    "a null level reads as off; configured falls back to the level",
    () => {
      const s = foldSettings([
        env("thinking_level_change", { thinkingLevel: "high" }),
        env("thinking_level_change", { thinkingLevel: null }),
      ]);
      assert.deepEqual([s.thinkingLevel, s.configuredThinkingLevel], [
        "off",
        null,
      ]);
      const t2 = foldSettings([
        env("thinking_level_change", { thinkingLevel: "low" }),
      ]);
      assert.equal(t2.configuredThinkingLevel, "low");
    },
  );
  await t.step("the base is copied, never changed", () => {
    const start = { ...emptySettings(), models: { smol: "x/y" } };
    foldSettings([env("model_change", { model: "q/s", role: "smol" })], start);
    assert.deepEqual(start.models, { smol: "x/y" });
  });
});

Deno.test("LatestLabels over a file read backwards collects what collectLabels gives forwards", () => {
  const label = fc.record({
    target: fc.constantFrom("a", "b", "c"),
    label: fc.constantFrom("start", "", undefined, "done"),
  }).map(({ target, label }) =>
    env(
      "label",
      label === undefined ? { targetId: target } : { targetId: target, label },
    )
  );
  const labels = fc.dictionary(
    fc.constantFrom("a", "b", "d"),
    fc.string({ minLength: 1 }),
  );
  fc.assert(
    fc.property(
      fc.array(fc.oneof(label, entry), { maxLength: 30 }),
      labels,
      (file, start) => {
        const latest = new LatestLabels();
        for (let i = file.length - 1; i >= 0; i--) latest.offer(file[i]!);
        assert.deepEqual(latest.collect(start), collectLabels(file, start));
      },
    ),
    { numRuns: 1000 },
  );
});
