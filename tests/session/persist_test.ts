import assert from "node:assert/strict";
import { join } from "node:path";
import type { SessionEntry } from "../../src/format/entries.ts";
import type { EntryPayload } from "../../src/session/entry_appender.ts";
import { Session } from "../../src/session/session.ts";
import { DATA_URL, JPG, ompShapedPayloads, PNG } from "../_omp_blob_entries.ts";
import { tempDir } from "../_session_files.ts";

const enc = new TextEncoder();

/** A parsed line, walked freely by the assertions. */
// deno-lint-ignore no-explicit-any
type Json = any;

async function sha256(bytes: Uint8Array): Promise<string> {
  return new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as BufferSource),
  ).toHex();
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

/** The context's messages after the compaction summary, as plain JSON (a custom message's entry timestamp left out). */
function messagesOf(s: Session): unknown[] {
  return s.buildContext().messages.slice(1).map((m) => {
    const { timestamp: _, ...rest } = m as Record<string, unknown>;
    return JSON.parse(JSON.stringify(m.role === "custom" ? rest : m));
  });
}

/** What the context should hold: each payload's message, images inline. */
function expectedMessages(): unknown[] {
  return ompShapedPayloads().slice(1).map((p) =>
    p.type === "message" ? p.message : {
      role: "custom",
      customType: p.customType,
      content: p.content,
      display: p.display,
      details: p.details,
    }
  );
}

Deno.test("Session appends store image bytes wherever omp does, and the context resolves them", async (t) => {
  await using dir = await tempDir();
  const dataDir = dir.path;
  const s = await Session.create({ cwd: "/home/dev/app", dataDir });
  await s.ensureOnDisk();
  const written = await s.appendBatch(ompShapedPayloads() as EntryPayload[]);
  const path = s.path!;
  const png = await sha256(PNG);
  const jpg = await sha256(JPG);
  const url = await sha256(enc.encode(DATA_URL));

  await t.step("no image bytes are left in the file", async () => {
    const text = await Deno.readTextFile(path);
    assert.ok(!text.includes(PNG.toBase64()));
    assert.ok(!text.includes(JPG.toBase64()));
    assert.ok(!text.includes("data:image/png;base64,"));
  });
  await t.step("each position holds its reference", async () => {
    const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
    const byId = new Map(
      lines.slice(2).map((l) => JSON.parse(l) as SessionEntry).map((
        e,
      ) => [e.id, e as Json]),
    );
    const [compaction, user, assistant, tool, custom] = written.filter((e) =>
      e.type !== "custom"
    ).map((e) => byId.get(e.id)!);
    assert.equal(
      compaction!.preserveData.snapcompact.frames[0].data,
      `blob:sha256:${png}`,
    );
    assert.equal(user!.message.content[1].data, `blob:sha256:${png}`);
    const items = assistant!.message.providerPayload.items;
    assert.equal(items[0].result, `blob:sha256:${jpg}`);
    assert.equal(items[1].content[0].image_url, `blob:sha256:${url}`);
    assert.equal(tool!.message.content[1].data, `blob:sha256:${jpg}`);
    assert.equal(tool!.message.details.images[0].data, `blob:sha256:${png}`);
    assert.equal(
      tool!.message.details.nested.content[0].data,
      `blob:sha256:${png}`,
    );
    assert.equal(custom!.content[0].data, `blob:sha256:${png}`);
    assert.equal(custom!.details.images[0].data, `blob:sha256:${jpg}`);
  });
  await t.step("the blobs, with omp's typed twins for images", async () => {
    assert.deepEqual(
      await names(join(dataDir, "blobs")),
      [png, `${png}.png`, jpg, `${jpg}.jpg`, url].sort(),
    );
    assert.deepEqual(
      await Deno.readTextFile(join(dataDir, "blobs", url)),
      DATA_URL,
    );
  });
  await t.step("the context of the session resolves every position", () => {
    assert.deepEqual(messagesOf(s), expectedMessages());
  });
  await t.step("and so does the context of the file reopened", async () => {
    await s.close();
    for (const window of [true, false]) {
      await using again = await Session.open(path, { window });
      assert.deepEqual(again.issues, []);
      assert.deepEqual(messagesOf(again), expectedMessages());
    }
  });
  await t.step("the entries themselves keep their references", async () => {
    await using again = await Session.open(path, { window: false });
    const tool = again.entries.find((e) =>
      e.type === "message" &&
      (e.message as { role: string }).role === "toolResult"
    ) as Json;
    assert.equal(tool.message.details.images[0].data, `blob:sha256:${png}`);
  });
});

const usage = {
  input: 3,
  output: 4,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 7,
};
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };

function taskResult(details: unknown): EntryPayload {
  return {
    type: "message",
    message: {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "task",
      content: [{ type: "text", text: "done" }],
      details,
      isError: false,
      timestamp: 1,
    },
  };
}

Deno.test("Session appends give every usage omp reads a cost", async (t) => {
  await using dir = await tempDir();
  const s = await Session.create({ cwd: "/app", dataDir: dir.path });
  await s.ensureOnDisk();
  const disk = async (): Promise<Json> => {
    const lines = (await Deno.readTextFile(s.path!)).trimEnd().split("\n");
    return JSON.parse(lines.at(-1)!);
  };
  await t.step("a task tool result's details.usage", async () => {
    await s.append(taskResult({ usage, agent: "explore" }));
    const e = await disk();
    assert.deepEqual(e.message.details.usage, { ...usage, cost: zero });
    assert.equal(e.message.details.agent, "explore");
  });
  await t.step("an assistant message's usage", async () => {
    await s.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage,
      stopReason: "stop",
      timestamp: 2,
    } as never);
    assert.deepEqual((await disk()).message.usage, { ...usage, cost: zero });
  });
  await t.step("a model_usage entry's usage", async () => {
    await s.appendModelUsage({
      purpose: "title",
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-haiku-4-5",
      usage,
      stopReason: "stop",
    });
    assert.deepEqual((await disk()).usage, { ...usage, cost: zero });
  });
  await t.step("a cost given is kept", async () => {
    const cost = { ...zero, total: 0.25 };
    await s.append(taskResult({ usage: { ...usage, cost } }));
    assert.deepEqual((await disk()).message.details.usage.cost, cost);
  });
  await t.step("where omp reads no usage, nothing is added", async () => {
    await s.append({
      ...taskResult({ usage }),
      message: {
        ...taskResult({}).message as object,
        toolName: "read",
        details: { usage },
      },
    });
    assert.deepEqual((await disk()).message.details.usage, usage);
    await s.append(taskResult({ usage: null }));
    assert.equal((await disk()).message.details.usage, null);
    await s.append(taskResult("a string"));
    assert.equal((await disk()).message.details, "a string");
  });
  await t.step(
    "a usage omp would fail on is refused, nothing written",
    async () => {
      const before = await Deno.readFile(s.path!);
      await assert.rejects(
        s.appendModelUsage({
          purpose: "title",
          api: "a",
          provider: "p",
          model: "m",
          usage: 42,
          stopReason: "stop",
        }),
        (err: unknown) => {
          assert.ok(err instanceof TypeError);
          assert.match(err.message, /usage is not an object/);
          return true;
        },
      );
      assert.deepEqual(await Deno.readFile(s.path!), before);
    },
  );
  await s.close();
});
