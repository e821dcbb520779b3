import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import type { Format } from "../../src/export/_document.ts";
import type { ExportMeta } from "../../src/export/_meta.ts";
import { Pages, Scratch } from "../../src/export/_files.ts";
import { MARKDOWN } from "../../src/export/_markdown.ts";
import { tempDir } from "../_session_files.ts";

const META: ExportMeta = {
  title: undefined,
  sessionId: undefined,
  cwd: undefined,
  models: [],
  first: undefined,
  last: undefined,
  messages: 0,
  entries: 0,
  scope: "a test",
};

Deno.test("Pages without a limit writes one Markdown file, quoting the fragments of each open block once per level", async () => {
  await using d = await tempDir();
  const path = join(d.path, "x.md");
  const format = { ...MARKDOWN, head: () => "# T\n\n", foot: () => "end\n" };
  await using sink = new Pages(path, format, META, Infinity);
  const branch = { open: "**branch**\n\n", close: "\n", reopen: "" };
  await sink.write("a\n\n");
  await sink.open(branch);
  await sink.write("b\n\nc\n\n");
  await sink.open(branch);
  await sink.write("d\n\n");
  sink.close();
  sink.close();
  await sink.write("e\n\n");
  const written = await sink.finish({ issues: [], missingImages: 0 });
  const text = await Deno.readTextFile(path);
  equal(
    text,
    "# T\n\na\n\n**branch**\n\n> b\n>\n> c\n>\n> **branch**\n>\n>> d\n>>\n>\n\ne\n\nend\n",
  );
  deepEqual(written, {
    files: [path],
    bytes: new TextEncoder().encode(text).length,
  });
});

Deno.test("Pages closes a block open across a page break and opens it again on the next page", async () => {
  await using d = await tempDir();
  const format = {
    ...MARKDOWN,
    nest: (fragment: string) => fragment,
    head: (_: ExportMeta, nav: { page: number; next?: string }) =>
      `[${nav.page}${nav.next === undefined ? "" : `>${nav.next}`}]`,
    foot: () => "[end]",
  } as Format;
  // Room for 20 bytes of fragments on a page, beside the frame and the slack.
  const frame = "[1>x-2.html][end]".length;
  await using sink = new Pages(
    join(d.path, "x.html"),
    format,
    META,
    4096 + frame + 20,
  );
  await sink.write("0123456789");
  await sink.open({ open: "<b>", close: "</b>", reopen: "<b+>" });
  await sink.write("abcdefghij"); // 10 + 3 + 10 + 4 closing > 20: a new page
  sink.close();
  const written = await sink.finish({ issues: [], missingImages: 0 });
  deepEqual(
    await Promise.all(written.files.map((f) => Deno.readTextFile(f))),
    ["[1>x-2.html]0123456789<b></b>[end]", "[2]<b+>abcdefghij</b>[end]"],
  );
});

Deno.test("Scratch reads renderings back in any order, across its read window", async () => {
  await using d = await tempDir();
  await using scratch = await Scratch.create(d.path, ".s.");
  const big = "é".repeat(700_000); // 1.4 MB: past one window
  const a = await scratch.append("first");
  const b = await scratch.append(big);
  const c = await scratch.append("last ✓");
  equal(await scratch.read(c.at, c.length), "last ✓");
  equal(await scratch.read(a.at, a.length), "first");
  equal(await scratch.read(b.at, b.length), big);
  equal(await scratch.read(c.at, c.length), "last ✓");
});
