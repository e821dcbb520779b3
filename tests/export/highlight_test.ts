import { deepEqual, equal } from "node:assert/strict";
import {
  cutHtmlLines,
  highlightHtml,
  languageOfPath,
} from "../../src/export/_highlight.ts";

Deno.test("languageOfPath() names a file's language by its extension, when highlight.js knows it", () => {
  equal(languageOfPath("src/a.ts"), "typescript");
  equal(languageOfPath("A.JSON"), "json");
  equal(languageOfPath("x/Dockerfile"), "dockerfile");
  equal(languageOfPath("notes.unknownext"), undefined);
  equal(languageOfPath("Makefile.d/README"), undefined);
});

Deno.test("highlightHtml() escapes what it does not highlight, and never guesses a language", () => {
  equal(highlightHtml("<b>&\u202e", ""), "&lt;b&gt;&amp;\ufffd");
  equal(highlightHtml("let x", "nolang"), "let x");
  equal(
    highlightHtml("let x", "ts"),
    '<span class="hljs-keyword">let</span> x',
  );
});

Deno.test("cutHtmlLines() closes the spans open at the cut and opens them again after it", () => {
  const html = highlightHtml("/* a\n b\n c */\nlet x = 1;\n", "typescript");
  deepEqual(cutHtmlLines(html, 2), {
    head: '<span class="hljs-comment">/* a\n b</span>',
    rest:
      '<span class="hljs-comment"> c */</span>\n<span class="hljs-keyword">let</span> x = <span class="hljs-number">1</span>;',
    restLines: 2,
  });
  deepEqual(cutHtmlLines("a\nb\n", 2), {
    head: "a\nb",
    rest: "",
    restLines: 0,
  });
  deepEqual(cutHtmlLines("a", 0), { head: "", rest: "a", restLines: 1 });
});
