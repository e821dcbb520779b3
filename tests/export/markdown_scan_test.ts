import { deepEqual } from "node:assert/strict";
import { codeSpans, splitFences } from "../../src/export/_markdown_scan.ts";

const F = "`".repeat(3);

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
