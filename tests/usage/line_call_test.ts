/**
 * `lineCall`, the one way a usage pass (from the files or in the index)
 * reads a line: the call `JSON.parse` and `requestUsage` find in it, over
 * generated transcripts, the usage fixtures, odd but valid JSON, damaged
 * lines and random JSON added to a call; and the one place it reads
 * otherwise (a type or role repeated past the line's first bytes).
 */

import { deepStrictEqual, equal, notEqual } from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { generateBytes } from "../../src/gen/generate.ts";
import { holdsUsageKey, lineCall } from "../../src/usage/_line_call.ts";
import { requestUsage } from "../../src/format/usage.ts";
import type { SessionEntry } from "../../src/format/entries.ts";

const enc = new TextEncoder();
const KEY = enc.encode('"usage"');

/**
 * What a line records: a parse of a line that holds `"usage"` (as
 * omp-stats reads it), or, where the line is not JSON, of its first value
 * when a second is glued to it (as the loader reads it: the one prefix
 * that parses and is followed by `{` or `[`).
 */
function parsed(line: Uint8Array): unknown {
  let found = false;
  for (let i = 0; i + KEY.length <= line.length && !found; i++) {
    found = KEY.every((b, k) => line[i + k] === b);
  }
  if (!found) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(line));
  } catch {
    value = firstOfGlued(line); // undefined: not JSON, no call
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? requestUsage(value as SessionEntry)
    : undefined;
}

/** The first of two values glued together, found by trying each end. */
function firstOfGlued(line: Uint8Array): unknown {
  if (line[0] !== 0x7b && line[0] !== 0x5b) return undefined;
  for (let end = 1; end < line.length; end++) {
    const next = line[end];
    if (next !== 0x7b && next !== 0x5b) continue;
    if (line[end - 1] !== 0x7d && line[end - 1] !== 0x5d) continue;
    try {
      return JSON.parse(new TextDecoder().decode(line.subarray(0, end)));
    } catch {
      // not a whole value yet
    }
  }
  return undefined;
}

/** Lines that recorded a call, of those {@linkcode agree} saw. */
const lines = { calls: 0 };

/** `lineCall` reads `text` as the parse does. */
function agree(text: string | Uint8Array): void {
  const bytes = typeof text === "string" ? enc.encode(text) : text;
  const want = parsed(bytes);
  if (want !== undefined) lines.calls++;
  deepStrictEqual(lineCall(bytes), want, new TextDecoder().decode(bytes));
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
  return text.split("\n");
}

async function fixtureLines(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".jsonl")) {
        const text = await Deno.readTextFile(path);
        out.push(...text.split("\n"));
      }
    }
  };
  await walk(new URL("../../fixtures/usage/", import.meta.url).pathname);
  return out;
}

Deno.test("lineCall() reads every line of generated transcripts as JSON.parse does", async () => {
  const before = lines.calls;
  for (const seed of [1, 2, 3]) {
    for (const line of await transcriptLines(1 << 20, seed)) agree(line);
  }
  notEqual(lines.calls, before);
});

Deno.test("lineCall() reads every line of the usage fixtures as JSON.parse does", async () => {
  const before = lines.calls;
  for (const line of await fixtureLines()) {
    agree(line);
    agree(`${line}\r`); // a CR left on a last line: JSON white space
  }
  notEqual(lines.calls, before);
});

Deno.test("lineCall() reads odd and damaged lines as JSON.parse does", async (t) => {
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
    const before = lines.calls;
    for (const line of odd) agree(line);
    notEqual(lines.calls, before, "some are calls");
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

Deno.test("lineCall() agrees with JSON.parse on calls with any JSON added", () => {
  const extra = fc.dictionary(
    fc.constantFrom("a", "usage", "input", "cost", "model", "id", "message"),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 3 },
  );
  const before = lines.calls;
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
  notEqual(lines.calls, before);
});

Deno.test("lineCall() reads deep, long and escaped lines as JSON.parse does", () => {
  const base = JSON.stringify(call());
  const nested = (n: number) =>
    base.replace('"content":[', `"content":[${"[".repeat(n)}${"]".repeat(n)},`);
  for (
    const line of [
      base,
      JSON.stringify(call(), null, "\r\n "), // whitespace of every kind
      nested(28),
      nested(40),
      // An escaped key where no key is wanted.
      base.replace('"content":[', '"content":[{"a\\"b":1},'),
      // Long strings, escapes in strings.
      base.replace('"id":"e1"', `"id":"${"i".repeat(200)}"`),
      base.replace('"text":"', '"text":"\\u00e9\\n\\"\\\\\\/\\b\\f\\r\\t'),
      // A key many times: the last one counts.
      base.replace('"input":10', `${'"input":1,'.repeat(300)}"input":10`),
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
  ) agree(line);
});

Deno.test("lineCall() reads numbers as JSON.parse does", () => {
  const base = JSON.stringify(call());
  const before = lines.calls;
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
  notEqual(lines.calls, before);
});

Deno.test("lineCall() reads a side call as JSON.parse does", () => {
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
      // Its own fields first, as omp writes its custom entries.
      JSON.stringify({ model: "m", ...JSON.parse(side) }),
    ]
  ) agree(text);
  notEqual(lineCall(enc.encode(side)), undefined);
});

Deno.test("lineCall() reads a line with bytes changed as JSON.parse does", () => {
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
  const before = lines.calls;
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
      agree(line);
    }),
    { numRuns: 5000 },
  );
  notEqual(lines.calls, before, "some are still calls");
});

Deno.test("lineCall() reads a type or a role given again past the line's first bytes by the first", () => {
  const base = JSON.stringify(call());
  // A later key wins for JSON.parse; the first bytes decide here (no writer
  // repeats a key), as the window walk reads an envelope.
  const role = base.replace('"role":"assistant"', '"role":"user"')
    .replace('"stopReason":"stop"', '"stopReason":"stop","role":"assistant"');
  notEqual(parsed(enc.encode(role)), undefined);
  equal(lineCall(enc.encode(role)), undefined);
  const type = base.replace('"type":"message"', '"type":"custom"')
    .replace(/}$/, ',"type":"message"}');
  notEqual(parsed(enc.encode(type)), undefined);
  equal(lineCall(enc.encode(type)), undefined);
  // Within the first bytes, the later one, as JSON.parse reads it.
  agree(base.replace('"role":"assistant"', '"role":"user","role":"assistant"'));
  agree(base.replace('"type":"message"', '"type":"custom","type":"message"'));
});

Deno.test("holdsUsageKey() finds the key wherever it is", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.constantFrom(0x22, 0x75, 0x73, 0x61, 0x67, 0x65, 0x5c, 0x0a),
        { maxLength: 300 },
      ),
      fc.nat(300),
      fc.boolean(),
      (bytes, at, put) => {
        const b = Uint8Array.from(bytes);
        if (put && at + KEY.length <= b.length) b.set(KEY, at);
        let want = false;
        for (let i = 0; i + KEY.length <= b.length; i++) {
          if (KEY.every((k, j) => b[i + j] === k)) want = true;
        }
        equal(holdsUsageKey(b), want);
      },
    ),
    { numRuns: 3000 },
  );
});
