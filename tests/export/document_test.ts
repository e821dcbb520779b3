import { equal } from "node:assert/strict";
import type { ContextMessage } from "../../mod.ts";
import { Assets } from "../../src/export/_assets.ts";
import { renderMessage } from "../../src/export/_document.ts";
import { htmlFormat } from "../../src/export/_html.ts";
import { MARKDOWN } from "../../src/export/_markdown.ts";
import { NO_SESSION, PNG } from "./_sessions.ts";

const ASSETS = new Assets({
  inline: true,
  folder: "unused",
  blobs: undefined,
  session: NO_SESSION,
});

function toolResult(content: unknown): ContextMessage {
  return { role: "toolResult", toolName: "read", content } as ContextMessage;
}

Deno.test("renderMessage() shows a tool result's images after its folded output, and skips what is no block", async () => {
  const image = { type: "image", data: PNG.toBase64(), mimeType: "image/png" };
  const m = toolResult([{ type: "text", text: "t" }, image, null]);
  const src = `data:image/png;base64,${PNG.toBase64()}`;
  equal(
    await renderMessage(m, MARKDOWN, ASSETS),
    "<details>\n<summary>Tool result: read</summary>\n\n```text\nt\n```\n\n</details>\n\n" +
      `![An image from the session](${src})\n\n`,
  );
  const html = await renderMessage(m, await htmlFormat(), ASSETS);
  equal(
    html.slice(html.indexOf("</summary>")),
    "</summary>\n<pre><code>t</code></pre>\n\n</details>\n" +
      `<figure><img src="${src}" alt="An image from the session"></figure>\n</article>\n`,
  );
  equal(
    await renderMessage(toolResult("s"), MARKDOWN, ASSETS),
    "<details>\n<summary>Tool result: read</summary>\n\n```text\ns\n```\n\n</details>\n\n",
  );
});

Deno.test("renderMessage() gives the same heading parts to both formats", async () => {
  const m = {
    role: "assistant",
    provider: "p",
    model: "m<1>",
    stopReason: "aborted",
    errorMessage: "boom",
    content: [],
    timestamp: Date.parse("2026-10-01T09:00:00Z"),
  } as unknown as ContextMessage;
  equal(
    await renderMessage(m, MARKDOWN, ASSETS),
    "### Assistant · p/m\\<1\\> (aborted) · 2026-10-01 09:00:00 UTC\n\n> boom\n\n",
  );
  equal(
    await renderMessage(m, await htmlFormat(), ASSETS),
    '<article class="msg assistant" data-role="assistant">\n<header><span class="role">Assistant</span> <code class="detail">p/m&lt;1&gt;</code> <span class="badge">aborted</span> <time datetime="2026-10-01T09:00:00.000Z">2026-10-01 09:00:00 UTC</time></header>\n\n<p class="error">boom</p>\n</article>\n',
  );
});
