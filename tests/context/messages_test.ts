/**
 * What each emitted entry gives the context, for the shapes xdev's Go store
 * writes (DESIGN §3.11): a compaction's and a branch summary's `summary` as
 * a message object, a branch summary without `fromId`
 * (`fixtures/xdev/xdev-summaries.jsonl`, with what omp 18.3.4 rebuilds
 * from it).
 */

import assert from "node:assert/strict";
import {
  type BranchSummaryMessage,
  type CompactionSummaryMessage,
  contextToJson,
  Session,
  type SessionEntry,
} from "../../mod.ts";
import { buildSessionContext } from "../../src/context/context.ts";
import { CONTEXT_JSON_FIELDS } from "../../src/context/context_json.ts";
import { cli } from "../_cli.ts";

const XDEV = new URL("../../fixtures/xdev/", import.meta.url);
const FILE = new URL("xdev-summaries.jsonl", XDEV).pathname;
const COMPACTION_TEXT =
  "## Summary\nThe user asked two questions about the app.";
const BRANCH_TEXT =
  "Abandoned branch: the third question was tried and dropped.";

Deno.test("buildContext() gives the model the text of summaries xdev wrote as message objects", async (t) => {
  const lines = (await Deno.readTextFile(FILE)).split("\n");
  for (const window of [true, false]) {
    await t.step(`window: ${window}`, async () => {
      await using s = await Session.open(FILE, { window });
      const ctx = s.buildContext();
      assert.deepEqual(ctx.messages.map((m) => m.role), [
        "compactionSummary",
        "user",
        "assistant",
        "branchSummary",
        "user",
        "assistant",
      ]);
      const compaction = ctx.messages[0] as CompactionSummaryMessage;
      assert.equal(compaction.summary, COMPACTION_TEXT);
      assert.equal(compaction.tokensBefore, 1200);
      const branch = ctx.messages[3] as BranchSummaryMessage;
      assert.equal(branch.summary, BRANCH_TEXT);
      assert.equal("fromId" in branch, false, "the entry names no fromId");
      // The message objects are kept beside their text, as written.
      const written = (id: string) =>
        (JSON.parse(lines.find((l) => l.includes(`"id":"${id}"`))!)).summary;
      assert.deepEqual(compaction.summaryMessage, written("c1000006"));
      assert.deepEqual(branch.summaryMessage, written("c1000009"));
    });
  }
});

Deno.test("contextToJson() of xdev's summaries equals omp's, which keeps the message objects", async (t) => {
  const expected = JSON.parse(
    await Deno.readTextFile(new URL("xdev-summaries.omp-context.json", XDEV)),
  );
  await using s = await Session.open(FILE);
  const actual = JSON.parse(JSON.stringify(
    await contextToJson(s.buildContext(), s.title, s.titleSource),
  ));
  for (const field of CONTEXT_JSON_FIELDS) {
    await t.step(field, () => assert.deepEqual(actual[field], expected[field]));
  }
  await t.step("the summaries are the objects on disk", () => {
    assert.equal(typeof actual.messages[0].summary, "object");
    assert.equal(actual.messages[3].summary.content[0].text, BRANCH_TEXT);
  });
});

Deno.test("cli context shows the text of xdev's summaries, never [object Object]", async () => {
  const r = await cli(["context", FILE]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.includes("[object Object]"), false, r.stdout);
  assert.ok(
    r.stdout.includes(`── summary of earlier history ──\n${COMPACTION_TEXT}`),
    r.stdout,
  );
  assert.ok(
    r.stdout.includes(`── summary of an abandoned branch ──\n${BRANCH_TEXT}`),
    r.stdout,
  );
  const tree = await cli(["tree", FILE]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.ok(
    tree.stdout.includes(`branch summary: ${BRANCH_TEXT}`),
    tree.stdout,
  );
});

Deno.test("buildSessionContext() reads each shape of a summary", async (t) => {
  const t0 = "2026-01-01T00:00:00.000Z";
  const root: SessionEntry = {
    type: "message",
    id: "0000000a",
    parentId: null,
    timestamp: t0,
    message: { role: "user", content: "hi" },
  };
  const messagesOf = (e: Record<string, unknown>) => {
    const entry = {
      id: "0000000b",
      parentId: "0000000a",
      timestamp: t0,
      ...e,
    } as SessionEntry;
    const entries = [root, entry];
    const byId = new Map(entries.map((x) => [x.id, x]));
    return buildSessionContext(entries, byId, entry.id).messages;
  };
  const written = (text: string | unknown[]) => ({
    role: "user",
    content: text,
  });
  await t.step("a string, as omp writes it", () => {
    const [m] = messagesOf({
      type: "compaction",
      summary: "s",
      firstKeptEntryId: null,
      tokensBefore: 1,
    });
    assert.deepEqual(
      m,
      {
        role: "compactionSummary",
        summary: "s",
        tokensBefore: 1,
        timestamp: t0,
      },
    );
  });
  await t.step("a message's text blocks, joined as xdev joins them", () => {
    const [m] = messagesOf({
      type: "compaction",
      summary: written([
        { type: "text", text: "a" },
        { type: "thinking", thinking: "not text" },
        { type: "text", text: "b" },
      ]),
      firstKeptEntryId: null,
      tokensBefore: 1,
    });
    assert.equal((m as CompactionSummaryMessage).summary, "ab");
  });
  await t.step("a message whose content is a string", () => {
    const [m] = messagesOf({
      type: "compaction",
      summary: written("plain"),
      firstKeptEntryId: null,
      tokensBefore: 1,
    });
    assert.equal((m as CompactionSummaryMessage).summary, "plain");
  });
  await t.step("a compaction without text still stands for the history", () => {
    const messages = messagesOf({
      type: "compaction",
      summary: written([]),
      firstKeptEntryId: null,
      tokensBefore: 1,
    });
    assert.deepEqual(messages.map((m) => m.role), ["compactionSummary"]);
    assert.equal((messages[0] as CompactionSummaryMessage).summary, "");
  });
  await t.step("a branch summary without text reaches no context", () => {
    for (const summary of ["", written([]), written([{ type: "image" }]), 7]) {
      const messages = messagesOf({ type: "branch_summary", summary });
      assert.deepEqual(messages.map((m) => m.role), ["user"]);
    }
  });
  await t.step("a branch summary keeps the fromId it names", () => {
    const [, m] = messagesOf({
      type: "branch_summary",
      fromId: "0000000a",
      summary: written([{ type: "text", text: "tried X" }]),
    });
    assert.equal((m as BranchSummaryMessage).fromId, "0000000a");
    assert.equal((m as BranchSummaryMessage).summary, "tried X");
  });
});
