import { deepEqual, equal, ok } from "node:assert/strict";
import { render, unsafe } from "./_commonmark.ts";
import { MARKDOWN, safeMarkdown } from "../../src/export/_markdown.ts";

const F = "`".repeat(3);

Deno.test("safeMarkdown() escapes raw HTML outside code and leaves code alone", () => {
  equal(
    safeMarkdown("<b>x</b> `<i>` and\n\n<script>"),
    "&lt;b>x&lt;/b> `<i>` and\n\n&lt;script>",
  );
  equal(safeMarkdown(`${F}html\n<p>\n${F}`), `${F}html\n<p>\n${F}`);
  equal(
    safeMarkdown("</details><script>x</script> [a](javascript:x) `<b>`"),
    "&lt;/details>&lt;script>x&lt;/script> [a]\\(javascript:x) `<b>`",
  );
});

Deno.test("safeMarkdown() closes a fence left open, with its own fence", () => {
  equal(
    safeMarkdown(`before\n~~~~\n${F}\ninside`),
    `before\n~~~~\n${F}\ninside\n~~~~`,
  );
  equal(safeMarkdown(`${F}\nopen`), `${F}\nopen\n${F}`);
});

Deno.test("safeMarkdown() keeps web, mail and relative links, and turns other schemes to text", () => {
  equal(
    safeMarkdown(
      "[a](https://x.dev/p) [b](mailto:me@x.dev) [c](./d.md#e) [f](/g?h)",
    ),
    "[a](https://x.dev/p) [b](mailto:me@x.dev) [c](./d.md#e) [f](/g?h)",
  );
  equal(
    safeMarkdown("[a](javascript:alert(1)) ![i](data:text/html,x)"),
    "[a]\\(javascript:alert(1)) \\![i]\\(data:text/html,x)",
  );
  equal(safeMarkdown("[a]( <javascript:x>)"), "[a]\\( &lt;javascript:x>)");
  equal(
    safeMarkdown(
      "[a](&#106;avascript:x) [b](java\\script:x) [c](%6Aavascript:x)",
    ),
    "[a]\\(&#106;avascript:x) [b]\\(java\\script:x) [c]\\(%6Aavascript:x)",
  );
  equal(
    safeMarkdown("[ref]: javascript:x\n> [q]: vbscript:y\n[ok]: https://x.dev"),
    "\\[ref]: javascript:x\n> \\[q]: vbscript:y\n\\[ok]: https://x.dev",
  );
});

Deno.test("safeMarkdown() moves headings three levels down, below the export's own", () => {
  equal(
    safeMarkdown("# Title\n## Sub\n#tag\n###### six"),
    "#### Title\n##### Sub\n#tag\n###### six",
  );
});

Deno.test("safeMarkdown() re-fences a code span so its content cannot end it", () => {
  equal(
    safeMarkdown("`` a ` b ``"),
    "``  a ` b  ``".replace("``  a ` b  ``", "`` a ` b ``"),
  );
  equal(safeMarkdown("x ``a`b`` y"), "x ``a`b`` y");
});

/** URLs a link must never reach: schemes, spelled every way the spec allows. */
const _URLS = [
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "jav&#x61;script:alert(1)",
  "jav&#97;script:alert(1)",
  "&#106;avascript:alert(1)",
  "javascript&colon;alert(1)",
  "java\\script:alert(1)",
  "javascript\\:alert(1)",
  "vbscript:msgbox(1)",
  "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  "data:text/html,<script>alert(1)</script>",
  "file:///etc/passwd",
  "\u0001javascript:alert(1)",
  "%6Aavascript:alert(1)",
];

/** Every form a link, an image or raw HTML can take; `U` is the URL. */
const _FORMS = [
  "[a](U)",
  "[a]( U )",
  "[a](<U>)",
  '[a](U "title")',
  "[a](\nU)",
  "[a](\n  U\n)",
  "![a](U)",
  "[![i](https://x.dev/i.png)](U)",
  "[[a](U)](https://x.dev)",
  "[a][r]\n\n[r]: U",
  "[r][]\n\n[r]: U",
  "[r]\n\n[r]: U",
  "[R]\n\n[r]: U",
  "[r]\n\n[r]:\nU",
  "[r]\n\n[r]:\n   U\n   'title'",
  "[r]\n\n[r]: <U>",
  '[r]\n\n[r]: U\n"title"',
  "[r]\n\n   [r]: U",
  "[r s]\n\n[r\ns]: U",
  "[r]\n\n> [r]: U",
  "[r]\n\n> [r]:\n> U",
  "[r]\n\n> [r]:\nU",
  "[r]\n\n- [r]: U",
  "[r]\n\n- [r]:\n  U",
  "[r]\n\n1. [r]:\n   U",
  "[r]\n\n> - > 1) [r]:\n>   >    U",
  "[r]\n\n[ok]: https://x.dev\n[r]: U",
  "[r]\r\n\r\n[r]:\rU",
  "> [a](\n> U)",
  "- [a](\n  U)",
  "<U>",
  '<a href="U">x</a>',
  '<img src="U">',
  "<div>\n<a href='U'>x</a>\n</div>",
  "<!-- x -->\n<a href=U>x</a>",
  "text\n\n<a href=U>x</a>",
  "`x` [a](U) `y`",
  "\\`[a](U)`",
  "text `\n> <a href=U>x</a>\n`",
  '[t](/u "`") <a href=U>x</a> `',
  '[t]: /u "`"\n<a href=U>x</a> `',
  "[t]: /u\n'`'\n\n<a href=U>x</a> `",
  "- a\n  ```\n  x\n```\n```\n<a href=U>x</a>\n```",
  "x `\n===\n<a href=U>x</a> `",
  "*a `*` [b](U)",
];

/** Images a viewer would fetch: each must become a link at most. */
const _REMOTE_IMAGES = [
  "![x](https://evil.test/t.png)",
  "![x](//evil.test/t.png)",
  "![x][r]\n\n[r]: https://evil.test/t.png",
  "![r]\n\n[r]: http://evil.test/t.png",
  '<img src="https://evil.test/t.png">',
  "![x](HTTPS://evil.test/t.png)",
  "\\\\![x](https://evil.test/t.png)",
];

Deno.test("safeMarkdown() renders inert in the reference CommonMark renderer: no raw HTML, no image, no unsafe URL, in any link form", async (t) => {
  for (const form of _FORMS) {
    await t.step(JSON.stringify(form), () => {
      // The form is dangerous as written: the test can fail.
      const raw = _URLS.flatMap((u) => unsafe(render(form.replaceAll("U", u))));
      ok(raw.length > 0, "the form as written renders nothing unsafe");
      for (const url of _URLS) {
        const text = form.replaceAll("U", url);
        for (
          const md of [
            safeMarkdown(text),
            MARKDOWN.text(text),
            MARKDOWN.thinking(text),
            MARKDOWN.nest(MARKDOWN.text(text), 1),
            MARKDOWN.nest(MARKDOWN.thinking(text), 2),
          ]
        ) {
          deepEqual(unsafe(render(md)), [], `${JSON.stringify(md)}`);
        }
      }
    });
  }
  for (const image of _REMOTE_IMAGES) {
    await t.step(JSON.stringify(image), () => {
      const html = render(safeMarkdown(image));
      equal(html.includes("<img"), false, html);
    });
  }
});

Deno.test("safeMarkdown() keeps links to web and mail addresses and relative ones, and code spans as code", () => {
  const html = render(
    safeMarkdown(
      "See [docs](https://x.dev/a_(b)), [mail](mailto:me@x.dev), " +
        "[c](./c.md#d) and `Vec<T>` or ``a`b``.",
    ),
  );
  equal(
    html,
    '<p>See <a href="https://x.dev/a_(b)">docs</a>, ' +
      '<a href="mailto:me@x.dev">mail</a>, <a href="./c.md#d">c</a> and ' +
      "<code>Vec&lt;T&gt;</code> or <code>a`b</code>.</p>\n",
  );
  // A remote image is a link to it.
  equal(
    render(safeMarkdown("![chart](https://x.dev/c.png)")),
    '<p>!<a href="https://x.dev/c.png">chart</a></p>\n',
  );
});

Deno.test("safeMarkdown() stays linear on adversarial text", async (t) => {
  const cases: [string, string][] = [
    ["link tails", "[a](".repeat(100_000)],
    ["open parentheses", `[a](${"(".repeat(300_000)}`],
    ["brackets and tails", "](](".repeat(100_000)],
    ["a definition's label", `[${"a".repeat(400_000)}`],
    ["escapes", "\\".repeat(400_000)],
    ["backticks and escapes", "\\``".repeat(130_000)],
    ["blank runs", `# a${" ".repeat(400_000)}b`],
    ["a fence line and a CR", `${"`".repeat(400_000)}\rx`],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const start = performance.now();
      safeMarkdown(text);
      equal(performance.now() - start < 5000, true);
    });
  }
});
