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
