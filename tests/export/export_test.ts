import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { type ContextMessage, exportSession, Session } from "../../mod.ts";
import { lastTurnsStart } from "../../src/export/_export_job.ts";
import { sessionBytes, user } from "../_session_files.ts";
import {
  longSession,
  PNG,
  PNG_HEX,
  RICH_ACTIVE_TEXTS,
  richSession,
  testSession,
} from "./_sessions.ts";

const FIXTURES = new URL("../../fixtures/omp/", import.meta.url);

/**
 * The text of each `<article class="msg` of an HTML export, in order (up to
 * the next article: a tool result nested under its call is its own).
 */
export function articles(html: string): string[] {
  return html.split('<article class="msg').slice(1).map((a) =>
    a.slice(0, a.indexOf("</article>"))
  );
}

/** HTML's text, without its tags (highlighted code is spans). */
function _text(html: string): string {
  return html.replace(/<[^>]*>/g, "");
}

/** Whether each needle occurs in `haystacks`, in order, one per haystack. */
function inOrder(haystacks: string[], needles: string[]): boolean {
  return haystacks.length === needles.length &&
    needles.every((n, i) => haystacks[i]!.includes(n));
}

Deno.test("exportSession() writes exactly the active branch's messages, for every omp fixture (hygiene drops none of theirs: the context's)", async () => {
  const out = await Deno.makeTempDir();
  try {
    for await (const e of Deno.readDir(FIXTURES)) {
      if (!e.name.endsWith(".jsonl")) continue;
      const path = new URL(e.name, FIXTURES).pathname;
      await using session = await Session.open(path);
      const expected = session.buildContext().messages;
      const r = await exportSession(path, { out: join(out, `${e.name}.html`) });
      equal(r.messages, expected.length, e.name);
      const html = await Deno.readTextFile(r.files[0]!);
      deepEqual(
        articles(html).map((a) => /data-role="([^"]*)"/.exec(a)?.[1]),
        expected.map((m) =>
          [
              "user",
              "assistant",
              "toolResult",
              "compactionSummary",
              "branchSummary",
              "custom",
            ]
              .includes(m.role)
            ? m.role
            : "other"
        ),
        e.name,
      );
      // Each message has its entry's anchor: a compaction's kept entries,
      // which come after its summary in the context, too.
      const anchored = articles(html).filter((a) =>
        / id="entry-[^"]+"/.test(a)
      );
      equal(anchored.length, expected.length, `${e.name}: anchors`);
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("exportSession() renders each message of the active branch in order, with turns, thinking and tool calls collapsible", async () => {
  await using t = await testSession(richSession());
  const r = await exportSession(t.path, { out: join(t.out, "s.html") });
  deepEqual([r.format, r.pages, r.messages, r.branches], ["html", 1, 7, 0]);
  const html = await Deno.readTextFile(r.files[0]!);
  ok(inOrder(articles(html).map(_text), RICH_ACTIVE_TEXTS));
  ok(!html.includes("abandoned"), "the abandoned branch is not on the path");
  ok(html.includes('<h2 class="turn" id="turn-2">Turn 2</h2>'));
  ok(html.includes('<details class="thinking"><summary>Thinking</summary>'));
  // The read: its path, the result under it, its content highlighted.
  ok(
    html.includes(
      '<div class="tool tool-read">\n<div class="tool-head"><span class="tool-name">read</span> <code>main.ts</code></div>\n<article class="msg tool-result" id="entry-a0000004"',
    ),
  );
  ok(html.includes('<span class="hljs-keyword">export</span>'));
  ok(html.includes('<article class="msg tool-result error"'));
  ok(
    html.includes(
      '<pre><code class="hljs" data-lang="ts"><span class="hljs-keyword">const</span> x = <span class="hljs-number">1</span>;</code></pre>',
    ),
  );
  ok(html.includes("<p>Turn one: read <code>main.ts</code> please</p>"));
  ok(html.includes('<article class="msg user" id="entry-a0000002"'));
  ok(html.includes('<li class="d0 on"><a href="#entry-a0000008">Turn three'));
  ok(html.includes("<title>A rich session</title>"));
  ok(html.includes("<code>anthropic/claude-sonnet-4-5</code>"));
  ok(html.includes(">2026-10-01 09:01:00 UTC</time>"), "the first message");
  ok(html.includes(">2026-10-01 09:10:00 UTC</time>"), "the last message");
});

Deno.test("exportSession() copies each image once beside the export, links it, and marks a missing blob", async () => {
  await using t = await testSession(richSession());
  const r = await exportSession(t.path, { out: join(t.out, "s.html") });
  const folder = join(t.out, "s-files");
  deepEqual(r.images, { files: 1, inlined: 0, missing: 1, folder });
  deepEqual(await Deno.readFile(join(folder, `${PNG_HEX}.png`)), PNG);
  const html = await Deno.readTextFile(r.files[0]!);
  equal(html.split(`<img src="s-files/${PNG_HEX}.png"`).length - 1, 2);
  ok(html.includes("Image not shown: its blob is missing."));
  ok(html.includes("1 image not shown."));
});

Deno.test("exportSession() with inlineImages embeds checked images as data URLs and writes no folder", async () => {
  await using t = await testSession(richSession());
  const r = await exportSession(t.path, {
    out: join(t.out, "s.html"),
    inlineImages: true,
  });
  deepEqual(r.images, { files: 0, inlined: 2, missing: 1, folder: null });
  const html = await Deno.readTextFile(r.files[0]!);
  ok(html.includes(`<img src="data:image/png;base64,${PNG.toBase64()}"`));
  await rejects(Deno.stat(join(t.out, "s-files")), Deno.errors.NotFound);
});

Deno.test("exportSession() counts damaged lines by kind in the footer, never their content", async () => {
  await using t = await testSession(richSession());
  for (const ext of ["html", "md"]) {
    const r = await exportSession(t.path, { out: join(t.out, `s.${ext}`) });
    deepEqual(r.issues, [
      { kind: "not-json", count: 1 },
      { kind: "torn-line", count: 1 },
    ]);
    const text = await Deno.readTextFile(r.files[0]!);
    ok(
      text.includes(
        "Damage read around while loading: 1 not-json, 1 torn-line.",
      ),
      ext,
    );
    ok(!text.includes("this line is not JSON"), ext);
  }
});

Deno.test("exportSession() with last keeps the last N turns, numbered as in the whole branch", async () => {
  await using t = await testSession(richSession());
  const r = await exportSession(t.path, { out: join(t.out, "s.md"), last: 1 });
  deepEqual([r.format, r.messages], ["md", 4]);
  const md = await Deno.readTextFile(r.files[0]!);
  ok(md.includes("## Turn 2\n\n### User · 2026-10-01 09:07:00 UTC"));
  ok(!md.includes("Turn one") && !md.includes("## Turn 1"));
  ok(md.includes("the last turn of the active branch: 4 messages"));
  equal(
    (await exportSession(t.path, { out: join(t.out, "all.md"), last: 9 }))
      .messages,
    7,
  );
});

Deno.test("lastTurnsStart() finds where the last N turns start, each at a user message", () => {
  const m = (role: string) => ({ role }) as unknown as ContextMessage;
  const messages = ["compactionSummary", "user", "assistant", "user", "user"]
    .map(m);
  equal(lastTurnsStart(messages, 2), 3);
  equal(lastTurnsStart(messages, 9), 0);
  equal(lastTurnsStart(messages, undefined), 0);
});

Deno.test("exportSession() writes Markdown: turn headings, details for calls and results, fenced code, image links", async () => {
  await using t = await testSession(richSession());
  const r = await exportSession(t.path, { out: join(t.out, "s.md") });
  const md = await Deno.readTextFile(r.files[0]!);
  ok(
    md.startsWith(
      "# A rich session\n\n- **Model:** anthropic/claude-sonnet-4-5\n",
    ),
  );
  ok(
    md.includes(
      "## Turn 1\n\n### User · 2026-10-01 09:01:00 UTC\n\nTurn one: read `main.ts` please",
    ),
  );
  ok(
    md.includes(
      "<details>\n<summary>Thinking</summary>\n\nI should read the file first.\n\n</details>",
    ),
  );
  ok(
    md.includes(
      "**read** main.ts\n\n*Content* · 2026-10-01 09:03:00 UTC\n\n```typescript\nFile contents: export const x = 1;\n```",
    ),
  );
  ok(
    md.includes(
      "**bash**\n\n```sh\n$ false\n```\n\n*Output* (error) · 2026-10-01 09:09:00 UTC\n\n```text\nCommand failed: exit 1\n```",
    ),
  );
  ok(md.includes(`![An image from the session](s-files/${PNG_HEX}.png)`));
  ok(md.includes("*Image not shown: its blob is missing.*"));
});

Deno.test("exportSession() splits HTML over the page size into linked pages, each message whole and in order", async () => {
  await using t = await testSession(longSession(120));
  const limit = 32 * 1024;
  const r = await exportSession(t.path, {
    out: join(t.out, "p.html"),
    pageBytes: limit,
  });
  ok(r.pages >= 3, `${r.pages} pages`);
  deepEqual(r.files.map((f) => f.slice(t.out.length + 1)), [
    "p.html",
    ...Array.from({ length: r.pages - 1 }, (_, i) => `p-${i + 2}.html`),
  ]);
  const all: string[] = [];
  for (const [i, file] of r.files.entries()) {
    const html = await Deno.readTextFile(file);
    ok(new TextEncoder().encode(html).length <= limit, file);
    ok(html.startsWith("<!doctype html>") && html.endsWith("</html>\n"));
    equal(
      html.includes(
        `<a rel="prev" href="${i === 1 ? "p.html" : `p-${i}.html`}">`,
      ),
      i > 0,
    );
    equal(
      html.includes(`<a rel="next" href="p-${i + 2}.html">`),
      i < r.pages - 1,
    );
    all.push(...articles(html));
  }
  ok(inOrder(all, Array.from({ length: 120 }, (_, i) => `message ${i} `)));
  equal(
    r.bytes,
    (await Promise.all(r.files.map((f) => Deno.stat(f)))).reduce(
      (n, s) => n + s.size,
      0,
    ),
  );
});

Deno.test("exportSession() with tree renders every branch nested under its branch point, the leaf marked", async () => {
  await using t = await testSession(richSession());
  const r = await exportSession(t.path, {
    out: join(t.out, "t.html"),
    tree: true,
  });
  deepEqual([r.messages, r.entries, r.branches], [9, 11, 1]);
  const page = await Deno.readTextFile(r.files[0]!);
  // The outline: the active path marked, the abandoned branch nested.
  ok(
    page.includes(
      '<li class="d1 off"><a href="#entry-a0000005">Turn two (abandoned)</a></li>',
    ),
  );
  ok(page.includes('<li class="d0 on"><a href="#entry-a0000008">Turn three'));
  const html = page.slice(page.indexOf("<main>"));
  const branch = html.indexOf('<details class="branch branch">');
  const abandoned = html.indexOf("Turn two (abandoned)");
  const close = html.indexOf(
    "</details>",
    html.indexOf("Answer two (abandoned)"),
  );
  ok(html.indexOf("File contents") < branch && branch < abandoned);
  ok(abandoned < close && close < html.indexOf("Turn three"));
  ok(html.indexOf("Answer three") < html.indexOf("The active path ends here"));
  const md = await Deno.readTextFile(
    (await exportSession(t.path, { out: join(t.out, "t.md"), tree: true }))
      .files[0]!,
  );
  ok(
    md.includes(
      "**⑂ Another branch from here (not on the active path)** · 2026-10-01 09:04:00 UTC\n\n> ### User · 2026-10-01 09:04:00 UTC\n>\n> Turn two (abandoned)\n",
    ),
  );
});

Deno.test("exportSession() refuses options that do not fit, naming the file and never the content", async () => {
  await using t = await testSession(richSession());
  await rejects(exportSession(t.path, { tree: true, last: 2 }), TypeError);
  await rejects(exportSession(t.path, { last: 0 }), RangeError);
  await rejects(exportSession(t.path, { last: 1.5 }), RangeError);
  await rejects(exportSession(t.path, { pageBytes: 10 }), RangeError);
  await rejects(exportSession(t.path, { format: "pdf" as "md" }), TypeError);
  await rejects(
    exportSession(t.path, { out: t.path }),
    /the output would overwrite the session/,
  );
  await rejects(
    exportSession(join(t.root, "nope.jsonl"), { out: join(t.out, "x.html") }),
    Deno.errors.NotFound,
  );
  await rejects(
    exportSession(t.out, { out: join(t.root, "x.html") }),
    /not a regular file/,
  );
});

Deno.test("exportSession() stays linear on adversarial messages of a few hundred KB, in both formats", async () => {
  const texts = [
    `# a${" ".repeat(300_000)}b`,
    `${" ".repeat(400_000)}x`,
    `${"`".repeat(300_000)}\r\nx`,
    "[a](".repeat(100_000),
    "\\``".repeat(100_000),
  ];
  const entries = texts.map((text, i) =>
    user(`d000000${i}`, i === 0 ? null : `d000000${i - 1}`, text)
  );
  await using t = await testSession(sessionBytes(entries));
  for (const format of ["html", "md"] as const) {
    const start = performance.now();
    const r = await exportSession(t.path, {
      out: join(t.out, `x.${format}`),
    });
    equal(r.messages, texts.length);
    // The backtracking took minutes on the first two alone.
    ok(performance.now() - start < 10_000, format);
  }
});

Deno.test("exportSession() heads the page with the branch's tokens and cost as requestUsage counts them, and says what a windowed open did not read", async () => {
  const out = await Deno.makeTempDir();
  try {
    const pi =
      new URL("../../fixtures/pi/large-session-v1.jsonl", import.meta.url)
        .pathname;
    const html = await Deno.readTextFile(
      (await exportSession(pi, { out: join(out, "pi.html") })).files[0]!,
    );
    // The real pi session: what `stats` and ccusage count for it.
    ok(html.includes("<dt>Cost</dt><dd>$30.33</dd>"));
    ok(html.includes(" cache write (453 model calls)</dd>"));
    const md = await Deno.readTextFile(
      (await exportSession(pi, { out: join(out, "pi.md") })).files[0]!,
    );
    ok(md.includes("\n- **Cost:** $30.33\n"));
    ok(md.includes(" cache write (453 model calls)\n"));
    const s1 = new URL("s1-main.jsonl", FIXTURES).pathname;
    const windowed = await Deno.readTextFile(
      (await exportSession(s1, { out: join(out, "s1.html") })).files[0]!,
    );
    ok(windowed.includes("(8 model calls; 31 earlier entries not read)"));
    const tree = await Deno.readTextFile(
      (await exportSession(s1, { out: join(out, "t.html"), tree: true }))
        .files[0]!,
    );
    ok(tree.includes(" cache write (24 model calls)</dd>"));
    ok(tree.includes('<dt>Labels</dt><dd><a href="#entry-'));
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
