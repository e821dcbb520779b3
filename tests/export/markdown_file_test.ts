import { equal } from "node:assert/strict";
import { join } from "node:path";
import { MarkdownFile } from "../../src/export/_markdown_file.ts";
import { tempDir } from "../_session_files.ts";

Deno.test("MarkdownFile quotes the fragments of each open block once per level", async () => {
  await using d = await tempDir();
  const path = join(d.path, "x.md");
  const sink = await MarkdownFile.create(path, "# T\n\n", () => "end\n");
  const branch = { open: "**branch**\n\n", close: "\n", reopen: "" };
  await sink.write("a\n\n");
  await sink.open(branch);
  await sink.write("b\n\nc\n\n");
  await sink.open(branch);
  await sink.write("d\n\n");
  await sink.close();
  await sink.close();
  await sink.write("e\n\n");
  const written = await sink.finish({ issues: [], missingImages: 0 });
  const text = await Deno.readTextFile(path);
  equal(
    text,
    "# T\n\na\n\n**branch**\n\n> b\n>\n> c\n>\n> **branch**\n>\n>> d\n>>\n>\n\ne\n\nend\n",
  );
  equal(written.bytes, new TextEncoder().encode(text).length);
});
