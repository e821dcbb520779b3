import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import fc from "fast-check";
import { caseVariants, fold, foldCodePoint } from "../../src/search/_fold.ts";
import { ByteNeedle } from "../../src/search/_needle.ts";
import { regexMatcher, SearchQuery } from "../../src/search/_query.ts";
import { ftsMatch, shortWords } from "../../src/index/_narrowing.ts";

Deno.test("caseVariants() gives every code point with the same fold, checked against all of them", () => {
  const groups = new Map<number, number[]>();
  for (let c = 0; c < 0x110000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const f = foldCodePoint(c);
    if (c >= 0x20000) {
      equal(f, c, `U+${c.toString(16)} has a case above plane 1`);
      continue;
    }
    if (f === c && groups.get(f) === undefined) continue;
    const g = groups.get(f) ?? [f];
    if (f !== c) g.push(c);
    groups.set(f, g);
  }
  for (const [f, members] of groups) {
    for (const c of members) {
      deepEqual(
        [...caseVariants(c)].sort((a, b) => a - b),
        [...new Set(members)].sort((a, b) => a - b),
        `the variants of U+${c.toString(16)} (fold U+${f.toString(16)})`,
      );
    }
  }
});

Deno.test("fold() folds one code point at a time, keeping the length", () => {
  equal(
    fold("ÉCOLE Straße ΟΔΟΣ İstanbul K"),
    "école straße οδοσ i̇stanbul k".replace("i̇", "İ"),
  );
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom(..."aZéÉΣσςİıßẞK漢😀 \n".split("")) }),
      (s) => {
        const byCodePoint = [...s].map((c) =>
          String.fromCodePoint(foldCodePoint(c.codePointAt(0)!))
        ).join("");
        equal(fold(s), byCodePoint);
        equal(fold(s).length, s.length);
      },
    ),
  );
});

Deno.test("SearchQuery.parse() reads words, phrases and prefixes; nothing is an operator", async (t) => {
  await t.step("terms", () => {
    deepEqual(SearchQuery.parse('Foo "Bar  baz" qu* OR -x').terms, [
      { kind: "word", words: ["foo"] },
      { kind: "phrase", words: ["bar", "baz"] },
      { kind: "prefix", words: ["qu"] },
      { kind: "word", words: ["or"] },
      { kind: "word", words: ["-x"] },
    ]);
  });
  await t.step("every word must match, anywhere, in any case", () => {
    const q = SearchQuery.parse("ABC 検索");
    deepEqual(q.match("xx検索テストabc123"), { start: 2, end: 4 });
    equal(q.match("abc only"), undefined);
  });
  await t.step(
    "a phrase: its words in order, apart only by white space",
    () => {
      const q = SearchQuery.parse('"red fox"');
      ok(q.match("a Red\n\t fox") !== undefined);
      equal(q.match("red, fox"), undefined);
      equal(q.match("fox red"), undefined);
    },
  );
  await t.step("a prefix: at a word's start (after CJK too)", () => {
    const q = SearchQuery.parse("test*");
    ok(q.match("(testing)") !== undefined);
    ok(q.match("検索testing") !== undefined);
    equal(q.match("contest"), undefined);
    ok(SearchQuery.parse("test").match("contest") !== undefined);
  });
  await t.step("the full-text expression quotes every trigram", () => {
    equal(
      ftsMatch(SearchQuery.parse('say"hi NEAR( ab "x y z"')),
      '"say" AND "ay""" AND "y""h" AND """hi" AND "nea" AND "ear" AND "ar("',
    );
    equal(ftsMatch(SearchQuery.parse("ab 検索")), undefined);
    deepEqual(shortWords(SearchQuery.parse("ab 検索 AB")), ["ab", "検索"]);
    deepEqual(shortWords(SearchQuery.parse("ab abc")), []);
  });
  await t.step("NUL and empty queries are refused", () => {
    throws(() => SearchQuery.parse("a\0"), TypeError);
    throws(() => SearchQuery.parse(' "" '), TypeError);
  });
});

/**
 * JSON as a writer that escapes non-ASCII and HTML characters writes it;
 * with `some`, only the characters it picks.
 */
function escapedJson(text: string, some?: (i: number) => boolean): string {
  let i = 0;
  const unit = (u: number) => `\\u${u.toString(16).padStart(4, "0")}`;
  return JSON.stringify(text).replace(
    /[^\x20-\x7e]|[<>&']/gu, // a surrogate pair is one character
    (c) =>
      some !== undefined && !some(i++)
        ? c
        : [...Array(c.length).keys()].map((k) => unit(c.charCodeAt(k))).join(
          "",
        ),
  );
}

/**
 * JSON that spells the code units `pick` chooses as `\uXXXX`, whatever
 * they are (JSON allows it for every character: `z\u0065bra` is "zebra").
 */
function anyEscapedJson(text: string, pick: (i: number) => boolean): string {
  let out = "";
  for (let k = 0; k < text.length; k++) {
    const u = text.charCodeAt(k);
    out += pick(k)
      ? `\\u${u.toString(16).padStart(4, "0")}`
      : JSON.stringify(text[k]).slice(1, -1);
  }
  return `"${out}"`;
}

Deno.test("ByteNeedle never drops a line whose text matches, however the JSON was written", () => {
  const enc = new TextEncoder();
  const unit = fc.constantFrom(...'aAkKsSéÉσΣς<&"\\/\n\t 検索😀-'.split(""));
  fc.assert(
    fc.property(
      fc.string({ unit, minLength: 1, maxLength: 30 }),
      fc.nat(),
      fc.nat(),
      fc.constantFrom("plain", "escaped", "mixed", "any"),
      fc.nat(),
      (text, i, n, writer, seed) => {
        const start = i % text.length;
        const word = text.slice(start, start + 1 + (n % 8)).trim();
        const plain = word.replaceAll('"', "");
        if (plain === "" || /\s/.test(plain)) return;
        const query = SearchQuery.parse(plain);
        if (query.match(text) === undefined) return;
        const needle = ByteNeedle.of(query);
        if (needle === undefined) return;
        const pick = (k: number) => ((seed >> (k % 30)) & 1) === 1;
        const json = writer === "plain"
          ? JSON.stringify(text)
          : writer === "any"
          ? anyEscapedJson(text, pick)
          : escapedJson(text, writer === "mixed" ? pick : undefined);
        // As the scan asks, over the line's bytes.
        const found = needle.in(enc.encode(`{"content":${json}}`));
        ok(found, `${word} in ${json}`);
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("ByteNeedle drops a line that cannot hold a match, and keeps one whose characters are written in any of their forms", () => {
  const line = (s: string) => new TextEncoder().encode(`{"text":"${s}"}`);
  const cases: [string, string, boolean][] = [
    ["zqxj", "no such word here", false],
    ["zqxj", "a ZqXj b", true],
    ["検索", "検 索 and 索検", false],
    ["検索", "検索", true],
    ["検索", "\\u691c\\u7D22", true],
    ["検索", "検\\u7d22", true],
    ["検索", "\\u691c索", true],
    ["検索", "\\u691c\\u7d23", false],
    ["crème", "cr\\u00e8me", true],
    ["crème", "CR\\u00C8ME", true],
    ["crème", "cr\\u00e9me", false],
    ["🦄", "\\ud83e\\udd84", true],
    // Any character may be written as an escape, ASCII too.
    ["zebra", "z\\u0065bra crossing", true],
    ["zebra", "\\u005A\\u0045BRA", true],
    ["zebra", "zebr\\u0061", true],
    ["zebra", "z\\u0066bra", false],
    ["zebra", "\\u001b[0m zebr a", false],
    ["crème", "\\u0063r\\u00e8me", true],
  ];
  for (const [word, text, want] of cases) {
    const needle = ByteNeedle.of(SearchQuery.parse(word))!;
    equal(needle.in(line(text)), want, `${word} in ${text}`);
  }
});

Deno.test('regexMatcher() runs in linear time: foo.*bar.*baz over 28 KB of "foobar" does not backtrack', async () => {
  // JavaScript's engine backtracks cubically here (about 80 s on 4,000
  // repeats); a linear one answers at once. The bound is generous.
  const text = "foobar ".repeat(4000);
  const fooBarBaz = await regexMatcher("foo.*bar.*baz");
  const nested = await regexMatcher("(x+x+)+y");
  const started = performance.now();
  equal(fooBarBaz.match(text), undefined);
  equal(nested.match("x".repeat(64 * 1024)), undefined);
  const ms = performance.now() - started;
  ok(ms < 10_000, `took ${ms} ms`);
  deepEqual(fooBarBaz.match(`${text}baz`), {
    start: 0,
    end: text.length + 3,
  });
});

Deno.test("regexMatcher() takes RE2's syntax, case-insensitively, with offsets in UTF-16 code units", async (t) => {
  await t.step("matches", async () => {
    deepEqual(
      (await regexMatcher("needle(user|asst)\\d")).match("a NEEDLEasst2"),
      {
        start: 2,
        end: 13,
      },
    );
    deepEqual((await regexMatcher("é+x")).match("😀😀ÉÉX"), {
      start: 4,
      end: 7,
    });
    deepEqual((await regexMatcher("\\p{Han}+")).match("ab 検索 c"), {
      start: 3,
      end: 5,
    });
    equal((await regexMatcher("^b")).match("a\nb"), undefined);
  });
  await t.step("what RE2 does not take is refused, saying so", async () => {
    for (const pattern of ["(a)\\1", "a(?=b)", "(?<!a)b", "(", "a{2000}"]) {
      await rejects(
        () => regexMatcher(pattern),
        (err: unknown) =>
          err instanceof TypeError &&
          /RE2 syntax/.test(err.message) && err.message.includes(pattern),
        pattern,
      );
    }
  });
});
