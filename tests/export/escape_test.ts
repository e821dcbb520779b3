import { equal } from "node:assert/strict";
import {
  escapeHtml,
  escapeMarkdownInline,
  fenced,
  relativeHref,
  withoutControls,
} from "../../src/export/_escape.ts";

Deno.test("escapeHtml() escapes the five characters markup needs, and control characters", () => {
  equal(
    escapeHtml(`<a href="x" title='y'>&amp;</a>`),
    "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;",
  );
  equal(
    escapeHtml("nul\x00 esc\x1b del\x7f tab\t lf\n"),
    "nul\ufffd esc\ufffd del\ufffd tab\t lf\n",
  );
});

Deno.test("withoutControls() keeps tab, line feed and carriage return", () => {
  equal(withoutControls("a\tb\r\nc\x01"), "a\tb\r\nc\ufffd");
});

Deno.test("escapeMarkdownInline() makes a short string one line of literal text", () => {
  equal(
    escapeMarkdownInline("# *a* _b_ `c` [d](e) <f> !g ~h~ |i| &j; \\k"),
    "\\# \\*a\\* \\_b\\_ \\`c\\` \\[d\\](e) \\<f\\> \\!g \\~h\\~ \\|i\\| \\&j; \\\\k",
  );
  equal(escapeMarkdownInline("two\nlines\x1b"), "two lines ");
});

Deno.test("fenced() uses a fence longer than any backtick run inside, at least three", () => {
  equal(fenced("plain"), "```\nplain\n```");
  equal(fenced("a `` b ````` c", "text"), "``````text\na `` b ````` c\n``````");
  equal(fenced(""), "```\n```");
  equal(fenced("ends\n"), "```\nends\n```");
});

Deno.test("relativeHref() percent-encodes each segment", () => {
  equal(relativeHref("a b", "c?d#e.png"), "a%20b/c%3Fd%23e.png");
  equal(relativeHref("javascript:x"), "javascript%3Ax");
});
