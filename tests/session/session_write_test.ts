import {
  deepStrictEqual,
  equal,
  notEqual,
  ok,
  rejects,
} from "node:assert/strict";
import { encodeEntry } from "../../src/format/entries.ts";
import { Session, type SessionEntry, TITLE_SLOT_BYTES } from "../../mod.ts";
import { tempDir } from "../_session_files.ts";

const T = Date.parse("2026-10-01T09:00:00.000Z");
const clock = (): () => Date => {
  let n = 0;
  return () => new Date(T + 1000 * n++);
};
const usage = { input: 10, output: 5, totalTokens: 15 }; // no cost: the writer adds one
const PNG = new Uint8Array(2048).map((_, i) => (i * 31) & 0xff);
const image = (bytes: Uint8Array) => ({
  type: "image",
  mimeType: "image/png",
  data: bytes.toBase64(),
});

/** Every entry type, through the typed helpers. */
async function writeEverything(s: Session): Promise<void> {
  await s.appendModelChange("anthropic/claude-sonnet-4-5");
  await s.appendModelChange("anthropic/claude-haiku-4-5", "smol");
  await s.appendThinkingLevelChange("high", "auto");
  await s.appendServiceTierChange({ openai: "flex" });
  await s.appendModeChange("plan", { step: 1 });
  await s.appendTtsrInjection(["no-secrets"]);
  await s.appendCredentialPin("anthropic", "abc123");
  await s.appendSessionInit({
    systemPrompt: "You help.",
    task: "Explore",
    tools: ["read"],
  });
  const first = await s.appendMessage({
    role: "user",
    content: [{ type: "text", text: "Look at this ✓" }, image(PNG)],
  });
  await s.appendLabel(first.id, "start ✨");
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "Reading." }, {
      type: "toolCall",
      id: "call_1",
      name: "read",
      arguments: { path: "a.ts" },
    }],
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    api: "anthropic-messages",
    usage,
    stopReason: "toolUse",
  });
  await s.appendMessage({
    role: "toolResult",
    toolCallId: "call_1",
    toolName: "read",
    content: [{ type: "text", text: "export {}" }],
    isError: false,
  });
  await s.appendModelUsage({
    purpose: "title",
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-haiku-4-5",
    usage,
    stopReason: "stop",
  });
  await s.appendCustom("todo-state", { items: 2 });
  await s.appendCustomMessage("hook-note", "Keep commits small.", {
    display: true,
  });
  await s.append({ type: "xdev_future_thing", payload: [1, 2, 3] });
  const kept = await s.appendMessage({
    role: "user",
    content: "Summarize, please.",
  });
  await s.appendCompaction({
    summary: "## Summary\nWe read a.ts.",
    shortSummary: "Read a.ts",
    firstKeptEntryId: kept.id,
    tokensBefore: 1234,
  });
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "Done. 完成" }],
    provider: "openai",
    model: "gpt-5.1-codex",
    api: "openai-responses",
    usage,
    stopReason: "stop",
  });
}

Deno.test("Session.create() → append every entry type → open gives the same context", async () => {
  await using dir = await tempDir();
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir: dir.path,
    now: clock(),
  });
  equal(s.onDisk, false);
  await writeEverything(s);
  await s.ensureOnDisk();
  const inMemory = s.buildContext();
  await s.setTitle("Everything, once", "manual");
  await s.close();
  for (const window of [true, false]) {
    await using again = await Session.open(s.path!, { window });
    deepStrictEqual(again.issues, []);
    const ctx = again.buildContext();
    deepStrictEqual(ctx.messages, inMemory.messages, `window: ${window}`);
    deepStrictEqual([ctx.models, ctx.thinkingLevel, ctx.labels], [
      inMemory.models,
      inMemory.thinkingLevel,
      inMemory.labels,
    ]);
    equal(again.title, "Everything, once");
    equal(again.titleSource, "manual");
  }
  // On disk: envelope first, every usage has a cost, the image is a blob ref with its twin.
  const lines = (await Deno.readTextFile(s.path!)).split("\n").filter((l) =>
    l !== ""
  );
  equal(new TextEncoder().encode(lines[0]! + "\n").length, TITLE_SLOT_BYTES);
  for (const line of lines.slice(2)) {
    ok(
      /^\{"type":"[^"]+","id":"[0-9a-f]{8}","parentId":/.test(line),
      line.slice(0, 80),
    );
    if (line.includes('"usage"')) {
      ok(line.includes('"cost":{'), "usage without cost");
    }
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", PNG))
    .toHex();
  ok(lines.some((l) => l.includes(`"data":"blob:sha256:${digest}"`)));
  deepStrictEqual(await Deno.readFile(`${dir.path}/blobs/${digest}`), PNG);
  ok((await Deno.stat(`${dir.path}/blobs/${digest}.png`)).isFile);
  ok(
    lines.some((l) => l.includes('"customType":"xdev.settings"')),
    "a checkpoint follows the compaction",
  );
});

Deno.test("Session.create() writes nothing until needed; auto-persist waits for the first answer", async () => {
  await using dir = await tempDir();
  const s = await Session.create({ cwd: "/home/dev/app", dataDir: dir.path });
  s.enableAutoPersist();
  await s.appendMessage({ role: "user", content: "Hello?" });
  await rejects(Deno.stat(s.path!), Deno.errors.NotFound);
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "Hi." }],
    provider: "p",
    model: "m",
    stopReason: "stop",
  });
  equal(s.onDisk, true);
  const st = await Deno.stat(s.path!);
  equal(st.mode! & 0o777, 0o600);
  equal((await Deno.stat(`${dir.path}/sessions`)).mode! & 0o777, 0o700);
  await s.close();
  await using again = await Session.open(s.path!);
  equal(again.buildContext().messages.length, 2);
  equal(again.header.version, 3);
  ok(/^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(again.header.id), "a UUIDv7 id");
  ok(s.path!.includes("/sessions/-"), s.path);
});

Deno.test("Session.setTitle() rewrites the slot in place and leaves every other byte", async () => {
  await using dir = await tempDir();
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir: dir.path,
    title: "First",
  });
  await s.appendMessage({ role: "user", content: "x" });
  await s.ensureOnDisk();
  const before = await Deno.readFile(s.path!);
  await s.setTitle("A much longer title 🛠️ 去掉全局状态 ".repeat(8));
  const after = await Deno.readFile(s.path!);
  deepStrictEqual(
    after.subarray(TITLE_SLOT_BYTES, before.length),
    before.subarray(TITLE_SLOT_BYTES),
  );
  notEqual(
    new TextDecoder().decode(after.subarray(0, TITLE_SLOT_BYTES)),
    new TextDecoder().decode(before.subarray(0, TITLE_SLOT_BYTES)),
  );
  equal(after[TITLE_SLOT_BYTES - 1], 10);
  const added = new TextDecoder().decode(after.subarray(before.length));
  ok(
    added.startsWith('{"type":"title_change"') && added.endsWith("\n") &&
      added.split("\n").length === 2,
  );
  await s.close();
  await using again = await Session.open(s.path!);
  ok(again.title!.startsWith("A much longer title 🛠️"));
  equal(again.titleSource, "manual");
  await rejects(again.setTitle(" \t\n "), TypeError);
});

Deno.test("Session.setTitle() on a file without a slot rewrites it once, whole", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/legacy.jsonl`;
  const header = {
    type: "session",
    version: 3,
    id: "01a0f000-0000-7000-8000-000000000001",
    timestamp: "2026-10-01T09:00:00.000Z",
    cwd: "/x",
  };
  const entry = {
    type: "message",
    id: "0000000a",
    parentId: null,
    timestamp: "2026-10-01T09:00:01.000Z",
    message: { role: "user", content: "hi" },
  };
  await Deno.writeTextFile(
    path,
    `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`,
  );
  await using s = await Session.open(path);
  await s.setTitle("Now titled");
  await s.appendMessage({ role: "user", content: "after" });
  const lines = (await Deno.readTextFile(path)).split("\n");
  equal(new TextEncoder().encode(lines[0]! + "\n").length, TITLE_SLOT_BYTES);
  equal(lines[1], JSON.stringify(header));
  equal(lines[2], JSON.stringify(entry));
  await using again = await Session.open(path);
  equal(again.title, "Now titled");
  equal(again.buildContext().messages.length, 2);
});

Deno.test("Session.branch() writes the marker under its target and moves the leaf", async (t) => {
  await using dir = await tempDir();
  const s = await Session.create({ cwd: "/home/dev/app", dataDir: dir.path });
  const a = await s.appendMessage({ role: "user", content: "one" });
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "two" }],
    provider: "p",
    model: "m",
    stopReason: "stop",
  });
  await s.ensureOnDisk();
  await t.step("the marker", async () => {
    const marker = await s.branch(a.id);
    equal(marker.parentId, a.id);
    deepStrictEqual(marker.data, { to: a.id });
    equal(s.leafId, a.id);
    const c = await s.appendMessage({
      role: "user",
      content: "three, on a branch",
    });
    equal(c.parentId, a.id);
    await using again = await Session.open(s.path!);
    deepStrictEqual(
      again.buildContext().messages.map((m) =>
        (m as { content: string }).content
      ),
      ["one", "three, on a branch"],
    );
  });
  await t.step("an unknown id", async () => {
    await rejects(s.branch("nowhere"), RangeError);
  });
  await t.step(
    "a branch summary becomes the leaf under its branch point",
    async () => {
      const summary = await s.appendBranchSummary(a.id, "Tried the other way.");
      equal(summary.parentId, a.id);
      equal(s.leafId, summary.id);
    },
  );
  await s.close();
});

Deno.test("Session.branch() to an entry outside the window reloads the window from disk", async () => {
  await using dir = await tempDir();
  const s = await Session.create({ cwd: "/home/dev/app", dataDir: dir.path });
  const early = await s.appendMessage({ role: "user", content: "early" });
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "reply" }],
    provider: "p",
    model: "m",
    stopReason: "stop",
  });
  await s.appendCompaction({
    summary: "S",
    firstKeptEntryId: null,
    tokensBefore: 1,
  });
  await s.appendMessage({ role: "user", content: "late" });
  await s.ensureOnDisk();
  await s.close();
  await using again = await Session.open(s.path!);
  equal(again.getEntry(early.id), undefined); // outside the window
  await again.branch(early.id);
  equal(again.leafId, early.id);
  deepStrictEqual(
    again.buildContext().messages.map((m) =>
      (m as { content: string }).content
    ),
    ["early"],
  );
});

Deno.test("Session appends: a crash mid-append loses only the torn line; the next append starts fresh", async () => {
  await using dir = await tempDir();
  const s = await Session.create({ cwd: "/home/dev/app", dataDir: dir.path });
  await s.appendMessage({ role: "user", content: "kept 1" });
  await s.appendMessage({ role: "user", content: "kept 2" });
  await s.ensureOnDisk();
  await s.close();
  const path = s.path!;
  const intact = await Deno.readFile(path);
  // A third line torn by a crash half-way.
  const torn = new TextEncoder().encode(
    '{"type":"message","id":"0000dead","parentId":null,"timestamp":"x","mess',
  );
  await Deno.writeFile(path, torn, { append: true });
  await using again = await Session.open(path);
  deepStrictEqual(again.issues.map((i) => i.kind), ["torn-line"]);
  await again.appendMessage({ role: "user", content: "after the crash" });
  const bytes = await Deno.readFile(path);
  deepStrictEqual(bytes.subarray(0, intact.length), intact);
  await using third = await Session.open(path, { window: false });
  deepStrictEqual(
    third.buildContext().messages.map((m) =>
      (m as { content: string }).content
    ),
    ["kept 1", "kept 2", "after the crash"],
  );
  deepStrictEqual(third.issues.map((i) => i.kind), ["not-json"]); // the torn line, alone on its line
});

Deno.test("Session appends refuse what cannot be appended to", async (t) => {
  await t.step("a stream", async () => {
    const bytes = await Deno.readFile(
      new URL("../../fixtures/omp/s1-reset.jsonl", import.meta.url),
    );
    await using s = await Session.fromStream(new Blob([bytes]).stream());
    await s.appendMessage({ role: "user", content: "in memory only" });
    await rejects(s.ensureOnDisk(), TypeError);
  });
  await t.step(
    "a file of a version newer than this library writes",
    async () => {
      // (A version 1 or 2 file is migrated by its first append:
      // tests/session/migrate_file_test.ts.)
      await using dir = await tempDir();
      const path = `${dir.path}/v4.jsonl`;
      await Deno.writeTextFile(
        path,
        '{"type":"session","version":4,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x"}\n',
      );
      const before = await Deno.readFile(path);
      await using s = await Session.open(path);
      await rejects(
        s.appendMessage({ role: "user", content: "x" }),
        /it is a version 4 session, newer than this library writes/,
      );
      deepStrictEqual(await Deno.readFile(path), before);
    },
  );
  await t.step("a closed session", async () => {
    await using dir = await tempDir();
    const s = await Session.create({ cwd: "/x", dataDir: dir.path });
    await s.close();
    await rejects(s.appendMessage({ role: "user", content: "x" }), Error);
  });
});

Deno.test("Session appends store long tool output as a blob when asked", async () => {
  await using dir = await tempDir();
  const s = await Session.create({
    cwd: "/x",
    dataDir: dir.path,
    textBlobThreshold: 1000,
  });
  await s.ensureOnDisk();
  const long = "line ✓\n".repeat(500);
  await s.appendMessage({
    role: "toolResult",
    toolCallId: "c",
    toolName: "bash",
    content: [{ type: "text", text: long }],
    isError: false,
  });
  await s.close();
  const text = await Deno.readTextFile(s.path!);
  ok(!text.includes("line ✓"), "the text went to the blob store");
  await using again = await Session.open(s.path!);
  const m = again.entries.at(-1) as SessionEntry & {
    message: { content: { text: string }[] };
  };
  ok(m.message.content[0]!.text.startsWith("blob:sha256:"));
  equal(
    (again.buildContext().messages[0] as { content: { text: string }[] })
      .content[0]!.text,
    long,
  );
  equal(encodeEntry(again.entries.at(-1)!), text.trimEnd().split("\n").at(-1));
});

Deno.test("Session.create() keeps extra header fields but never lets them replace the core ones", async () => {
  await using dir = await tempDir();
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir: dir.path,
    header: { providerPromptCacheKey: "k1", id: "not-mine", version: 9 },
  });
  equal(s.header.providerPromptCacheKey, "k1");
  equal(s.header.version, 3);
  notEqual(s.header.id, "not-mine");
});
