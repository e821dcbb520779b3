import { equal } from "node:assert/strict";
import { safeMarkdown } from "../../src/export/_markdown.ts";

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
    "[a]\\(javascript:alert(1)) ![i]\\(data:text/html,x)",
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
    "\\[ref]: javascript:x\n> \\[q]: vbscript:y\n[ok]: https://x.dev",
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
