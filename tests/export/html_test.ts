import { equal } from "node:assert/strict";
import { codeBlockHtml, textToHtml } from "../../src/export/_html.ts";

const F = "`".repeat(3);

Deno.test("textToHtml() makes paragraphs of blank-line-separated text, code spans of backticks", () => {
  equal(
    textToHtml("one\nline two\n\n  \n`a<b` c"),
    "<p>one\nline two</p>\n<p><code>a&lt;b</code> c</p>",
  );
  equal(textToHtml(""), "");
  equal(
    textToHtml(`Use \`<b>\`:\n\n${F}html\n<script>x</script>\n${F}`),
    "<p>Use <code>&lt;b&gt;</code>:</p>\n" +
      '<pre><code data-lang="html">&lt;script&gt;x&lt;/script&gt;</code></pre>',
  );
});

Deno.test("textToHtml() shows fenced code verbatim, a plain language name as data-lang", () => {
  equal(
    textToHtml(`${F}ts\nlet a = "<x>";\n${F}`),
    '<pre><code data-lang="ts">let a = &quot;&lt;x&gt;&quot;;</code></pre>',
  );
  equal(textToHtml(`${F}"><img src=x>\nz\n${F}`), "<pre><code>z</code></pre>");
  equal(
    textToHtml(`${F}\nunclosed <b>`),
    "<pre><code>unclosed &lt;b&gt;</code></pre>",
  );
});

Deno.test("textToHtml() shows a heading line as a bold paragraph, its text escaped", () => {
  equal(
    textToHtml("## Plan <now> ##\nstep 1"),
    '<p class="heading">Plan &lt;now&gt;</p>\n<p>step 1</p>',
  );
  equal(textToHtml("#tag stays"), "<p>#tag stays</p>");
});

Deno.test("codeBlockHtml() escapes everything, markup and control characters", () => {
  equal(
    codeBlockHtml("</pre><script>\x00"),
    "<pre><code>&lt;/pre&gt;&lt;script&gt;\ufffd</code></pre>",
  );
  equal(codeBlockHtml("a < b"), "<pre><code>a &lt; b</code></pre>");
});

/** Whether `f` returns within `seconds` (the backtracking bugs took minutes). */
function _within(seconds: number, f: () => unknown): boolean {
  const start = performance.now();
  f();
  return performance.now() - start < seconds * 1000;
}

Deno.test("textToHtml() stays linear on adversarial whitespace: a heading's trailing run, a paragraph of spaces", async (t) => {
  const cases: [string, string][] = [
    // `[ \t]+#*[ \t]*$` after the heading's marks backtracked cubically.
    ["a heading: a, 8,000 spaces, b", `# a${" ".repeat(8000)}b`],
    ["a heading: a, 300,000 spaces, b", `# a${" ".repeat(300_000)}b`],
    ["a heading: a, 300,000 tabs and #", `# a${"\t#".repeat(150_000)}b`],
    // `\s+$` over a paragraph backtracked quadratically.
    ["a paragraph of 400 KB of spaces, then x", `${" ".repeat(400_000)}x`],
    ["a paragraph of 400 KB of spaces and line breaks", " \n".repeat(200_000)],
    ["a paragraph of blank-ish lines, then x", `${" \t\n".repeat(130_000)}x`],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      let html = "";
      equal(_within(5, () => html = textToHtml(text)), true);
      equal(html.includes("\ufffd"), false);
    });
  }
});

Deno.test("textToHtml() strips a heading's closing #s and the blanks around them, and nothing else", () => {
  equal(textToHtml("# a  ##  "), '<p class="heading">a</p>');
  equal(textToHtml("# a\t#"), '<p class="heading">a</p>');
  equal(textToHtml("# a#"), '<p class="heading">a#</p>');
  equal(textToHtml("# a # b"), '<p class="heading">a # b</p>');
  equal(textToHtml("# #"), "");
  equal(textToHtml("\n  \nx  \n \t"), "<p>x</p>");
  equal(textToHtml(" \n\t\n  x\ny \u00a0"), "<p>  x\ny</p>");
});
