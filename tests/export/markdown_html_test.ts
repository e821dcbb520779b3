import { deepEqual, equal, ok } from "node:assert/strict";
import {
  codeBlockHtml,
  markdownHtml,
} from "../../src/export/_markdown_html.ts";

const F = "`".repeat(3);

/** The tags of an HTML text, by name. */
function tagNames(html: string): string[] {
  return [...html.matchAll(/<\/?([a-z0-9]+)/g)].map((m) => m[1]!);
}

Deno.test("markdownHtml() renders Markdown in full: emphasis, lists, tables, links, quotes", () => {
  const html = markdownHtml(
    "**bold** and *it* ~~gone~~\n\n- one\n- two\n\n1. first\n\n" +
      "| a | b |\n|--:|:-:|\n| 1 | 2 |\n\n> quoted\n\n[pi](https://pi.dev) <https://a.b/c> mail@x.org",
  );
  for (
    const tag of [
      "strong",
      "em",
      "s",
      "ul",
      "ol",
      "li",
      "table",
      "th",
      "td",
      "blockquote",
      "a",
    ]
  ) ok(tagNames(html).includes(tag), tag);
  ok(html.includes('<a href="https://pi.dev" rel="noreferrer">pi</a>'));
  ok(
    html.includes('<a href="https://a.b/c" rel="noreferrer">https://a.b/c</a>'),
  );
  ok(
    html.includes(
      '<a href="mailto:mail@x.org" rel="noreferrer">mail@x.org</a>',
    ),
  );
  // Alignment as a class: the page's policy refuses style attributes.
  ok(html.includes('<th class="align-right">a</th>'));
  ok(html.includes('<td class="align-center">2</td>'));
  ok(!html.includes("style="));
});

Deno.test("markdownHtml() keeps raw HTML as text and links only to web and mail addresses", async (t) => {
  const cases: [string, string][] = [
    ["<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    [
      '<img src=x onerror="alert(1)">',
      "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;",
    ],
    ["[a](javascript:alert(1))", "[a](javascript:alert(1))"],
    ["[a](JaVaScRiPt:alert(1))", "[a](JaVaScRiPt:alert(1))"],
    ["[a](jav&#x61;script:alert(1))", "[a](javascript:alert(1))"],
    ["[a](data:text/html,x)", "[a](data:text/html,x)"],
    ["[a](vbscript:x)", "[a](vbscript:x)"],
    ["[a](file:///etc/passwd)", "[a](file:///etc/passwd)"],
    ["[a](../secret)", "[a](../secret)"],
    ["[r]\n\n[r]: javascript:alert(1)", "[r]"],
    ["<javascript:alert(1)>", "&lt;javascript:alert(1)&gt;"],
  ];
  for (const [text, shown] of cases) {
    await t.step(text, () => {
      const html = markdownHtml(text);
      ok(
        !tagNames(html).some((n) => n === "a" || n === "img" || n === "script"),
        html,
      );
      ok(html.includes(shown), html);
    });
  }
});

Deno.test("markdownHtml() shows an image as a link to it: no request leaves the page", () => {
  const html = markdownHtml(
    "![a chart](https://evil.test/t.png) ![x](data:image/png;base64,AAAA)",
  );
  ok(!html.includes("<img"));
  ok(
    html.includes(
      '<a class="image" href="https://evil.test/t.png" rel="noreferrer">🖼 a chart</a>',
    ),
  );
  ok(html.includes("![x](data:image/png;base64,AAAA)"), "a data URL is text");
});

Deno.test("markdownHtml() moves headings two levels down and replaces control and bidirectional characters", () => {
  equal(markdownHtml("# Plan\n###### deep"), "<h3>Plan</h3>\n<h6>deep</h6>\n");
  const html = markdownHtml("a\u202eb\x00c\x1b[31m");
  // deno-lint-ignore no-control-regex
  ok(!/[\u202e\x00\x1b]/.test(html));
  equal(html, "<p>a\ufffdb\ufffdc\ufffd[31m</p>\n");
});

Deno.test("markdownHtml() highlights fenced code of a known language and escapes any other", () => {
  equal(
    markdownHtml(`${F}ts\nlet a = "<x>";\n${F}`),
    '<pre><code class="hljs" data-lang="ts"><span class="hljs-keyword">let</span> a = <span class="hljs-string">&quot;&lt;x&gt;&quot;</span>;</code></pre>\n',
  );
  equal(
    markdownHtml(`${F}"><img src=x>\n</pre><b>\n${F}`),
    '<pre><code class="hljs">&lt;/pre&gt;&lt;b&gt;</code></pre>\n',
  );
  equal(
    markdownHtml(`${F}nolang\nunclosed <b>`),
    '<pre><code class="hljs" data-lang="nolang">unclosed &lt;b&gt;</code></pre>\n',
  );
});

Deno.test("codeBlockHtml() escapes everything, markup and control characters", () => {
  equal(
    codeBlockHtml("</pre><script>\x00"),
    '<pre><code class="hljs">&lt;/pre&gt;&lt;script&gt;\ufffd</code></pre>',
  );
  equal(
    codeBlockHtml('{"a": 1}', "json"),
    '<pre><code class="hljs" data-lang="json"><span class="hljs-punctuation">{</span><span class="hljs-attr">&quot;a&quot;</span><span class="hljs-punctuation">:</span> <span class="hljs-number">1</span><span class="hljs-punctuation">}</span></code></pre>',
  );
});

/** Whether `f` returns within `seconds` (the backtracking bugs took minutes). */
function _within(seconds: number, f: () => unknown): boolean {
  const start = performance.now();
  f();
  return performance.now() - start < seconds * 1000;
}

Deno.test("markdownHtml() stays linear on adversarial text", async (t) => {
  const cases: [string, string][] = [
    ["a heading: a, 300,000 spaces, b", `# a${" ".repeat(300_000)}b`],
    ["a heading: a, 300,000 tabs and #", `# a${"\t#".repeat(150_000)}b`],
    ["a paragraph of 400 KB of spaces, then x", `${" ".repeat(400_000)}x`],
    ["400 KB of spaces and line breaks", " \n".repeat(200_000)],
    ["100,000 unclosed links", "[a](".repeat(100_000)],
    ["100,000 escaped backticks", "\\``".repeat(100_000)],
    ["100,000 emphasis openers", "*a ".repeat(100_000)],
    ["100,000 brackets", "[".repeat(100_000)],
    ["50,000 bare link starts", "http://a.".repeat(50_000)],
    ["50,000 nested quotes", `${"> ".repeat(50_000)}x`],
    ["50,000 nested lists", `${"- ".repeat(50_000)}x`],
    ["100,000 table pipes", `|${"a|".repeat(50_000)}\n|${"-|".repeat(50_000)}`],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      let html = "";
      equal(_within(5, () => html = markdownHtml(text)), true);
      deepEqual(html.match(/<(script|img|iframe)/), null);
    });
  }
});
