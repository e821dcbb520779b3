/**
 * The default export shows the active branch as it happened, not as the
 * context's hygiene leaves it: pi's large session (linear, so its branch is
 * every line) keeps its aborted and failed turns, their badge, and every
 * model it used in the header. The expectations are read from the fixture
 * itself.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { exportSession, Session } from "../../mod.ts";
import {
  assistant,
  sessionBytes,
  toolResult,
  user,
} from "../_session_files.ts";
import { testSession } from "./_sessions.ts";

const PI_LARGE = new URL(
  "../../fixtures/pi/large-session-v1.jsonl",
  import.meta.url,
).pathname;

interface _Message {
  role: string;
  content?: unknown;
  stopReason?: string;
  provider?: string;
  model?: string;
}

/** The fixture's messages, by JSON.parse of its lines. */
async function _fixtureMessages(): Promise<_Message[]> {
  const text = await Deno.readTextFile(PI_LARGE);
  return text.split("\n").filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "message" && typeof e.message === "object")
    .map((e) => e.message as _Message);
}

/** A message's first line of text (its first text block's), if any. */
function _firstLine(m: _Message): string | undefined {
  const content = m.content;
  const blocks = typeof content === "string"
    ? [{ type: "text", text: content }]
    : Array.isArray(content)
    ? content
    : [];
  for (const b of blocks) {
    if (b?.type !== "text" || typeof b.text !== "string") continue;
    const line = b.text.split("\n").map((l: string) => l.trim())
      .find((l: string) => l !== "");
    if (line !== undefined) return line;
  }
  return undefined;
}

Deno.test("exportSession() shows pi's large session as it happened: every message, the aborted and failed turns with their badge, every model in the header", async () => {
  const messages = await _fixtureMessages();
  const dropped = messages.filter((m) =>
    m.role === "assistant" &&
    (m.stopReason === "aborted" || m.stopReason === "error")
  );
  const aborted = dropped.filter((m) => m.stopReason === "aborted").length;
  // The turn that failed mid-answer: text the user saw.
  const failed = dropped.map(_firstLine).find((l) =>
    l?.startsWith("There are 77")
  );
  ok(failed !== undefined && aborted > 0);
  const models = [
    ...new Set(
      messages.filter((m) => m.role === "assistant" && m.provider)
        .map((m) => `${m.provider}/${m.model}`),
    ),
  ];
  equal(models.length, 2);
  // What the model is given leaves those turns out (`cli context`).
  {
    await using session = await Session.open(PI_LARGE);
    ok(session.buildContext().messages.length < messages.length);
  }

  const out = await Deno.makeTempDir();
  try {
    const html = await exportSession(PI_LARGE, { out: join(out, "s.html") });
    const md = await exportSession(PI_LARGE, { out: join(out, "s.md") });
    equal(html.messages, messages.length);
    equal(md.messages, messages.length);
    const page = await Deno.readTextFile(html.files[0]!);
    const doc = await Deno.readTextFile(md.files[0]!);
    equal(
      page.split('<span class="badge">aborted</span>').length - 1,
      aborted,
    );
    equal(doc.split(" (aborted)").length - 1, aborted);
    ok(page.includes("There are 77 <code>chalk</code>"));
    ok(doc.includes(failed));
    const header = /<dl class="meta">[\s\S]*?<\/dl>/.exec(page)![0];
    const mdHeader = doc.slice(0, doc.indexOf("## Turn 1"));
    for (const model of models) {
      ok(header.includes(`<code>${model}</code>`), model);
      ok(mdHeader.includes(model), model);
    }
    // Every message's text (a tool's output too), in order, in the Markdown
    // (which escapes a mark left open, as a cut-off turn's can be).
    const plain = doc.replaceAll("\\", "");
    let at = 0;
    let checked = 0;
    for (const m of messages) {
      const line = _firstLine(m)?.replaceAll("\\", "");
      if (line === undefined) continue;
      const i = plain.indexOf(line, at);
      ok(i >= 0, line);
      at = i;
      checked++;
    }
    ok(checked > messages.length / 2);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("exportSession() shows a second result to one call (a hostile file's) alone, in both modes, rather than dropping the first", async () => {
  const call = { type: "toolCall", id: "c1", name: "read", arguments: {} };
  await using t = await testSession(sessionBytes([
    user("b0000001", null, "read it"),
    assistant("b0000002", "b0000001", [call], { stopReason: "toolUse" }),
    toolResult("b0000003", "b0000002", "c1", [{ type: "text", text: "ONE" }]),
    toolResult("b0000004", "b0000003", "c1", [{ type: "text", text: "TWO" }]),
  ]));
  for (const tree of [false, true]) {
    for (const ext of ["html", "md"]) {
      const r = await exportSession(t.path, {
        out: join(t.out, `s${tree}.${ext}`),
        tree,
      });
      const text = await Deno.readTextFile(r.files[0]!);
      ok(text.includes("ONE") && text.includes("TWO"), `${ext} tree ${tree}`);
    }
  }
});
