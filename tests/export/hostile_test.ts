import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { exportSession } from "../../mod.ts";
import { splitFences } from "../../src/export/_escape.ts";
import {
  assistant,
  sessionBytes,
  toolResult,
  user,
} from "../_session_files.ts";
import { render, unsafe } from "./_commonmark.ts";
import { HOSTILE_TEXT, hostileSession, testSession } from "./_sessions.ts";

/** The bidirectional controls no export may hold. */
const _BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

/** The tags of an HTML text, as written (every `<` starts one of ours). */
function tags(html: string): string[] {
  return [...html.matchAll(/<[^>]*>/g)].map((m) => m[0]);
}

/**
 * The tags our HTML export writes (its own, and those the Markdown renderer
 * makes of a message's Markdown), and nothing else.
 */
const OUR_TAGS = new Set([
  "ol",
  "ul",
  "li",
  "strong",
  "em",
  "s",
  "blockquote",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "br",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "!doctype",
  "html",
  "head",
  "meta",
  "title",
  "style",
  "body",
  "div",
  "header",
  "h1",
  "h2",
  "dl",
  "dt",
  "dd",
  "nav",
  "a",
  "main",
  "article",
  "span",
  "code",
  "time",
  "details",
  "summary",
  "p",
  "pre",
  "figure",
  "img",
  "footer",
]);

/** Assert that an HTML export holds no markup but ours, and no way out. */
function _inert(html: string, stem: string): string[] {
  const all = tags(html);
  const names = all.map((tag) =>
    /^<\/?([!a-z0-9]+)/i.exec(tag)?.[1]?.toLowerCase()
  );
  deepEqual(names.filter((n) => n === undefined || !OUR_TAGS.has(n)), []);
  deepEqual(all.filter((tag) => /\son[a-z]+\s*=/i.test(tag)), []);
  deepEqual(all.filter((tag) => /javascript:|vbscript:/i.test(tag)), []);
  // A link goes to the web, a mail address, an entry of the page or a
  // page beside it; never to a script, data, or a file elsewhere.
  for (const tag of all.filter((t) => t.startsWith("<a "))) {
    ok(
      /^<a (class="[a-z]+" )?href="(https?:|mailto:|#entry-|[\w.-]+\.html")/
        .test(tag),
      tag,
    );
  }
  const img = new RegExp(
    `^<img src="(data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+|${stem}-files/[0-9a-f]{64}\\.(png|jpg|gif|webp))" alt="[^"]*">$`,
  );
  for (const tag of all.filter((t) => t.startsWith("<img"))) {
    ok(img.test(tag), tag);
  }
  for (const name of ["details", "article", "pre", "code", "p", "div"]) {
    equal(
      names.filter((n) => n === name).length,
      all.filter((tag) => tag.startsWith(`</${name}>`)).length * 2,
      name,
    );
  }
  ok(!html.includes("\x00"));
  ok(!_BIDI.test(html), "a bidirectional control");
  return names as string[];
}

for (const tree of [false, true]) {
  const mode = tree ? " (tree)" : "";
  Deno.test(`exportSession()${mode} renders a hostile session's HTML inert: no script, no handler, no foreign URL`, async () => {
    await using t = await testSession(hostileSession());
    const r = await exportSession(t.path, { out: join(t.out, "h.html"), tree });
    const html = await Deno.readTextFile(r.files[0]!);
    _inert(html, "h");
    ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt;"));
    deepEqual([r.images.files, r.images.inlined, r.images.missing], [0, 0, 4]);
  });
}

/** Calls of every kind, their arguments and outputs all hostile. */
function _hostileTools(): Uint8Array {
  const h = HOSTILE_TEXT;
  const calls = [
    { type: "toolCall", id: "k1", name: "bash", arguments: { command: h } },
    {
      type: "toolCall",
      id: "k2",
      name: "read",
      arguments: { path: `${h}.ts` },
    },
    {
      type: "toolCall",
      id: "k3",
      name: "edit",
      arguments: { path: h, oldText: `${h}\n${h}`, newText: `x\n${h}` },
    },
    {
      type: "toolCall",
      id: "k4",
      name: "write",
      arguments: { path: h, content: h },
    },
  ];
  const out = `${h}\n`.repeat(12);
  return sessionBytes([
    user("e0000001", null, h),
    assistant("e0000002", "e0000001", calls),
    ...calls.map((c, i) =>
      toolResult(
        `e000001${i}`,
        i === 0 ? "e0000002" : `e000001${i - 1}`,
        c.id,
        [
          { type: "text", text: out },
        ],
      )
    ),
    {
      type: "label",
      id: "e0000020",
      parentId: "e0000013",
      timestamp: "2026-10-01T09:00:00.000Z",
      targetId: "e0000001",
      label: h,
    },
  ]);
}

for (const tree of [false, true]) {
  const mode = tree ? " (tree)" : "";
  Deno.test(`exportSession()${mode} renders hostile bash, read, edit and write calls, their outputs and a label inert, in both formats`, async () => {
    await using t = await testSession(_hostileTools());
    const r = await exportSession(t.path, { out: join(t.out, "k.html"), tree });
    const html = await Deno.readTextFile(r.files[0]!);
    const names = _inert(html, "k");
    for (const kind of ["bash", "read", "edit", "write"]) {
      ok(html.includes(`<div class="tool tool-${kind}">`), kind);
    }
    ok(names.includes("details"), "a long output is folded");
    ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt;"));
    const md = await exportSession(t.path, { out: join(t.out, "k.md"), tree });
    const text = await Deno.readTextFile(md.files[0]!);
    ok(!_BIDI.test(text), "a bidirectional control");
    deepEqual(unsafe(render(text)), []);
    deepEqual(splitFences(text).filter((s) => s.code && !s.closed), []);
  });
}

Deno.test("exportSession() renders a hostile session's Markdown with no HTML but its own, no fence left open, no script link", async () => {
  await using t = await testSession(hostileSession());
  for (const tree of [false, true]) {
    const r = await exportSession(t.path, { out: join(t.out, "h.md"), tree });
    const md = await Deno.readTextFile(r.files[0]!);
    ok(!md.includes("\x00"));
    ok(!_BIDI.test(md), "a bidirectional control");
    const segments = splitFences(md);
    // Every fence closes: the last segment is prose (the footer).
    deepEqual(segments.filter((s) => s.code && !s.closed), []);
    for (const s of segments) {
      if (s.code) continue;
      // Outside code, the only tags are our details blocks (a `<` after an
      // odd run of backslashes is escaped: text).
      for (const m of s.text.matchAll(/(\\*)<\/?([a-z]+)/gi)) {
        if (m[1]!.length % 2 === 1) continue;
        ok(["details", "summary"].includes(m[2]!), `<${m[2]} outside code`);
      }
      for (const m of s.text.matchAll(/(\\*)\]\(\s*javascript:/gi)) {
        ok(m[1]!.length % 2 === 1, "a javascript: link");
      }
    }
    // The tool output holds a run of six backticks: its fence has seven.
    ok(md.includes("```````text\n`````\n</details>\n"));
    // The unclosed fence of the user's message is closed before the images.
    ok(md.includes("unclosed fence &lt;".replace("&lt;", "<")));
    ok(/unclosed fence [^\n]*\n```\n\n\*Image not shown/.test(md));
    // Each message heading starts a line outside any fence.
    const headings = segments.flatMap((s) =>
      s.code ? [] : s.text.split("\n").filter((l) => /^>* ?### /.test(l))
    );
    equal(headings.length, 4, headings.join("\n"));
  }
});

/** Links a CommonMark renderer follows, in forms a line-by-line check missed. */
const _LINKS = [
  "[r]\n\n[r]:\njavascript:alert(1)",
  "> [q]:\n> javascript:alert(2)\n\n[q]",
  "- [l]:\n  jav&#x61;script:alert(3)\n\n[l]",
  "> [a](\n> javascript:alert(4))",
  "text `\n> <img src=x onerror=alert(5)>\n`",
  "![remote](https://evil.test/t.png)",
].join("\n\n");

Deno.test("exportSession() Markdown renders inert in the reference CommonMark renderer, active branch and tree", async () => {
  const links = sessionBytes([
    user("c0000001", null, _LINKS),
    assistant("c0000002", "c0000001", [
      { type: "thinking", thinking: _LINKS },
      { type: "text", text: _LINKS },
    ]),
    // A branch: the tree quotes it.
    user("c0000003", "c0000001", _LINKS),
  ]);
  for (const bytes of [hostileSession(), links]) {
    await using t = await testSession(bytes);
    for (const tree of [false, true]) {
      const r = await exportSession(t.path, { out: join(t.out, "x.md"), tree });
      const html = render(await Deno.readTextFile(r.files[0]!));
      deepEqual(unsafe(html), []);
    }
  }
});
