import assert from "node:assert/strict";
import {
  cleanTitle,
  marshalTitleSlot,
  parseTitleSlot,
  TITLE_SLOT_BYTES,
  type TitleSlot,
  type TitleSlotParse,
  type TitleSource,
} from "../../src/format/title_slot.ts";

const UPDATED_AT = "2026-09-28T10:05:06.082Z";
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The line's text; fails the test if the bytes are not valid UTF-8. */
function decode(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** Marshals, checks the width and the "\n", and parses the result back. */
function roundTrip(
  slot: TitleSlot,
): { line: string; parsed: Extract<TitleSlotParse, { ok: true }> } {
  const bytes = marshalTitleSlot(slot);
  assert.equal(bytes.length, TITLE_SLOT_BYTES);
  assert.equal(bytes[TITLE_SLOT_BYTES - 1], 0x0a);
  const line = decode(bytes).slice(0, -1);
  assert.ok(!line.includes("\n"), "the slot holds exactly one line");
  const parsed = parseTitleSlot(line);
  assert.ok(parsed?.ok, "the slot parses back");
  assert.equal(parsed.width, TITLE_SLOT_BYTES);
  return { line, parsed };
}

/** Bytes the title may take in a "user" slot with UPDATED_AT: pad 0 there. */
const USER_TITLE_ROOM = TITLE_SLOT_BYTES -
  byteLength(
    `{"type":"title","v":1,"title":"","source":"user","updatedAt":"${UPDATED_AT}","pad":""}\n`,
  );

Deno.test("TITLE_SLOT_BYTES is omp's 256-byte slot width", () => {
  assert.equal(TITLE_SLOT_BYTES, 256);
  assert.equal(USER_TITLE_ROOM, 158);
});

Deno.test("cleanTitle() turns control characters into spaces, collapses runs of spaces and trims", async (t) => {
  await t.step("C0 controls, tab and newline become spaces", () => {
    assert.equal(cleanTitle("a\tb\nc\rd\u0000e\u001bf"), "a b c d e f");
  });
  await t.step("DEL and C1 controls (U+0080–U+009F) become spaces", () => {
    assert.equal(cleanTitle("a\u007fb\u0080c\u0085d\u009fe"), "a b c d e");
    assert.equal(cleanTitle("a\u00a0b"), "a\u00a0b", "U+00A0 is not C1");
  });
  await t.step("runs of spaces collapse to one", () => {
    assert.equal(cleanTitle("a    b \t\n c"), "a b c");
  });
  await t.step("both ends are trimmed", () => {
    assert.equal(cleanTitle("  \u3000title\u00a0 "), "title");
  });
  await t.step("other whitespace inside is kept, as omp keeps it", () => {
    assert.equal(cleanTitle("a\u3000\u3000b"), "a\u3000\u3000b");
  });
  await t.step("an all-whitespace title becomes empty", () => {
    assert.equal(cleanTitle(" \t\r\n\u0085\u00a0\u2028 "), "");
    assert.equal(cleanTitle(""), "");
  });
  await t.step("cleaning is idempotent", () => {
    const once = cleanTitle(" x\t\ty \u0080 z ");
    assert.equal(cleanTitle(once), once);
  });
});

Deno.test("marshalTitleSlot() always writes exactly 256 bytes ending in a newline", async (t) => {
  const titles: Record<string, string> = {
    "empty": "",
    "short ASCII": "Fix the flaky test",
    "long ASCII": "x".repeat(1000),
    "CJK (3 bytes each)": "去掉全局状态".repeat(40),
    "4-byte emoji": "🐛".repeat(100),
    "ZWJ emoji sequences": "👩‍👩‍👧‍👦".repeat(20),
    "combining marks": "e\u0301\u0302\u0303".repeat(60),
    "Hangul and Latin mix": "결과 résumé ".repeat(30),
  };
  for (const [name, title] of Object.entries(titles)) {
    await t.step(name, () => {
      for (
        const source of [undefined, "auto", "manual", "subagent"] as const
      ) {
        const slot: TitleSlot = source === undefined
          ? { title, updatedAt: UPDATED_AT }
          : { title, source, updatedAt: UPDATED_AT };
        const { parsed } = roundTrip(slot);
        assert.ok(title.startsWith(parsed.slot.title));
      }
    });
  }
});

Deno.test("marshalTitleSlot() cuts a long title on a code point boundary", async (t) => {
  await t.step("CJK: whole 3-byte characters, the rest is pad", () => {
    const { parsed } = roundTrip({
      title: "中".repeat(100),
      source: "manual",
      updatedAt: UPDATED_AT,
    });
    assert.equal(parsed.slot.title, "中".repeat(52));
    assert.equal(parsed.padBytes, 2);
  });
  await t.step("4-byte emoji: a surrogate pair is never split", () => {
    const { parsed } = roundTrip({
      title: "a" + "🐛".repeat(100),
      source: "manual",
      updatedAt: UPDATED_AT,
    });
    assert.equal(parsed.slot.title, "a" + "🐛".repeat(39));
    assert.equal(parsed.padBytes, 1);
    assert.ok(parsed.slot.title.isWellFormed());
  });
  await t.step(
    "ZWJ sequence: cut between code points, never inside one",
    () => {
      const family = "👩‍👩‍👧‍👦"; // 4 emoji + 3 ZWJ = 25 bytes
      const { parsed } = roundTrip({
        title: family.repeat(10),
        source: "manual",
        updatedAt: UPDATED_AT,
      });
      // 6 families = 150 bytes, then 👩 (4) + ZWJ (3) fit, the next 👩 does not.
      assert.equal(parsed.slot.title, family.repeat(6) + "👩\u200d");
      assert.equal(parsed.padBytes, 1);
      assert.ok(parsed.slot.title.isWellFormed());
    },
  );
  await t.step("combining marks: a mark may be left behind", () => {
    const { parsed } = roundTrip({
      title: "e\u0301".repeat(100), // 3 bytes per pair
      source: "manual",
      updatedAt: UPDATED_AT,
    });
    assert.equal(parsed.slot.title, "e\u0301".repeat(52) + "e");
    assert.equal(parsed.padBytes, 1);
  });
  await t.step("a huge title costs no more than its first code points", () => {
    const { parsed } = roundTrip({
      title: "ab".repeat(500_000),
      updatedAt: UPDATED_AT,
    });
    assert.equal(parsed.padBytes, 0);
  });
});

Deno.test("marshalTitleSlot() keeps a title exactly at the limit and cuts one byte over", async (t) => {
  const slot = (title: string): TitleSlot => ({
    title,
    source: "manual",
    updatedAt: UPDATED_AT,
  });
  await t.step("ASCII at the limit: kept whole, pad empty", () => {
    const title = "x".repeat(USER_TITLE_ROOM);
    const { line, parsed } = roundTrip(slot(title));
    assert.equal(parsed.slot.title, title);
    assert.equal(parsed.padBytes, 0);
    assert.ok(line.endsWith('"pad":""}'));
  });
  await t.step("ASCII one byte over: last character cut", () => {
    const { parsed } = roundTrip(slot("x".repeat(USER_TITLE_ROOM + 1)));
    assert.equal(parsed.slot.title, "x".repeat(USER_TITLE_ROOM));
    assert.equal(parsed.padBytes, 0);
  });
  await t.step("multi-byte last character at the limit: kept", () => {
    const title = "x".repeat(USER_TITLE_ROOM - 3) + "中";
    const { parsed } = roundTrip(slot(title));
    assert.equal(parsed.slot.title, title);
    assert.equal(parsed.padBytes, 0);
  });
  await t.step("multi-byte last character one byte over: cut whole", () => {
    const title = "x".repeat(USER_TITLE_ROOM - 2) + "中";
    const { parsed } = roundTrip(slot(title));
    assert.equal(parsed.slot.title, "x".repeat(USER_TITLE_ROOM - 2));
    assert.equal(parsed.padBytes, 2);
  });
  await t.step("one byte under: a single space of pad", () => {
    const title = "x".repeat(USER_TITLE_ROOM - 1);
    const { parsed } = roundTrip(slot(title));
    assert.equal(parsed.slot.title, title);
    assert.equal(parsed.padBytes, 1);
  });
});

Deno.test("marshalTitleSlot() counts JSON escapes when fitting the title", async (t) => {
  await t.step('a title of " characters (2 bytes each)', () => {
    const { parsed } = roundTrip({
      title: '"'.repeat(200),
      source: "manual",
      updatedAt: UPDATED_AT,
    });
    assert.equal(parsed.slot.title, '"'.repeat(USER_TITLE_ROOM / 2));
    assert.equal(parsed.padBytes, 0);
  });
  await t.step("a title of \\ characters with an odd byte left", () => {
    const { parsed } = roundTrip({
      title: "a" + "\\".repeat(200),
      source: "manual",
      updatedAt: UPDATED_AT,
    });
    assert.equal(parsed.slot.title, "a" + "\\".repeat(78));
    assert.equal(parsed.padBytes, 1);
  });
  await t.step("mixed quotes, backslashes and text", () => {
    const title = 'say "hi" to C:\\path\\'.repeat(20);
    const { parsed } = roundTrip({ title, updatedAt: UPDATED_AT });
    assert.ok(title.startsWith(parsed.slot.title));
  });
  await t.step("a lone surrogate is kept, escaped as \\uXXXX (6 bytes)", () => {
    const { line, parsed } = roundTrip({
      title: "a\ud800b",
      updatedAt: UPDATED_AT,
    });
    assert.ok(line.includes('"title":"a\\ud800b"'));
    assert.equal(parsed.slot.title, "a\ud800b");
  });
});

Deno.test("marshalTitleSlot() cleans the title before writing it", async (t) => {
  await t.step("C0, DEL and C1 controls are written as single spaces", () => {
    const { line, parsed } = roundTrip({
      title: "\ta\u0000\u0001b\u007fc\u0080\u009fd\n",
      updatedAt: UPDATED_AT,
    });
    assert.equal(parsed.slot.title, "a b c d");
    assert.ok(!line.includes("\\u00"), "no control escapes on disk");
  });
  await t.step("an all-whitespace title is written as empty", () => {
    const { parsed } = roundTrip({
      title: " \t \n\r ",
      source: "auto",
      updatedAt: UPDATED_AT,
    });
    assert.equal(parsed.slot.title, "");
  });
});

Deno.test("marshalTitleSlot() writes keys in omp's order and manual as user", async (t) => {
  const keysAndSource = (
    source: TitleSource | undefined,
  ): [string[], unknown] => {
    const slot: TitleSlot = source === undefined
      ? { title: "t", updatedAt: UPDATED_AT }
      : { title: "t", source, updatedAt: UPDATED_AT };
    const record = JSON.parse(decode(marshalTitleSlot(slot)));
    return [Object.keys(record), record.source];
  };
  const withSource = ["type", "v", "title", "source", "updatedAt", "pad"];
  await t.step("manual is written as user", () => {
    assert.deepEqual(keysAndSource("manual"), [withSource, "user"]);
  });
  await t.step("auto is written as auto", () => {
    assert.deepEqual(keysAndSource("auto"), [withSource, "auto"]);
  });
  await t.step("subagent is written as subagent", () => {
    assert.deepEqual(keysAndSource("subagent"), [withSource, "subagent"]);
  });
  await t.step("no source: the key is omitted", () => {
    assert.deepEqual(keysAndSource(undefined), [
      ["type", "v", "title", "updatedAt", "pad"],
      undefined,
    ]);
  });
  await t.step("a new empty session's slot", () => {
    const line = decode(
      marshalTitleSlot({ title: "", updatedAt: UPDATED_AT }),
    );
    assert.equal(
      line,
      `{"type":"title","v":1,"title":"","updatedAt":"${UPDATED_AT}","pad":"${
        " ".repeat(174)
      }"}\n`,
    );
  });
});

Deno.test("marshalTitleSlot() rejects slots it cannot write", async (t) => {
  await t.step("RangeError when even an empty title does not fit", () => {
    assert.throws(
      () => marshalTitleSlot({ title: "", updatedAt: "9".repeat(300) }),
      RangeError,
    );
  });
  await t.step("metadata that leaves exactly an empty title still fits", () => {
    const base = byteLength(
      '{"type":"title","v":1,"title":"","updatedAt":"","pad":""}\n',
    );
    const updatedAt = "9".repeat(TITLE_SLOT_BYTES - base);
    const { parsed } = roundTrip({ title: "anything", updatedAt });
    assert.equal(parsed.slot.title, "");
    assert.equal(parsed.padBytes, 0);
    assert.throws(
      () => marshalTitleSlot({ title: "", updatedAt: updatedAt + "9" }),
      RangeError,
    );
  });
  await t.step("TypeError for an unknown source from untyped callers", () => {
    const slot = { title: "t", source: "user", updatedAt: UPDATED_AT };
    assert.throws(
      () => marshalTitleSlot(slot as unknown as TitleSlot),
      TypeError,
    );
  });
  await t.step("TypeError for a title that is not a string", () => {
    const slot = { title: 42, updatedAt: UPDATED_AT };
    assert.throws(
      () => marshalTitleSlot(slot as unknown as TitleSlot),
      TypeError,
    );
  });
});

/** A slot line with the given fields, serialised in the given key order. */
function slotLine(fields: Record<string, unknown>): string {
  return JSON.stringify({ type: "title", v: 1, ...fields });
}

Deno.test("parseTitleSlot() maps sources on read", async (t) => {
  const cases: [string | undefined, TitleSource | undefined][] = [
    ["user", "manual"],
    ["manual", "manual"],
    ["auto", "auto"],
    ["subagent", "subagent"],
    [undefined, undefined],
  ];
  for (const [onDisk, expected] of cases) {
    await t.step(
      `${onDisk ?? "absent"} is read as ${expected ?? "absent"}`,
      () => {
        const fields = onDisk === undefined
          ? { title: "t", updatedAt: UPDATED_AT, pad: "" }
          : { title: "t", source: onDisk, updatedAt: UPDATED_AT, pad: "" };
        const parsed = parseTitleSlot(slotLine(fields));
        const slot: TitleSlot = expected === undefined
          ? { title: "t", updatedAt: UPDATED_AT }
          : { title: "t", source: expected, updatedAt: UPDATED_AT };
        assert.deepEqual(parsed, {
          ok: true,
          slot,
          padBytes: 0,
          width: slotLine(fields).length + 1,
        });
      },
    );
  }
  await t.step("subagent round-trips through marshal", () => {
    const { parsed } = roundTrip({
      title: "child",
      source: "subagent",
      updatedAt: UPDATED_AT,
    });
    assert.equal(parsed.slot.source, "subagent");
  });
  await t.step("manual round-trips through marshal (via user)", () => {
    const { line, parsed } = roundTrip({
      title: "mine",
      source: "manual",
      updatedAt: UPDATED_AT,
    });
    assert.ok(line.includes('"source":"user"'));
    assert.equal(parsed.slot.source, "manual");
  });
});

Deno.test("parseTitleSlot() returns ok:false for a malformed title record", async (t) => {
  const secret = "SECRET-TITLE-TEXT";
  const good = {
    title: secret,
    source: "user",
    updatedAt: UPDATED_AT,
    pad: "  ",
  };
  const cases: Record<string, string> = {
    "unknown source": slotLine({ ...good, source: "robot" }),
    "source null": slotLine({ ...good, source: null }),
    "missing pad": slotLine({ ...good, pad: undefined }),
    "pad not all spaces": slotLine({ ...good, pad: " \t" }),
    "pad not a string": slotLine({ ...good, pad: 3 }),
    "v 2": JSON.stringify({ type: "title", v: 2, ...good }),
    "v missing": JSON.stringify({ type: "title", ...good }),
    "v as a string": JSON.stringify({ type: "title", v: "1", ...good }),
    "title not a string": slotLine({ ...good, title: 7 }),
    "updatedAt missing": slotLine({ ...good, updatedAt: undefined }),
  };
  for (const [name, line] of Object.entries(cases)) {
    await t.step(name, () => {
      const parsed = parseTitleSlot(line);
      assert.ok(parsed !== undefined && !parsed.ok, name);
      assert.ok(parsed.reason.length > 0);
      assert.ok(!parsed.reason.includes(secret), "reason hides the title");
    });
  }
});

Deno.test("parseTitleSlot() returns undefined for a line that is not a title record", async (t) => {
  const cases: Record<string, string> = {
    "not JSON": "this is not json",
    "empty line": "",
    "torn slot": slotLine({ title: "t", updatedAt: UPDATED_AT, pad: "" })
      .slice(0, 40),
    "header line":
      '{"type":"session","version":3,"id":"01a0e775-0100-7eee-9510-1c122060007d","timestamp":"2026-09-28T10:00:00.000Z","cwd":"/tmp"}',
    "JSON null": "null",
    "JSON array": '["title"]',
    "JSON string": '"title"',
    "JSON number": "1",
    "object without type": '{"v":1,"title":"t"}',
  };
  for (const [name, line] of Object.entries(cases)) {
    await t.step(name, () => {
      assert.equal(parseTitleSlot(line), undefined);
    });
  }
});

Deno.test("parseTitleSlot() tolerates a trailing carriage return", () => {
  const line = slotLine({
    title: "crlf",
    source: "auto",
    updatedAt: UPDATED_AT,
    pad: "   ",
  });
  const parsed = parseTitleSlot(`${line}\r`);
  assert.deepEqual(parsed, {
    ok: true,
    slot: { title: "crlf", source: "auto", updatedAt: UPDATED_AT },
    padBytes: 3,
    width: line.length + 2,
  });
});

Deno.test("parseTitleSlot() reports the width of a slot that is not 256 bytes", () => {
  const line = slotLine({ title: "é", updatedAt: UPDATED_AT, pad: "" });
  const parsed = parseTitleSlot(line);
  assert.ok(parsed?.ok);
  assert.equal(parsed.width, byteLength(line) + 1);
  assert.notEqual(parsed.width, TITLE_SLOT_BYTES);
});

/** mulberry32: a small seeded PRNG, so a failure can be replayed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TRICKY_CODE_POINTS = [
  "a",
  "Z",
  "0",
  " ",
  " ",
  '"',
  "\\",
  "/",
  "\t",
  "\n",
  "\r",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u0080",
  "\u0085",
  "\u009f",
  "\u00a0",
  "é",
  "\u0301",
  "\u0302",
  "ß",
  "中",
  "결",
  "\u3000",
  "\u2028",
  "\u2029",
  "\u200d",
  "\ufe0f",
  "\ufeff",
  "\ufffd",
  "🐛",
  "👩",
  "🛠",
  "✂",
  "\u{10ffff}",
  "\u{1f3fb}",
];

Deno.test("marshalTitleSlot() round-trips random titles through parseTitleSlot()", () => {
  const random = prng(0x5eed);
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(random() * items.length)]!;
  const sources = [undefined, "auto", "manual", "subagent"] as const;
  const stamps = [UPDATED_AT, "2026-01-01T00:00:00Z", ""];
  let cut = 0;
  for (let i = 0; i < 600; i++) {
    const length = Math.floor(random() * 300);
    let title = "";
    for (let j = 0; j < length; j++) title += pick(TRICKY_CODE_POINTS);
    const source = pick(sources);
    const updatedAt = pick(stamps);
    const slot: TitleSlot = source === undefined
      ? { title, updatedAt }
      : { title, source, updatedAt };
    const context = `case ${i}: ${JSON.stringify(slot)}`;
    const { parsed } = roundTrip(slot);
    const cleaned = cleanTitle(title);
    const got = parsed.slot.title;
    assert.ok(cleaned.startsWith(got), context);
    assert.ok(got.isWellFormed(), context);
    assert.equal(parsed.slot.source, source, context);
    assert.equal(parsed.slot.updatedAt, updatedAt, context);
    if (got.length < cleaned.length) {
      // Maximal: the next code point, escaped, would not fit in the pad.
      const next = String.fromCodePoint(cleaned.codePointAt(got.length)!);
      const nextBytes = byteLength(JSON.stringify(next)) - 2;
      assert.ok(parsed.padBytes < nextBytes, context);
      cut++;
    }
  }
  // The pool and lengths are chosen so both branches are well exercised.
  assert.ok(cut > 150 && cut < 450, `${cut} of 600 titles were cut`);
});

/** Line 1 of a fixture and the last title_change entry in it, if any. */
async function readFixture(
  name: string,
): Promise<{ slotBytes: Uint8Array; titleChange?: Record<string, string> }> {
  const bytes = await Deno.readFile(
    new URL(`../../fixtures/omp/${name}.jsonl`, import.meta.url),
  );
  const lines = decode(bytes).split("\n");
  const changes = lines.filter((line) =>
    line.startsWith('{"type":"title_change"')
  );
  const last = changes.at(-1);
  const slotBytes = bytes.subarray(0, TITLE_SLOT_BYTES);
  return last === undefined
    ? { slotBytes }
    : { slotBytes, titleChange: JSON.parse(last) };
}

function sourceFromDisk(source: string | undefined): TitleSource | undefined {
  if (source === undefined) return undefined;
  return source === "user" ? "manual" : source as TitleSource;
}

Deno.test("marshalTitleSlot() reproduces omp's slots byte for byte", async (t) => {
  await t.step("s1-main: a user title truncated to pad 0", async () => {
    const { slotBytes, titleChange } = await readFixture("s1-main");
    assert.equal(titleChange?.source, "user");
    const title = titleChange!.title!;
    assert.equal(titleChange!.timestamp, UPDATED_AT);
    const bytes = marshalTitleSlot({
      title,
      source: "manual",
      updatedAt: UPDATED_AT,
    });
    assert.deepEqual(bytes, slotBytes);
    const parsed = parseTitleSlot(decode(bytes).slice(0, -1));
    assert.ok(parsed?.ok);
    assert.equal(parsed.padBytes, 0);
    assert.ok(title.startsWith(parsed.slot.title));
    assert.ok(parsed.slot.title.length < title.length);
  });
  await t.step("s2-main: a user title that fits, pad 18", async () => {
    const { slotBytes, titleChange } = await readFixture("s2-main");
    const bytes = marshalTitleSlot({
      title: titleChange!.title!,
      source: sourceFromDisk(titleChange!.source)!,
      updatedAt: titleChange!.timestamp!,
    });
    assert.deepEqual(bytes, slotBytes);
    const parsed = parseTitleSlot(decode(bytes).slice(0, -1));
    assert.ok(parsed?.ok);
    assert.equal(parsed.padBytes, 18);
    assert.equal(parsed.slot.title, titleChange!.title);
  });
  await t.step(
    "s1-edge: a raw title with tab and newline is stored cleaned",
    async () => {
      const { slotBytes, titleChange } = await readFixture("s1-edge");
      // omp logs the cleaned title in title_change; the raw one was this.
      assert.equal(titleChange!.title, "edge case with control chars 1 ✓");
      for (
        const title of [
          "edge\tcase\nwith control chars 1 ✓",
          titleChange!.title!,
        ]
      ) {
        const bytes = marshalTitleSlot({
          title,
          source: "manual",
          updatedAt: titleChange!.timestamp!,
        });
        assert.deepEqual(bytes, slotBytes);
      }
    },
  );
  for (const name of ["s1-empty", "s2-empty", "s1-subagent", "s2-subagent"]) {
    await t.step(
      `${name}: a new session's empty slot without source`,
      async () => {
        const { slotBytes } = await readFixture(name);
        const parsed = parseTitleSlot(decode(slotBytes).slice(0, -1));
        assert.ok(parsed?.ok);
        assert.deepEqual(Object.keys(parsed.slot), ["title", "updatedAt"]);
        const bytes = marshalTitleSlot({
          title: "",
          updatedAt: parsed.slot.updatedAt,
        });
        assert.deepEqual(bytes, slotBytes);
      },
    );
  }
});

Deno.test("parseTitleSlot() reads every omp fixture's slot as omp does", async (t) => {
  const names = [
    "main",
    "fork",
    "branched",
    "subagent",
    "reset",
    "edge",
    "empty",
  ]
    .flatMap((shape) => [`s1-${shape}`, `s2-${shape}`]);
  for (const name of names) {
    await t.step(name, async () => {
      const { slotBytes } = await readFixture(name);
      const context = JSON.parse(
        await Deno.readTextFile(
          new URL(`../../fixtures/omp/${name}.context.json`, import.meta.url),
        ),
      );
      const expected = context.titleSlot;
      const parsed = parseTitleSlot(decode(slotBytes).slice(0, -1));
      assert.ok(parsed?.ok);
      assert.equal(parsed.width, TITLE_SLOT_BYTES);
      assert.equal(parsed.padBytes, expected.padBytes);
      assert.equal(parsed.slot.title, expected.title);
      assert.equal(parsed.slot.updatedAt, expected.updatedAt);
      assert.equal(
        parsed.slot.source,
        sourceFromDisk(expected.source ?? undefined),
      );
      // Re-marshalling what was read gives back the same bytes.
      assert.deepEqual(marshalTitleSlot(parsed.slot), slotBytes);
    });
  }
});
