import assert from "node:assert/strict";
import {
  asHeader,
  headerTitleSource,
  headerVersion,
  SESSION_VERSION,
  type SessionHeader,
} from "../../src/format/header.ts";
import { recordMigrator } from "../../src/format/_migrate.ts";
import { HEADER } from "../_session_files.ts";

Deno.test("asHeader() accepts a header and says why anything else is not one", async (t) => {
  await t.step("a version 3 header, unknown fields kept", () => {
    const value = { ...HEADER, additionalDirectories: ["/x"] };
    assert.deepEqual(asHeader(value), { header: value });
  });
  await t.step("a header without a version (pi's first format)", () => {
    const { version: _, ...legacy } = HEADER;
    assert.ok("header" in asHeader(legacy));
  });
  const cases: [string, unknown, string][] = [
    ["null", null, "the header is not a JSON object"],
    ["an array", [HEADER], "the header is not a JSON object"],
    ["a string", "session", "the header is not a JSON object"],
    [
      "another type",
      { ...HEADER, type: "message" },
      'the header\'s type is not "session"',
    ],
    ["no id", { ...HEADER, id: undefined }, "the header has no id"],
    ["an empty id", { ...HEADER, id: "" }, "the header has no id"],
    ["a numeric id", { ...HEADER, id: 7 }, "the header has no id"],
    [
      "version 0",
      { ...HEADER, version: 0 },
      "the header's version is not a positive integer",
    ],
    [
      "version 2.5",
      { ...HEADER, version: 2.5 },
      "the header's version is not a positive integer",
    ],
    [
      'version "3"',
      { ...HEADER, version: "3" },
      "the header's version is not a positive integer",
    ],
  ];
  for (const [name, value, reason] of cases) {
    await t.step(name, () => assert.deepEqual(asHeader(value), { reason }));
  }
});

Deno.test("headerVersion() reads the version; a header without one is version 1", () => {
  assert.equal(headerVersion(HEADER as SessionHeader), SESSION_VERSION);
  assert.equal(headerVersion({ ...HEADER, version: 2 } as SessionHeader), 2);
  const { version: _, ...legacy } = HEADER;
  assert.equal(headerVersion(legacy as unknown as SessionHeader), 1);
});

Deno.test("headerTitleSource() maps a header's titleSource to the API's names", () => {
  const of = (titleSource: unknown) =>
    headerTitleSource({ ...HEADER, titleSource } as SessionHeader);
  assert.equal(of("user"), "manual");
  assert.equal(of("manual"), "manual");
  assert.equal(of("auto"), "auto");
  assert.equal(of("subagent"), "subagent");
  assert.equal(of("robot"), undefined);
  assert.equal(of(undefined), undefined);
});

Deno.test("recordMigrator() brings version 1 and 2 records to version 3", async (t) => {
  await t.step("version 3 and later need nothing", () => {
    assert.equal(recordMigrator(3), undefined);
    assert.equal(recordMigrator(4), undefined);
  });
  await t.step(
    "version 1: ids in file order, a parent chain, firstKeptEntryIndex to an id",
    () => {
      const migrate = recordMigrator(1)!;
      const records: Record<string, unknown>[] = [
        { type: "message", message: { role: "user", content: "a" } },
        { type: "message", message: { role: "assistant", content: [] } },
        {
          type: "compaction",
          summary: "s",
          firstKeptEntryIndex: 2,
          tokensBefore: 1,
        },
        {
          type: "compaction",
          summary: "t",
          firstKeptEntryIndex: 9,
          tokensBefore: 1,
        },
      ];
      records.forEach((value, i) => migrate({ index: i + 1, value }));
      assert.deepEqual(records.map((r) => r.id), [
        "00000001",
        "00000002",
        "00000003",
        "00000004",
      ]);
      assert.deepEqual(records.map((r) => r.parentId), [
        null,
        "00000001",
        "00000002",
        "00000003",
      ]);
      assert.equal(records[2]!.firstKeptEntryId, "00000002");
      assert.equal("firstKeptEntryIndex" in records[2]!, false);
      // An index that names no earlier record resolves to nothing, as in omp.
      assert.equal(records[3]!.firstKeptEntryId, undefined);
    },
  );
  await t.step(
    "version 2: role hookMessage becomes custom; ids are kept",
    () => {
      const migrate = recordMigrator(2)!;
      const value: Record<string, unknown> = {
        type: "message",
        id: "abc",
        parentId: null,
        message: { role: "hookMessage", content: "x" },
      };
      migrate({ index: 1, value });
      assert.equal((value.message as { role: string }).role, "custom");
      assert.equal(value.id, "abc");
    },
  );
});
