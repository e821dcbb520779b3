import { deepStrictEqual, equal } from "node:assert/strict";
import fc from "fast-check";
import {
  formatBytes,
  formatBytesOf,
  graphemeCells,
  sanitize,
  textWidth,
  truncate,
} from "../../src/cli/_format.ts";
import { formatMoney } from "../../src/format/numbers.ts";
import { escapeMarkdownInline } from "../../src/export/_escape.ts";

Deno.test("textWidth() counts terminal cells", () => {
  equal(textWidth("abc"), 3);
  equal(textWidth("去掉全局"), 8);
  equal(textWidth("결과"), 4);
  equal(textWidth("🛠️"), 2);
  equal(textWidth("🐛🐛"), 4);
  equal(textWidth("e\u0301"), 1);
  equal(textWidth("✓"), 1);
});

Deno.test("textWidth() and truncate() cut graphemes as Intl.Segmenter does", () => {
  // Pieces of every kind: CJK, Hangul syllables and jamo, combining and
  // spacing marks, a virama (Indic conjunct), variation selectors, emoji
  // with modifiers, joiners and flags, a prepended letter, a soft hyphen, a
  // keycap; most texts are drawn from the simpler ones alone.
  const simple = [
    "a",
    " ",
    "—",
    "é",
    "e\u0301",
    "去",
    "ファ",
    "세",
    "क",
    "\u094d",
    "ष",
    "\u0d4e",
    "\u1100\u1161",
    "\u11a8",
    "🛠",
    "\ufe0f",
    "\ufe0e",
    "🐛",
    "👍🏽",
    "✓",
    "©",
    "\u{20000}",
    "\u0300",
  ];
  const other = [
    "\u093e",
    "\u200d",
    "👩\u200d💻",
    "🇫🇷",
    "🇩",
    "\u00ad",
    "1\ufe0f\u20e3",
  ];
  const text = fc.oneof(
    {
      arbitrary: fc.array(fc.constantFrom(...simple), { maxLength: 8 }),
      weight: 3,
    },
    {
      arbitrary: fc.array(fc.constantFrom(...simple, ...other), {
        maxLength: 12,
      }),
      weight: 1,
    },
  ).map((p) => p.join(""));
  const segmenter = new Intl.Segmenter();
  fc.assert(
    fc.property(text, fc.integer({ min: 0, max: 20 }), (t, width) => {
      const graphemes = Array.from(segmenter.segment(t), (s) => s.segment);
      const cells = graphemes.map(graphemeCells);
      equal(textWidth(t), cells.reduce((n, c) => n + c, 0));
      // The cut keeps whole graphemes from the start, up to width - 1 cells.
      const cut = truncate(t, width);
      if (textWidth(t) <= width) equal(cut, t);
      else if (width > 0) {
        let used = 1;
        let kept = 0;
        while (kept < graphemes.length && used + cells[kept]! <= width) {
          used += cells[kept++]!;
        }
        equal(cut, graphemes.slice(0, kept).join("") + "…");
      }
    }),
    { numRuns: 3000 },
  );
});

Deno.test("truncate() cuts at a grapheme and marks the cut", () => {
  equal(truncate("hello world", 20), "hello world");
  equal(truncate("hello world", 6), "hello…");
  equal(truncate("/home/ann/src/app", 8, "start"), "…src/app");
  equal(truncate("去掉全局", 6), "去掉…");
  equal(truncate("🛠️🛠️", 4), "🛠️🛠️");
  equal(truncate("🛠️🛠️", 3), "🛠️…");
  equal(truncate("abc", 0), "");
});

Deno.test("sanitize() keeps text and drops control characters", () => {
  equal(sanitize("ok ✓"), "ok ✓");
  equal(sanitize("a\u0007b\u009bc\u2028d"), "a b c d");
  // Right-to-left text keeps its letters; only the invisible controls go.
  equal(sanitize("\u202eabc\u202c \u05e9\u05dc\u05d5\u05dd"), " abc  שלום");
});

Deno.test("sanitize() drops each bidirectional control, the same set the export drops", () => {
  const bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069" +
    "\u200e\u200f\u061c";
  equal(sanitize(`a${bidi}b`), `a${" ".repeat(12)}b`);
  // Every code point of the first plane: what the export's one-line escape
  // makes a space, sanitize() makes a space, and nothing else.
  for (let c = 0; c <= 0xffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue; // lone surrogates
    const ch = String.fromCharCode(c);
    const exported = escapeMarkdownInline(ch) === " " && ch !== " ";
    const shown = sanitize(ch) === " " && ch !== " ";
    equal(shown, exported, `U+${c.toString(16).padStart(4, "0")}`);
  }
});

Deno.test("formatBytes() uses the binary units gen --size reads", () => {
  equal(formatBytes(0), "0 B");
  equal(formatBytes(1023), "1023 B");
  equal(formatBytes(1536), "1.5 KB");
  equal(formatBytes(100 * 1024 * 1024), "100.0 MB");
  equal(formatBytes(3 * 1024 ** 3), "3.0 GB");
});

Deno.test("formatBytesOf() puts both counts in the total's unit", () => {
  equal(formatBytesOf(45 * 1024 * 1024, 100 * 1024 * 1024), "45.0/100.0 MB");
  equal(formatBytesOf(0, 2 * 1024 * 1024), "0.0/2.0 MB");
  equal(formatBytesOf(12, 1000), "12/1000 B");
});

Deno.test("formatMoney() shows cents from a dollar, four decimals below", () => {
  deepStrictEqual(
    [0, 0.00004, 0.0048, 0.96956, 1234.5].map((d) => formatMoney(d)),
    ["$0.00", "<$0.0001", "$0.0048", "$0.9696", "$1,234.50"],
  );
});
