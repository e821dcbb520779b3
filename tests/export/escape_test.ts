import { deepEqual, equal } from "node:assert/strict";
import {
  codeSpans,
  escapeHtml,
  escapeMarkdownInline,
  fenced,
  longestBacktickRun,
  relativeHref,
  splitFences,
  withoutControls,
} from "../../src/export/_escape.ts";

const F = "`".repeat(3);

Deno.test("escapeHtml() escapes the five characters markup needs, and control characters", () => {
  equal(
    escapeHtml(`<a href="x" title='y'>&amp;</a>`),
    "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;",
  );
  equal(
    escapeHtml("nul\x00 esc\x1b del\x7f tab\t lf\n"),
    "nul\ufffd esc\ufffd del\ufffd tab\t lf\n",
  );
  equal(
    escapeHtml(`<img src=x onerror="a('b')">&`),
    "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;",
  );
});

Deno.test("withoutControls() keeps tab, line feed and carriage return", () => {
  equal(withoutControls("a\tb\r\nc\x01"), "a\tb\r\nc\ufffd");
  equal(withoutControls("a\x00b\x1b[2J\tc"), "a\ufffdb\ufffd[2J\tc");
});

Deno.test("escapeMarkdownInline() makes a short string one line of literal text", () => {
  equal(
    escapeMarkdownInline("# *a* _b_ `c` [d](e) <f> !g ~h~ |i| &j; \\k"),
    "\\# \\*a\\* \\_b\\_ \\`c\\` \\[d\\](e) \\<f\\> \\!g \\~h\\~ \\|i\\| \\&j; \\\\k",
  );
  equal(escapeMarkdownInline("two\nlines\x1b"), "two lines ");
  equal(
    escapeMarkdownInline("Fix <b>\n[x](y) #1"),
    "Fix \\<b\\> \\[x\\](y) \\#1",
  );
});

Deno.test("fenced() uses a fence longer than any backtick run inside, at least three", () => {
  equal(fenced("plain"), "```\nplain\n```");
  equal(fenced("a `` b ````` c", "text"), "``````text\na `` b ````` c\n``````");
  equal(fenced(""), "```\n```");
  equal(fenced("ends\n"), "```\nends\n```");
  equal(
    fenced(`${F}\nrm -rf /\n${F}`, "text"),
    `\`${F}text\n${F}\nrm -rf /\n${F}\n\`${F}`,
  );
});

Deno.test("longestBacktickRun() finds the longest run of backticks", () => {
  equal(longestBacktickRun("a `` b ````` c `"), 5);
  equal(longestBacktickRun("none"), 0);
});

Deno.test("relativeHref() percent-encodes each segment", () => {
  equal(relativeHref("a b", "c?d#e.png"), "a%20b/c%3Fd%23e.png");
  equal(relativeHref("javascript:x"), "javascript%3Ax");
  equal(
    relativeHref("my: notes-files", "ab.png"),
    "my%3A%20notes-files/ab.png",
  );
});

Deno.test("splitFences() finds backtick and tilde fences, closed by a fence of the same kind at least as long", () => {
  deepEqual(splitFences(`a\n${F}js\nx\n~~~\n${F}\nb`), [
    { code: false, text: "a" },
    { code: true, fence: F, info: "js", body: "x\n~~~", closed: true },
    { code: false, text: "b" },
  ]);
  deepEqual(splitFences("~~~~ tilde `info`\ny\n~~~\n~~~~~"), [
    {
      code: true,
      fence: "~~~~",
      info: "tilde `info`",
      body: "y\n~~~",
      closed: true,
    },
  ]);
});

Deno.test("splitFences() splits a paragraph from the code after it", () => {
  deepEqual(splitFences(`Run:\n${F}sh\nls\n${F}`), [
    { code: false, text: "Run:" },
    { code: true, fence: F, info: "sh", body: "ls", closed: true },
  ]);
});

Deno.test("splitFences() runs an unclosed fence to the end, and takes no fence whose info holds a backtick", () => {
  deepEqual(splitFences(`${F}\nopen\nto the end`), [
    { code: true, fence: F, info: "", body: "open\nto the end", closed: false },
  ]);
  deepEqual(splitFences(`${F} a\`b\ntext`), [{
    code: false,
    text: `${F} a\`b\ntext`,
  }]);
  deepEqual(splitFences(`    ${F}\nindented four`), [{
    code: false,
    text: `    ${F}\nindented four`,
  }]);
});

Deno.test("codeSpans() pairs runs of equal length and leaves the others as text", () => {
  const show = (s: string) =>
    codeSpans(s).map((p) => p.code ? `[${p.text}]` : p.text).join("|");
  deepEqual(show("a `b` c"), "a |[b]| c");
  deepEqual(codeSpans("use `a<b` then ` alone"), [
    { code: false, text: "use " },
    { code: true, text: "a<b" },
    { code: false, text: " then ` alone" },
  ]);
  deepEqual(show("``x ` y`` z"), "[x ` y]| z");
  deepEqual(show("` `` ``` lone"), "` `` ``` lone");
  deepEqual(show("`a``b`"), "[a``b]");
  deepEqual(show(""), "");
});

Deno.test("codeSpans() stays linear on many unmatched runs of distinct lengths", () => {
  let text = "";
  for (let n = 1; n <= 2000; n++) text += "`".repeat(n) + "x";
  const start = performance.now();
  deepEqual(codeSpans(text).length, 1);
  const ms = performance.now() - start;
  if (ms > 1000) throw new Error(`took ${ms} ms`);
});

Deno.test("splitFences() stays linear on a fence line that ends in a carriage return or a line separator", async (t) => {
  for (const end of ["\r", "\u2028"]) {
    await t.step(JSON.stringify(end), () => {
      // `(.*)$` stopped at the character and backtracked over the run.
      const line = `${"`".repeat(300_000)}${end}`;
      const start = performance.now();
      const segments = splitFences(`${line}\nbody\n${line}\nafter`);
      equal(performance.now() - start < 5000, true);
      // A fence, as a CommonMark parser reads it (its info is the character).
      equal(segments[0]!.code, true);
    });
  }
});

Deno.test("codeSpans() reads a backslash-escaped backtick as text, as CommonMark does", () => {
  const show = (s: string) =>
    codeSpans(s).map((p) => p.code ? `[${p.text}]` : p.text).join("|");
  deepEqual(show("\\`a` b"), "\\`a` b");
  deepEqual(show("\\\\`a` b"), "\\\\|[a]| b");
  // The escaped backtick is text; the run's rest opens a span.
  deepEqual(show("\\``a` b"), "\\`|[a]| b");
  // No escape inside a span: its backslash is code.
  deepEqual(show("`a\\` b`"), "[a\\]| b`");
  deepEqual(show("x \\``` y `` z"), "x \\`|[ y ]| z");
});

Deno.test("codeSpans() stays linear on runs of backslashes before backticks", () => {
  const text = `${"\\".repeat(200_000)}\`x${"\\`".repeat(100_000)}`;
  const start = performance.now();
  codeSpans(text);
  equal(performance.now() - start < 5000, true);
});

Deno.test("withoutControls() and escapeHtml() replace bidirectional controls, escapeMarkdownInline() makes them spaces", () => {
  const bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069" +
    "\u200e\u200f\u061c";
  equal(withoutControls(`a${bidi}b`), `a${"\ufffd".repeat(12)}b`);
  equal(escapeHtml(`<${bidi}>`), `&lt;${"\ufffd".repeat(12)}&gt;`);
  equal(escapeMarkdownInline(`a${bidi}b`), `a${" ".repeat(12)}b`);
  // Right-to-left text itself is kept.
  equal(withoutControls("שלום مرحبا"), "שלום مرحبا");
});
