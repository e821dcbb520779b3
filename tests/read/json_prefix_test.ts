import { deepStrictEqual, equal, ok } from "node:assert/strict";
import fc from "fast-check";
import {
  isCut,
  KeyTable,
  readJsonPrefix,
} from "../../src/read/_json_prefix.ts";

const enc = new TextEncoder();
const ALL = ["type", "message", "role", "content", "text", "name", "a", "b"];
const limits = (stringBytes = 1024, depth = 8, keys = ALL) => ({
  stringBytes,
  depth,
  keys: new KeyTable(keys),
});
const read = (json: string, l = limits(), cut?: number) => {
  const bytes = enc.encode(json);
  return readJsonPrefix(bytes, 0, cut ?? bytes.length, l);
};

Deno.test("readJsonPrefix() reads a whole value as JSON.parse does, keeping the keys asked for", () => {
  const json =
    '{"type":"message","id":"x","message":{"role":"user","content":[{"type":"text","text":"a\\"b\\\\c\\u00e9\\n"}]},"n":[1,2.5e3,true,null]}';
  const v = read(json) as Record<string, unknown>;
  deepStrictEqual(v, {
    type: "message",
    message: { role: "user", content: [{ type: "text", text: 'a"b\\cé\n' }] },
  });
  equal(isCut(v), false);
});

Deno.test("readJsonPrefix() keeps what comes before the cut and marks the containers it cut", () => {
  const json =
    '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"hello world"}]}}';
  const cut = json.indexOf("world") + 2;
  const v = read(json, limits(), cut) as {
    message: { content: { text: string }[] };
  };
  equal(v.message.content[0]!.text, "hello wo");
  ok(isCut(v) && isCut(v.message) && isCut(v.message.content));
  ok(isCut(v.message.content[0]));
});

Deno.test("readJsonPrefix() cuts a long string to whole characters and whole escapes, then stops", () => {
  const v = read('{"text":"ééééé","a":"never"}', limits(5)) as Record<
    string,
    unknown
  >;
  equal(v.text, "éé");
  equal(v.a, undefined);
  ok(isCut(v));
  for (
    const [json, want] of [
      ['{"text":"ab\\u00e9cd"}', "ab"],
      ['{"text":"ab\\ncd"}', "ab\n"],
      ['{"text":"a\\\\\\ncd"}', "a\\"],
    ] as const
  ) {
    const cut = read(json, limits(json === '{"text":"ab\\u00e9cd"}' ? 6 : 4));
    equal((cut as Record<string, string>).text, want, json);
  }
});

Deno.test("readJsonPrefix() passes over members not asked for, and containers past the depth", () => {
  const v = read(
    '{"skip":{"deep":["\\"]}",{"x":1}]},"a":{"b":{"text":"too deep"}},"type":"t"}',
    limits(64, 2),
  );
  deepStrictEqual(v, { a: {}, type: "t" });
});

Deno.test("readJsonPrefix() never throws and never reads past its end, on any cut of any JSON", () => {
  const value = fc.letrec((tie) => ({
    json: fc.oneof(
      { depthSize: "small" },
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("json"), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom(...ALL, "z"), tie("json"), {
        maxKeys: 4,
      }),
    ),
  })).json;
  fc.assert(
    fc.property(value, fc.nat(), fc.nat({ max: 16 }), (inner, at, max) => {
      const v = { a: inner }; // a line is an object
      const bytes = enc.encode(JSON.stringify(v));
      const cut = at % (bytes.length + 1);
      const padded = new Uint8Array(bytes.length + 8).fill(0x22); // quotes past the end
      padded.set(bytes.subarray(0, cut));
      deepStrictEqual(
        readJsonPrefix(padded, 0, cut, limits(max + 1, 3)),
        readJsonPrefix(bytes.slice(0, cut), 0, cut, limits(max + 1, 3)),
      );
      // Whole and unbounded, it is JSON.parse's value (keys asked for).
      const whole = readJsonPrefix(bytes, 0, bytes.length, limits(1 << 20, 99));
      deepStrictEqual(whole, _project(v));
    }),
    { numRuns: 500 },
  );
});

/** `v` as the reader keeps it: only the members in ALL. */
function _project(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(_project);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(
      Object.entries(v).filter(([k]) => ALL.includes(k)).map((
        [k, x],
      ) => [k, _project(x)]),
    );
  }
  return typeof v === "number" ? JSON.parse(JSON.stringify(v)) : v;
}
