/**
 * xdev's contract: `fixtures/xdev/omp-sample.jsonl` is the real omp session
 * xdev's Go store resumes in its `interop_test.go` (FreePeak/xdev
 * `internal/session`), which the specification calls "the contract". Each
 * assertion that test makes (listed in `fixtures/xdev/README.md`) is one
 * step here, made through our API; a last test compares our whole context
 * with what omp rebuilds from the file (`omp-sample.context.json`).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type AssistantMessage,
  type ContextMessage,
  contextToJson,
  Session,
  type ToolResultMessage,
} from "../../mod.ts";
import { CONTEXT_JSON_FIELDS } from "../../src/context/context_json.ts";

const SAMPLE = new URL("../../fixtures/xdev/omp-sample.jsonl", import.meta.url)
  .pathname;
const OMP_CONTEXT = new URL(
  "../../fixtures/xdev/omp-sample.context.json",
  import.meta.url,
);
const TITLE = "Configure header to hide sidebar";
const FIRST_ASSISTANT = "7106ed9e";

/** The text blocks of a message, joined (xdev's `Message.Text()`). */
function textOf(m: ContextMessage | undefined): string {
  const content = (m as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((b) => b?.type === "text").map((b) => b.text).join("");
}

function blockTypes(m: ContextMessage | undefined): string[] {
  return ((m as AssistantMessage).content ?? []).map((b) => b.type);
}

/**
 * xdev's check that no tool call is left without its result, none is
 * repeated, and no result comes without an earlier call.
 */
function assertCallsPaired(messages: readonly ContextMessage[]): void {
  const answered = new Map<string, boolean>();
  for (const m of messages) {
    if (m.role === "assistant") {
      for (const b of (m as AssistantMessage).content) {
        if (b.type !== "toolCall") continue;
        const id = String(b.id);
        assert.equal(answered.has(id), false, `tool call ${id} repeated`);
        answered.set(id, false);
      }
    } else if (m.role === "toolResult") {
      const id = (m as ToolResultMessage).toolCallId;
      assert.equal(answered.has(id), true, `result ${id} without a call`);
      assert.equal(answered.get(id), false, `result ${id} repeated`);
      answered.set(id, true);
    }
  }
  const dangling = [...answered].filter(([, done]) => !done).map(([id]) => id);
  assert.deepEqual(dangling, [], "tool calls without a result");
}

Deno.test("xdev's contract: the fixture is a real omp file with a 256-byte slot and a model_change", async () => {
  const bytes = await Deno.readFile(SAMPLE);
  assert.equal(bytes.indexOf(0x0a), 255, "line 1 is 255 bytes before its \\n");
  const text = new TextDecoder().decode(bytes);
  assert.equal(text.includes('"type":"model_change"'), true);
});

Deno.test("xdev's contract: Session.open() of omp-sample.jsonl", async (t) => {
  for (const window of [false, true]) {
    await t.step(`window: ${window}`, async (t) => {
      await using s = await Session.open(SAMPLE, { window });
      await t.step("opens without damage", () => {
        assert.deepEqual(s.issues, []);
      });
      await t.step(
        "11 entries: 6 message, 3 custom, 1 model_change, 1 title_change",
        async () => {
          // The windowed open keeps only what the context needs: count what
          // the whole open keeps, and that the windowed one agrees on the path.
          await using whole = await Session.open(SAMPLE, { window: false });
          const counts: Record<string, number> = {};
          for (const e of whole.entries) {
            counts[e.type] = (counts[e.type] ?? 0) + 1;
          }
          assert.equal(whole.entries.length, 11);
          assert.deepEqual(counts, {
            message: 6,
            custom: 3,
            model_change: 1,
            title_change: 1,
          });
          assert.deepEqual(
            s.buildContext().activePath,
            whole.buildContext().activePath,
          );
        },
      );
      await t.step("the leaf is fdaab2a0, the last entry", () => {
        assert.equal(s.leafId, "fdaab2a0");
        assert.equal(s.entries.at(-1)?.id, "fdaab2a0");
      });
      await t.step("the title from the slot, the cwd from the header", () => {
        assert.equal(s.titleSlot?.title, TITLE);
        assert.equal(s.title, TITLE);
        assert.equal(s.header.cwd, "/home/dev/.config/herdr");
      });
      const ctx = s.buildContext();
      await t.step("the model is router/free", () => {
        assert.equal(ctx.model, "router/free");
      });
      await t.step(
        "6 messages: user, assistant, toolResult, assistant, toolResult, assistant",
        () => {
          assert.deepEqual(ctx.messages.map((m) => m.role), [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "toolResult",
            "assistant",
          ]);
        },
      );
      await t.step("the first user message's text", () => {
        assert.equal(
          textOf(ctx.messages[0]),
          "config my herdr hide the sidbar",
        );
      });
      await t.step(
        "the last assistant message's dangling call is dropped, its thinking kept",
        async () => {
          const raw = (await Deno.readTextFile(SAMPLE)).trimEnd().split("\n");
          const last = JSON.parse(raw.at(-1)!);
          assert.equal(last.id, "fdaab2a0");
          assert.deepEqual(
            last.message.content.map((b: { type: string }) => b.type),
            ["thinking", "toolCall"],
            "on disk: thinking, then the call",
          );
          assert.deepEqual(blockTypes(ctx.messages[5]), ["thinking"]);
        },
      );
      await t.step(
        "no call without its result, none repeated, no result without a call",
        () => assertCallsPaired(ctx.messages),
      );
    });
  }
});

Deno.test("xdev's contract: opening and closing never changes a byte of omp-sample.jsonl", async () => {
  const before = await Deno.readFile(SAMPLE);
  const stat = await Deno.stat(SAMPLE);
  for (const window of [false, true]) {
    const s = await Session.open(SAMPLE, { window });
    s.buildContext();
    await s.close();
  }
  assert.deepEqual(await Deno.readFile(SAMPLE), before);
  assert.equal(
    (await Deno.stat(SAMPLE)).mtime?.getTime(),
    stat.mtime?.getTime(),
  );
});

Deno.test("xdev's contract: Session.branch() on a copy of omp-sample.jsonl", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "omp-copy.jsonl");
    await Deno.copyFile(SAMPLE, path);
    {
      await using s = await Session.open(path);
      await t.step(
        `branching to ${FIRST_ASSISTANT} makes it the leaf`,
        async () => {
          await s.branch(FIRST_ASSISTANT);
          assert.equal(s.leafId, FIRST_ASSISTANT);
        },
      );
      await t.step(
        "the context is then the user message and the assistant without its dangling call",
        () => {
          const ctx = s.buildContext();
          assert.deepEqual(ctx.messages.map((m) => m.role), [
            "user",
            "assistant",
          ]);
          assert.deepEqual(blockTypes(ctx.messages[1]), ["thinking"]);
          assertCallsPaired(ctx.messages);
        },
      );
      await s.appendMessage({ role: "user", content: "on branch" });
    }
    await t.step(
      `after an append and a reopen, the file holds a branch marker to ${FIRST_ASSISTANT}`,
      async () => {
        await using again = await Session.open(path, { window: false });
        const markers = again.entries.filter((e) =>
          e.type === "custom" && e.customType === "branch"
        );
        assert.equal(markers.length, 1);
        assert.deepEqual(
          (markers[0] as { data?: unknown }).data,
          { to: FIRST_ASSISTANT },
        );
        // and the reopened session continues on the branch
        const ctx = again.buildContext();
        assert.deepEqual(ctx.messages.map((m) => m.role), [
          "user",
          "assistant",
          "user",
        ]);
        assert.equal(textOf(ctx.messages[2]), "on branch");
      },
    );
    await t.step("what was there stays as it was, byte for byte", async () => {
      const before = await Deno.readFile(SAMPLE);
      const after = await Deno.readFile(path);
      assert.deepEqual(after.subarray(0, before.length), before);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("xdev's contract: our context of omp-sample.jsonl equals omp's, field by field", async (t) => {
  const expected = JSON.parse(await Deno.readTextFile(OMP_CONTEXT));
  await using s = await Session.open(SAMPLE);
  const actual = JSON.parse(JSON.stringify(
    await contextToJson(s.buildContext(), s.title, s.titleSource),
  ));
  for (const field of CONTEXT_JSON_FIELDS) {
    await t.step(field, () => assert.deepEqual(actual[field], expected[field]));
  }
});
