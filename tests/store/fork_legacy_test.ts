import assert from "node:assert/strict";
import { join } from "node:path";
import { contextToJson } from "../../src/context/context_json.ts";
import { forkSession } from "../../src/store/fork.ts";
import { Session } from "../../src/session/session.ts";
import { tempDir } from "../_session_files.ts";

const PI = new URL("../../fixtures/pi/", import.meta.url).pathname;
const enc = new TextEncoder();

const T = "2025-11-20T23:33:50.805Z";
const V1_HEADER = {
  type: "session",
  id: "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
  timestamp: T,
  cwd: "/work",
};

function lines(values: unknown[]): string {
  return values.map((v) => `${typeof v === "string" ? v : JSON.stringify(v)}\n`)
    .join("");
}

function say(role: string, text: string): Record<string, unknown> {
  return {
    type: "message",
    timestamp: T,
    message: { role, content: [{ type: "text", text }] },
  };
}

async function contextJson(s: Session): Promise<unknown> {
  return JSON.parse(JSON.stringify(
    await contextToJson(s.buildContext(), s.title, s.titleSource),
  ));
}

Deno.test("forkSession() forks pi's version 1 session to a version 3 file with the same context", async (t) => {
  await using dir = await tempDir();
  const src = join(dir.path, "pi.jsonl");
  await Deno.copyFile(join(PI, "large-session-v1.jsonl"), src);
  const before = await Deno.readFile(src);
  const fork = await forkSession(src);
  await using a = await Session.open(src);
  await using b = await Session.open(fork.path);

  await t.step(
    "the result says it was migrated, with nothing read around",
    () => {
      assert.equal(fork.migrated, true);
      assert.deepEqual(fork.issues, []);
      assert.equal(fork.bytes, (Deno.statSync(fork.path)).size);
    },
  );
  await t.step("a version 3 header, the source's fields kept", () => {
    const header = b.header as Record<string, unknown>;
    assert.deepEqual(Object.keys(header), [
      "type",
      "version",
      "id",
      "timestamp",
      "cwd",
      "provider",
      "modelId",
      "thinkingLevel",
      "parentSession",
    ]);
    assert.equal(header.version, 3);
    assert.equal(header.parentSession, V1_HEADER.id);
    assert.equal(header.modelId, "claude-sonnet-4-5");
  });
  await t.step("every line is an entry, envelope first", async () => {
    const text = await Deno.readTextFile(fork.path);
    const body = text.split("\n").slice(2, -1);
    assert.equal(body.length, a.entries.length);
    for (const line of body) {
      assert.deepEqual(
        Object.keys(JSON.parse(line)).slice(0, 4),
        ["type", "id", "parentId", "timestamp"],
      );
    }
  });
  await t.step(
    "the entries are the ones the source migrates to, field by field",
    () => {
      assert.equal(a.migrated, true);
      assert.equal(b.migrated, false);
      assert.deepEqual(b.issues, []);
      assert.deepEqual(b.entries, a.entries);
      assert.equal(b.entries[0]!.id, "00000001");
    },
  );
  await t.step("the same context, every field, and its JSON form", async () => {
    assert.deepEqual(b.buildContext(), a.buildContext());
    assert.deepEqual(await contextJson(b), await contextJson(a));
    const omp = JSON.parse(
      await Deno.readTextFile(join(PI, "large-session-v1.context.json")),
    );
    const ours = await contextJson(b) as Record<string, unknown>;
    assert.deepEqual(ours.messages, omp.messages);
    assert.deepEqual(ours.models, omp.models);
    assert.equal(ours.model, omp.model);
    assert.equal(ours.thinkingLevel, omp.thinkingLevel);
  });
  await t.step("windowed and whole opens of the fork agree", async () => {
    await using whole = await Session.open(fork.path, { window: false });
    assert.deepEqual(b.buildContext(), whole.buildContext());
  });
  await t.step(
    "the fork takes appends and renames; the source stays as it was",
    async () => {
      // (Appending to the source itself migrates it in place:
      // tests/session/migrate_file_test.ts.)
      const m = await b.appendMessage({ role: "user", content: "Go on" });
      await b.setTitle("Port the selectors");
      await using again = await Session.open(fork.path);
      assert.deepEqual(again.issues, []);
      assert.equal(again.title, "Port the selectors");
      assert.equal(
        again.buildContext().activePath.some((p) => p.id === m.id),
        true,
      );
      assert.deepEqual(
        await Deno.readFile(src),
        before,
        "the source untouched",
      );
    },
  );
});

Deno.test("forkSession() migrates version 1 compactions and version 2 hook messages as the reader does", async (t) => {
  await using dir = await tempDir();
  await t.step(
    "version 1: firstKeptEntryIndex becomes firstKeptEntryId",
    async () => {
      const src = join(dir.path, "v1.jsonl");
      await Deno.writeTextFile(
        src,
        lines([
          V1_HEADER,
          say("user", "one"),
          say("user", "two"),
          {
            type: "compaction",
            timestamp: T,
            summary: "one and two",
            firstKeptEntryIndex: 2,
            tokensBefore: 10,
          },
          say("user", "three"),
        ]),
      );
      const fork = await forkSession(src);
      const text = await Deno.readTextFile(fork.path);
      const compaction = JSON.parse(text.split("\n")[4]!);
      assert.equal(compaction.firstKeptEntryId, "00000002");
      assert.equal(compaction.parentId, "00000002");
      assert.equal("firstKeptEntryIndex" in compaction, false);
      await using a = await Session.open(src);
      await using b = await Session.open(fork.path);
      assert.deepEqual(b.buildContext(), a.buildContext());
    },
  );
  await t.step("version 2: role hookMessage becomes custom", async () => {
    const src = join(dir.path, "v2.jsonl");
    await Deno.writeTextFile(
      src,
      lines([
        { ...V1_HEADER, version: 2 },
        {
          type: "message",
          id: "a1",
          parentId: null,
          timestamp: T,
          message: {
            role: "hookMessage",
            customType: "note",
            content: "hi",
            display: true,
          },
        },
        { ...say("user", "go"), id: "a2", parentId: "a1" },
      ]),
    );
    const fork = await forkSession(src);
    assert.equal(fork.migrated, true);
    await using a = await Session.open(src);
    await using b = await Session.open(fork.path);
    assert.equal(b.header.version, 3);
    const first = b.entries[0] as unknown as { message: { role: string } };
    assert.equal(first.message.role, "custom");
    assert.deepEqual(b.entries, a.entries);
    assert.deepEqual(b.buildContext(), a.buildContext());
  });
});

Deno.test("forkSession() migrates a damaged legacy file: skipped lines reported, the rest kept", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "damaged.jsonl");
  await Deno.writeTextFile(
    src,
    lines([V1_HEADER, say("user", "one"), "{not json", say("user", "two")]) +
      '{"type":"message","timest',
  );
  const fork = await forkSession(src);
  assert.deepEqual(fork.issues.map((i) => [i.kind, i.line]), [
    ["not-json", 3],
    ["torn-line", 5],
  ]);
  await using a = await Session.open(src);
  await using b = await Session.open(fork.path);
  assert.deepEqual(b.issues, []);
  assert.deepEqual(b.buildContext(), a.buildContext());
});

Deno.test("forkSession() migrates a ~100 MB version 1 session in bounded memory", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "big-v1.jsonl");
  const body = (await Deno.readTextFile(join(PI, "large-session-v1.jsonl")))
    .split("\n").slice(1).join("\n");
  const file = await Deno.open(src, { write: true, create: true });
  await file.write(enc.encode(`${JSON.stringify(V1_HEADER)}\n`));
  const chunk = enc.encode(body);
  for (let i = 0; i < 100; i++) {
    for (let at = 0; at < chunk.length;) {
      at += await file.write(chunk.subarray(at));
    }
  }
  file.close();
  const size = (await Deno.stat(src)).size;

  const rssBefore = Deno.memoryUsage().rss;
  let peak = rssBefore;
  const timer = setInterval(() => {
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }, 2);
  const started = performance.now();
  let fork;
  try {
    fork = await forkSession(src);
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - started;
  peak = Math.max(peak, Deno.memoryUsage().rss);
  const growth = peak - rssBefore;
  console.log(
    `migrating fork of ${size} bytes: ${ms.toFixed(0)} ms, peak RSS growth ${
      (growth / 2 ** 20).toFixed(1)
    } MiB`,
  );
  assert.deepEqual(fork.issues, []);
  assert.ok(growth < 96 * 2 ** 20, `rss grew ${growth} bytes`);
  await using s = await Session.open(fork.path);
  assert.deepEqual(s.issues, []);
  assert.equal(s.leafId, (100 * 1018).toString(16).padStart(8, "0"));
});
