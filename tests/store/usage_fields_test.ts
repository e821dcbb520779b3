/**
 * The walk that reads a call's fields from a line's skeleton without
 * `JSON.parse` (`_fields.ts`), and the WebAssembly pass that finds them
 * for it (`_wasm_fields.ts`): the same call as the parse gives, over
 * generated transcripts, the usage fixtures, odd but valid JSON (where
 * either may give up and the line is parsed) and damaged lines.
 */

import { deepStrictEqual, equal, notEqual } from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { generateBytes } from "../../src/gen/generate.ts";
import { entryFields } from "../../src/store/usage/_fields.ts";
import {
  recordedFields,
  WANTED_FIELDS,
} from "../../src/store/usage/_field_values.ts";
import { usageFinder } from "../../src/store/usage/_finder.ts";
import { chunkLineRequest, lineRequest } from "../../src/store/usage/_line.ts";
import { requestUsage } from "../../src/format/usage.ts";
import type { SessionEntry } from "../../src/format/entries.ts";

const enc = new TextEncoder();
const finder = usageFinder(1 << 20);

/** The call the walk reads from a line's skeleton, or "unsure". */
function walked(line: Uint8Array): unknown {
  finder.bytes.set(line);
  const n = finder.skeleton(0, line.length);
  if (n < 0) return "no skeleton";
  const fields = entryFields(finder.out, 0, n);
  return fields === undefined
    ? "unsure"
    : requestUsage(fields as unknown as SessionEntry);
}

/**
 * The fields the WebAssembly pass found in a line (only the keys set), or
 * "gave up"; and what it should find: the wanted keys of the parsed line
 * (in each object under a wanted key), or "not JSON"; and the walk's
 * fields of the line's skeleton, the same way (undefined: unsure).
 */
function recordedAndWanted(line: Uint8Array): [unknown, unknown, unknown] {
  finder.bytes.set(line);
  const count = finder.fields(0, line.length);
  const recorded = count < 0
    ? "gave up"
    : plain(recordedFields(finder.memory, finder.records, count));
  let wanted: unknown;
  try {
    wanted = wantedOf(JSON.parse(new TextDecoder().decode(line)));
  } catch {
    wanted = "not JSON";
  }
  const n = finder.skeleton(0, line.length);
  const walkedFields = n < 0
    ? "no skeleton"
    : plain(entryFields(finder.out, 0, n));
  return [recorded, wanted, walkedFields];
}

/** A parsed entry's wanted keys, in each object under a wanted key. */
function wantedOf(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return value;
  }
  const v = value as Record<string, unknown>;
  return Object.fromEntries(
    WANTED_FIELDS.filter((k) => Object.hasOwn(v, k)).map((k) => [
      k,
      wantedOf(v[k]),
    ]),
  );
}

/** A walk's result as plain data: its objects' keys that are set. */
function plain(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => v !== undefined).map((
      [k, v],
    ) => [k, plain(v)]),
  );
}

/** Lines the WebAssembly pass read, and those the walk read (not unsure). */
const lines = { recorded: 0, walked: 0 };

/**
 * Every way agrees on `text` (padded past the skeleton's threshold), and
 * where the WebAssembly pass did not give up, it found the wanted keys the
 * parse finds.
 */
function agree(text: string): void {
  const bytes = enc.encode(text.padEnd(600, " "));
  const [recorded, wanted, walkedFields] = recordedAndWanted(bytes);
  if (walkedFields !== undefined && walkedFields !== "no skeleton") {
    lines.walked++;
  }
  if (recorded !== "gave up") {
    lines.recorded++;
    deepStrictEqual(recorded, wanted, text);
  }
  finder.bytes.set(bytes);
  deepStrictEqual(
    chunkLineRequest(finder, 0, bytes.length),
    lineRequest(bytes, true),
    text,
  );
}

function call(more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "message",
    id: "e1",
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: {
      role: "assistant",
      content: [{ type: "text", text: "x".repeat(200) }],
      api: "a",
      provider: "p",
      model: "m",
      usage: {
        input: 10,
        output: 2,
        cacheRead: 3,
        cacheWrite: 4,
        totalTokens: 19,
        cost: { input: 0.1, output: 0.2, total: 0.30000000000000004 },
      },
      stopReason: "stop",
      timestamp: 1767603644421,
      ...more,
    },
  };
}

async function transcriptLines(size: number, seed: number): Promise<string[]> {
  const text = new TextDecoder().decode(await generateBytes({ size, seed }));
  return text.split("\n").filter((l) => l.includes('"usage"'));
}

async function fixtureLines(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".jsonl")) {
        const text = await Deno.readTextFile(path);
        out.push(...text.split("\n").filter((l) => l.includes('"usage"')));
      }
    }
  };
  await walk(new URL("../../fixtures/usage/", import.meta.url).pathname);
  return out;
}

Deno.test("entryFields() reads every call of generated transcripts as JSON.parse does", async () => {
  let walkedCalls = 0;
  for (const seed of [1, 2, 3]) {
    for (const line of await transcriptLines(1 << 20, seed)) {
      const bytes = enc.encode(line);
      const parsed = requestUsage(JSON.parse(line));
      const got = walked(bytes);
      deepStrictEqual(got, parsed);
      const [recorded, wanted] = recordedAndWanted(bytes);
      deepStrictEqual(recorded, wanted, "the WebAssembly pass");
      walkedCalls++;
    }
  }
  notEqual(walkedCalls, 0);
});

Deno.test("entryFields() reads the usage fixtures' calls as JSON.parse does, or gives up", async () => {
  let sure = 0;
  for (const line of await fixtureLines()) {
    const bytes = enc.encode(line.padEnd(600, " "));
    const got = walked(bytes);
    if (got !== "unsure" && got !== "no skeleton") {
      sure++;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = undefined;
      }
      deepStrictEqual(
        got,
        typeof value === "object" && value !== null && !Array.isArray(value)
          ? requestUsage(value as SessionEntry)
          : undefined,
        line,
      );
    }
    agree(line);
  }
  notEqual(sure, 0);
});

Deno.test("entryFields() gives up on what it cannot be sure of, and the line is parsed", async (t) => {
  const base = JSON.stringify(call());
  await t.step("odd but valid JSON agrees with the parse", () => {
    const odd = [
      // Whitespace everywhere JSON allows it.
      JSON.stringify(call(), null, 2).replaceAll("\n", " "),
      base.replaceAll(":", " :\t").replaceAll(",", " , "),
      ` \t${base}\r `,
      // Keys in another order, the envelope last.
      JSON.stringify({ message: call().message, id: "e1", type: "message" }),
      // An escaped key, in the envelope and in the usage.
      base.replace('"type"', '"typ\\u0065"'),
      base.replace('"usage"', '"us\\u0061ge"'),
      base.replace('"input":10', '"inp\\u0075t":10'),
      // Duplicate keys: the last one counts.
      base.replace('"input":10', '"input":10,"input":"x"'),
      base.replace('"input":10', '"input":"x","input":10'),
      base.replace('"role":"assistant"', '"role":"assistant","role":"user"'),
      base.replace('"type":"message"', '"type":"message","type":"model_usage"'),
      // Numbers in every form.
      ...[
        "1e2",
        "1E+2",
        "1.5e-3",
        "-0",
        "0.0",
        "-0.5",
        "12345678901234567890",
        "1.0",
        "0.1234567890123456789",
        "123456789012345.5",
        "1e999",
        "-1e999",
        "9007199254740993",
      ].flatMap((n) => [
        base.replace('"input":10', `"input":${n}`),
        base.replace('"total":0.30000000000000004', `"total":${n}`),
      ]),
      // Values of other types where a call's fields are.
      base.replace('"input":10', '"input":[1]'),
      base.replace('"input":10', '"input":{"a":1}'),
      base.replace('"input":10', '"input":true'),
      base.replace('"input":10', '"input":null'),
      base.replace('"stopReason":"stop"', '"stopReason":["error"]'),
      base.replace('"stopReason":"stop"', '"stopReason":7'),
      base.replace('"stopReason":"stop"', '"stopReason":null'),
      base.replace('"stopReason":"stop"', '"errorMessage":"a\\"b"'),
      base.replace('"stopReason":"stop"', '"errorMessage":""'),
      base.replace('"stopReason":"stop"', '"errorMessage":{}'),
      base.replace('"usage":{', '"usage":[{').replace(
        ',"stopReason"',
        '],"stopReason"',
      ),
      base.replace('"model":"m"', '"model":"m\\u00e9"'),
      base.replace('"model":"m"', '"model":"modèle 😀"'),
      base.replace('"id":"e1"', '"id":"\\u0065\\u0031"'),
      base.replace('"id":"e1"', `"id":"${"i".repeat(200)}"`),
      // Deep content, empty containers.
      base.replace(
        '"content":[',
        `"content":[${"[".repeat(600)}${"]".repeat(600)},{},[],`,
      ),
      base.replace('"content":[', '"content":[{"usage":{"input":99}},'),
      // Another kind of value at the top.
      `[${base}]`,
      `"usage"`,
    ];
    const before = lines.recorded;
    for (const line of odd) agree(line);
    notEqual(lines.recorded, before, "the WebAssembly pass read some");
  });
  await t.step("an escaped key or wanted string is given up on", () => {
    for (
      const line of [
        base.replace('"usage"', '"us\\u0061ge"'),
        base.replace('"model":"m"', '"model":"m\\u00e9"'),
        base.replace('"id":"e1"', `"id":"${"i".repeat(200)}"`),
      ]
    ) equal(walked(enc.encode(line)), "unsure", line);
  });
  await t.step("damaged lines agree with the parse (no call)", () => {
    const damaged = [
      base.slice(0, -1),
      `${base}}`,
      `${base},`,
      `${base} x`,
      base.replace(',"stopReason"', '"stopReason"'),
      base.replace('"input":10', '"input":10,'),
      base.replace('"input":10', '"input" 10'),
      base.replace('"input":10', '"input":tru'),
      base.replace('"input":10', '"input":nul'),
      base.replace('"input":10', '"input":01'),
      base.replace('"input":10', '"input":1.'),
      base.replace('"input":10', '"input":.5'),
      base.replace('"input":10', '"input":+1'),
      base.replace('"input":10', '"input":-'),
      base.replace('"input":10', '"input":1e'),
      base.replace('"content":[', '"content":[}'),
      base.replace('"content":[', '"content":[1 2,'),
      base.replace('"content":[', '"content":[{"a"},'),
      base.replace('"content":[', '"content":[{,"a":1},'),
      base.replace('"content":[', '"content":[{"a":1,},'),
    ];
    for (const line of damaged) agree(line);
    // Cuts of the line, as a torn write leaves it.
    for (let cut = 1; cut < base.length; cut += 7) agree(base.slice(0, cut));
  });
});

Deno.test("entryFields() agrees with JSON.parse on calls with any JSON added", () => {
  const extra = fc.dictionary(
    fc.constantFrom("a", "usage", "input", "cost", "model", "id", "message"),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 3 },
  );
  const before = { ...lines };
  fc.assert(
    fc.property(
      extra,
      extra,
      extra,
      fc.constantFrom("", " ", "\t", "\n", "\r\n "),
      (top, message, usage, space) => {
        const c = call() as Record<string, Record<string, unknown>>;
        const m = c.message!;
        const entry = {
          ...c,
          ...top,
          message: {
            ...m,
            ...message,
            usage: { ...(m.usage as object), ...usage },
          },
        };
        agree(JSON.stringify(entry, null, space.length > 0 ? space : 0));
      },
    ),
    { numRuns: 2000 },
  );
  // It reads what the walk reads (but an escaped errorMessage), and more.
  const recorded = lines.recorded - before.recorded;
  const walkedLines = lines.walked - before.walked;
  equal(
    recorded >= walkedLines * 0.95,
    true,
    `the WebAssembly pass read ${recorded}, the walk ${walkedLines}`,
  );
});

Deno.test("fields() (WebAssembly) gives up where the walk must decide, and the line is read as before", () => {
  const base = JSON.stringify(call());
  const read = (line: string) =>
    recordedAndWanted(enc.encode(line.padEnd(600, " ")))[0];
  const nested = (n: number) =>
    base.replace('"content":[', `"content":[${"[".repeat(n)}${"]".repeat(n)},`);
  for (
    const line of [
      base,
      JSON.stringify(call(), null, "\r\n "), // whitespace of every kind
      nested(28),
      // An escaped key where no key is wanted.
      base.replace('"content":[', '"content":[{"a\\"b":1},'),
      // Long strings, escapes in strings not wanted (the skeleton's work).
      base.replace('"id":"e1"', `"id":"${"i".repeat(200)}"`),
      base.replace('"text":"', '"text":"\\u00e9\\n\\"\\\\\\/\\b\\f\\r\\t'),
    ]
  ) {
    notEqual(read(line), "gave up", line);
    agree(line);
  }
  for (
    const line of [
      nested(40), // past its depth (the walk follows 512)
      // More records than it keeps.
      base.replace('"input":10', `${'"input":1,'.repeat(300)}"input":10`),
      // What the walk gives up on too, or decides itself.
      base.replace('"input":10', '"input":[1]'),
      base.replace('"usage"', '"us\\u0061ge"'),
      base.replace('"model":"m"', '"model":"m\\u00e9"'),
      base.replace('"stopReason":"stop"', '"errorMessage":"a\\"b"'),
      // Not JSON.
      base.replace('"text":"', '"text":"\\x'),
      base.replace('"text":"', '"text":"\\u12G4'),
      base.replace('"text":"', '"text":"\t'),
      base.replace('"input":10', '"input":01'),
      base.replace('"input":10', '"input":10,'),
      base.slice(0, -1),
      `${base}}`,
    ]
  ) {
    equal(read(line), "gave up", line);
    agree(line);
  }
});

Deno.test("fields() (WebAssembly) reads numbers as JSON.parse does", () => {
  const base = JSON.stringify(call());
  const before = lines.recorded;
  fc.assert(
    fc.property(
      fc.boolean(),
      fc.stringMatching(/^(0|[1-9][0-9]{0,17})$/),
      fc.option(fc.stringMatching(/^[0-9]{1,17}$/), { nil: undefined }),
      fc.option(fc.stringMatching(/^[eE][+-]?[0-9]{1,3}$/), { nil: undefined }),
      (negative, whole, fraction, exponent) => {
        const text = `${negative ? "-" : ""}${whole}${
          fraction === undefined ? "" : `.${fraction}`
        }${exponent ?? ""}`;
        // A count, and a cost (where a fraction is common).
        agree(base.replace('"input":10', `"input":${text}`));
        agree(base.replace('"total":0.30000000000000004', `"total":${text}`));
      },
    ),
    { numRuns: 3000 },
  );
  notEqual(lines.recorded, before);
});

Deno.test("chunkLineRequest() reads a short line through the fields pass, as JSON.parse does", () => {
  const side = JSON.stringify({
    type: "model_usage",
    id: "s1",
    timestamp: "2026-01-01T00:00:00.000Z",
    model: "m",
    provider: "p",
    api: "a",
    usage: { input: 3, output: 1, cost: { total: 0.5 } },
  });
  for (
    const text of [
      side,
      side.replace('"input":3', '"input":"3"'),
      side.replace('"input":3', '"input":-0.5e1'),
      side.slice(0, -2),
      `${side}x`,
    ]
  ) {
    const bytes = enc.encode(text);
    finder.bytes.set(bytes);
    const count = finder.fields(0, bytes.length);
    deepStrictEqual(
      chunkLineRequest(finder, 0, bytes.length),
      lineRequest(bytes, true),
      text,
    );
    if (text === side) notEqual(count, -1, "the fields pass read it");
  }
});

Deno.test("fields() (WebAssembly) reads a damaged line only where JSON.parse reads it, and then as it does", () => {
  const base = JSON.stringify(
    call({ errorMessage: "a", content: [{ type: "text", text: "é\\n" }] }),
  );
  const bytes = enc.encode(base);
  // Bytes that matter to JSON, and some that do not.
  const pieces = [...'{}[]:,"\\ \t\n0123456789.-+eEtrufalsn\u0001x'].map(
    (c) => enc.encode(c)[0]!,
  );
  const edit = fc.record({
    at: fc.nat(bytes.length),
    op: fc.constantFrom("insert", "delete", "replace"),
    byte: fc.constantFrom(...pieces),
  });
  let read = 0;
  fc.assert(
    fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
      let line = bytes;
      for (const { at, op, byte } of edits) {
        const i = Math.min(at, line.length);
        const before = line.subarray(0, i);
        const after = line.subarray(op === "insert" ? i : i + 1);
        line = new Uint8Array([
          ...before,
          ...(op === "delete" ? [] : [byte]),
          ...after,
        ]);
      }
      const [recorded, wanted] = recordedAndWanted(line);
      if (recorded === "gave up") return;
      read++;
      deepStrictEqual(recorded, wanted, new TextDecoder().decode(line));
    }),
    { numRuns: 5000 },
  );
  notEqual(read, 0);
});
