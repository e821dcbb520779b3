import { equal, ok } from "node:assert/strict";
import type { ContextMessage, SessionEntry } from "../../mod.ts";
import { Assets } from "../../src/export/_assets.ts";
import { renderMessage, type Shown } from "../../src/export/_document.ts";
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

Deno.test("renderMessage() shows a tool result alone with its output and then its images, and skips what is no block", async () => {
  const image = { type: "image", data: PNG.toBase64(), mimeType: "image/png" };
  const m = toolResult([{ type: "text", text: "t" }, image, null]);
  const src = `data:image/png;base64,${PNG.toBase64()}`;
  equal(
    await renderMessage({ m }, MARKDOWN, ASSETS),
    "*Tool result: read*\n\n```text\nt\n```\n\n" +
      `![An image from the session](${src})\n\n`,
  );
  const html = await renderMessage({ m }, await htmlFormat(), ASSETS);
  equal(
    html.slice(html.indexOf("</header>")),
    '</header>\n<pre><code class="hljs">t</code></pre>\n' +
      `<figure><img src="${src}" alt="An image from the session"></figure>\n</article>\n`,
  );
  equal(
    await renderMessage({ m: toolResult("s") }, MARKDOWN, ASSETS),
    "*Tool result: read*\n\n```text\ns\n```\n\n",
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
    await renderMessage({ m }, MARKDOWN, ASSETS),
    "### Assistant · p/m\\<1\\> (aborted) · 2026-10-01 09:00:00 UTC\n\n> boom\n\n",
  );
  equal(
    await renderMessage({ m }, await htmlFormat(), ASSETS),
    '<article class="msg assistant" data-role="assistant">\n<header><span class="role">Assistant</span> <code class="detail">p/m&lt;1&gt;</code> <span class="badge">aborted</span> <time datetime="2026-10-01T09:00:00.000Z">2026-10-01 09:00:00 UTC</time></header>\n<p class="error">boom</p>\n</article>\n',
  );
});

const T = "2026-10-01T09:00:00.000Z";

/** An assistant message calling `bash` and `edit`, and their two results. */
function _turn(): { a: Shown; results: Shown[] } {
  const usage = {
    input: 1200,
    output: 34,
    cacheRead: 5000,
    cacheWrite: 0,
    cost: { total: 0.0123 },
  };
  const m = {
    role: "assistant",
    provider: "anthropic",
    model: "claude",
    api: "anthropic-messages",
    usage,
    content: [
      {
        type: "toolCall",
        id: "c1",
        name: "bash",
        arguments: { command: "ls -la" },
      },
      {
        type: "toolCall",
        id: "c2",
        name: "edit",
        arguments: {
          path: "a.ts",
          oldText: "let a = 1;\n",
          newText: "let a = 2;\n",
        },
      },
    ],
    timestamp: Date.parse(T),
  } as unknown as ContextMessage;
  const entry = (id: string, message: unknown) =>
    ({
      type: "message",
      id,
      parentId: null,
      timestamp: T,
      message,
    }) as SessionEntry;
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join(
    "\n",
  );
  const result = (id: string, call: string, text: string): Shown => {
    const r = {
      role: "toolResult",
      toolCallId: call,
      toolName: "x",
      content: [{ type: "text", text }],
    } as unknown as ContextMessage;
    return { m: r, entry: entry(id, r) };
  };
  return {
    a: { m, entry: entry("e1", m) },
    // In the other order: each is paired by its call's id.
    results: [result("e3", "c2", "Edited"), result("e2", "c1", lines)],
  };
}

Deno.test("renderMessage() shows each tool call by kind with its result under it, paired by id", async (t) => {
  const { a, results } = _turn();
  const ctx = { labels: { e1: "start <here>" } };
  await t.step("HTML", async () => {
    const html = await renderMessage(
      a,
      await htmlFormat(),
      ASSETS,
      ctx,
      results,
    );
    ok(html.startsWith('<article class="msg assistant" id="entry-e1"'));
    ok(html.includes('<span class="tag">start &lt;here&gt;</span>'));
    ok(
      html.includes(
        '<span class="usage">1,200 in · 34 out · 5,000 cached · $0.0123</span>',
      ),
    );
    const bash = html.indexOf('<div class="tool tool-bash">');
    const out = html.indexOf('id="entry-e2"');
    const edit = html.indexOf('<div class="tool tool-edit">');
    const edited = html.indexOf('id="entry-e3"');
    ok(
      0 < bash && bash < out && out < edit && edit < edited,
      "results under calls",
    );
    ok(html.replace(/<[^>]*>/g, "").includes("$ ls -la"));
    ok(html.includes("line 8</code></pre>"), "8 lines shown");
    ok(html.includes("<summary>12 more lines</summary>"));
    ok(
      html.includes(
        '<span class="del">- let a = 1;</span>\n<span class="add">+ let a = 2;</span>',
      ),
    );
    equal(html.split("</article>").length - 1, 3);
  });
  await t.step("Markdown", async () => {
    const md = await renderMessage(a, MARKDOWN, ASSETS, ctx, results);
    ok(
      md.startsWith(
        "### Assistant · anthropic/claude · label: start \\<here\\> · 1,200 in · 34 out · 5,000 cached · $0.0123 · ",
      ),
    );
    ok(md.includes("**bash**\n\n```sh\n$ ls -la\n```\n\n*Output*"));
    ok(
      md.includes(
        "line 8\n```\n\n<details>\n<summary>12 more lines</summary>\n\n```text\nline 9\n",
      ),
    );
    ok(
      md.includes(
        "**edit** a.ts\n\n```diff\n@@ -1,1 +1,1 @@\n-let a = 1;\n+let a = 2;\n```\n\n*Output*",
      ),
    );
  });
  await t.step(
    "a result whose call is not in the message is shown after it",
    async () => {
      const html = await renderMessage(a, await htmlFormat(), ASSETS, ctx, [
        ...results,
        { m: { ...results[0]!.m, toolCallId: "c9" } as ContextMessage },
      ]);
      ok(
        html.endsWith(
          '</article>\n<article class="msg tool-result" data-role="toolResult">\n' +
            html.slice(html.lastIndexOf("<header>")),
        ),
      );
    },
  );
});
