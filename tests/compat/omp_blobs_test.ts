/**
 * Blobs and usage costs against real omp 18.3.4 (the peer oracle, installed
 * in `.cache/omp` by `deno task interop`): omp resolves every image position
 * we write, we resolve every one omp writes, our on-disk entries are omp's,
 * and a `task` result without a cost loads in omp once we wrote it.
 *
 * Skipped where the oracle is absent.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { contextToJson } from "../../src/context/context_json.ts";
import type { SessionEntry } from "../../src/format/entries.ts";
import type { EntryPayload } from "../../src/session/entry_appender.ts";
import { Session } from "../../src/session/session.ts";
import { ompShapedPayloads } from "../_omp_blob_entries.ts";
import { bun, HAS_OMP, OMP, oracle, SKIPPED } from "../_omp.ts";
import { sessionBytes, tempDir } from "../_session_files.ts";

const SESSION_SRC = join(
  OMP,
  "node_modules/@oh-my-pi/pi-coding-agent/src/session/",
);

/** omp's own persistence and loader, run by Bun on JSON in, JSON out. */
const SCRIPT = `
const S = ${JSON.stringify(SESSION_SRC)};
const { prepareEntryForPersistence } = await import(S + "session-persistence.ts");
const { BlobStore } = await import(S + "blob-store.ts");
const { loadEntriesFromFile, resolveBlobRefsInEntries } = await import(S + "session-loader.ts");
const [mode, input, blobs] = process.argv.slice(2);
const store = new BlobStore(blobs);
if (mode === "persist") {
  const entries = JSON.parse(await Bun.file(input).text());
  console.log(JSON.stringify(entries.map((e) => prepareEntryForPersistence(e, store))));
} else {
  const entries = await loadEntriesFromFile(input);
  await resolveBlobRefsInEntries(entries, store);
  console.log(JSON.stringify(entries.filter((e) => e.type !== "session")));
}
`;

/** Runs omp's `persist` (entries → on-disk entries) or `load` (file → resolved entries). */
async function omp(
  dir: string,
  mode: "persist" | "load",
  input: string,
  blobs: string,
): Promise<Record<string, unknown>[]> {
  const script = join(dir, "omp-blobs.ts");
  await Deno.writeTextFile(script, SCRIPT);
  const r = await bun(script, [mode, input, blobs]);
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  return r.json as Record<string, unknown>[];
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

/** Our session with the omp-shaped payloads; its path and its entries as written. */
async function ourSession(
  dataDir: string,
): Promise<{ path: string; written: SessionEntry[] }> {
  await using s = await Session.create({ cwd: "/home/dev/app", dataDir });
  await s.ensureOnDisk();
  const written = await s.appendBatch(ompShapedPayloads() as EntryPayload[]);
  return { path: s.path!, written: written.filter((e) => e.type !== "custom") };
}

/** The lines of a session file after its slot and header, parsed. */
async function entriesOf(path: string): Promise<Record<string, unknown>[]> {
  const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
  return lines.slice(2).map((l) => JSON.parse(l));
}

Deno.test({
  name:
    `omp resolves every image position we write, and writes them as we do${SKIPPED}`,
  ignore: !HAS_OMP,
  fn: async (t) => {
    await using dir = await tempDir();
    const ours = join(dir.path, "ours");
    const { path, written } = await ourSession(ours);
    const payloads = ompShapedPayloads();
    const onDisk = (await entriesOf(path)).filter((e) => e.type !== "custom");
    const input = join(dir.path, "input.json");

    await t.step("omp's loader puts back every image we stored", async () => {
      const loaded = (await omp(dir.path, "load", path, join(ours, "blobs")))
        .filter((e) => e.type !== "custom");
      assert.equal(loaded.length, payloads.length);
      for (let i = 1; i < payloads.length; i++) {
        const { type: _t, id: _i, parentId: _p, timestamp: _s, ...payload } =
          loaded[i]!;
        assert.deepEqual({ type: loaded[i]!.type, ...payload }, payloads[i]);
      }
      // Snapcompact frames stay references in omp until a rebuild needs them.
      assert.deepEqual(loaded[0], onDisk[0]);
    });
    await t.step(
      "omp's persistence writes the same lines and blobs",
      async () => {
        // Every entry of the file, those we appended as they were given (the
        // settings checkpoint after the compaction as written).
        const given = new Map(written.map((e, i) => [e.id, payloads[i]]));
        const all = await entriesOf(path);
        const full = all.map((e) => {
          const payload = given.get(e.id as string);
          if (payload === undefined) return e;
          const { type, id, parentId, timestamp } = e;
          return { type, id, parentId, timestamp, ...payload };
        });
        await Deno.writeTextFile(input, JSON.stringify(full));
        const theirs = join(dir.path, "theirs", "blobs");
        const persisted = await omp(dir.path, "persist", input, theirs);
        assert.deepEqual(persisted, all);
        assert.deepEqual(await names(theirs), await names(join(ours, "blobs")));
        for (const name of await names(theirs)) {
          assert.deepEqual(
            await Deno.readFile(join(theirs, name)),
            await Deno.readFile(join(ours, "blobs", name)),
          );
        }
      },
    );
    await t.step("we resolve what omp wrote to the same context", async () => {
      const theirs = join(dir.path, "theirs");
      const persisted = await omp(
        dir.path,
        "persist",
        input,
        join(theirs, "blobs"),
      );
      const file = join(theirs, "sessions", "-app", "s.jsonl");
      await Deno.mkdir(join(theirs, "sessions", "-app"), { recursive: true });
      await Deno.writeFile(file, sessionBytes(persisted));
      await using a = await Session.open(file);
      await using b = await Session.open(path);
      assert.deepEqual(a.issues, []);
      assert.deepEqual(a.buildContext().messages, b.buildContext().messages);
      const user = a.buildContext().messages[1] as {
        content: { data?: string }[];
      };
      assert.ok(!user.content[1]!.data!.startsWith("blob:"));
    });
    await t.step("omp rebuilds our context, resumes and appends", async () => {
      const ctx = await oracle(["context", path, "--data-dir", ours]);
      assert.equal(ctx.code, 0, JSON.stringify(ctx.json));
      await using s = await Session.open(path);
      const mine = JSON.parse(JSON.stringify(
        await contextToJson(s.buildContext(), s.title, s.titleSource),
      ));
      assert.deepEqual(mine.messages, ctx.json.messages);
      const copy = join(dir.path, "roundtrip.jsonl");
      const r = await oracle([
        "roundtrip",
        path,
        "--data-dir",
        ours,
        "--copy-to",
        copy,
      ]);
      assert.equal(r.code, 0, JSON.stringify(r.json));
    });
  },
});

const usage = {
  input: 30,
  output: 12,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 42,
};

const taskResult = {
  role: "toolResult",
  toolCallId: "call_1",
  toolName: "task",
  content: [{ type: "text", text: "The subagent found 3 callers." }],
  details: { agent: "explore", usage },
  isError: false,
  timestamp: 1,
};

Deno.test({
  name:
    `Session appends a task result without a cost that omp then loads${SKIPPED}`,
  ignore: !HAS_OMP,
  fn: async (t) => {
    await using dir = await tempDir();
    await t.step("as given, omp refuses the whole file", async () => {
      const raw = join(dir.path, "raw.jsonl");
      await Deno.writeFile(
        raw,
        sessionBytes([{
          type: "message",
          id: "0000000a",
          parentId: null,
          timestamp: "2026-10-01T09:00:00.000Z",
          message: taskResult,
        }]),
      );
      const r = await oracle(["context", raw]);
      assert.notEqual(r.code, 0);
      assert.match(JSON.stringify(r.json), /cost/);
    });
    await t.step(
      "written by us, omp loads, rebuilds and resumes it",
      async () => {
        const s = await Session.create({
          cwd: "/home/dev/app",
          dataDir: dir.path,
        });
        await s.ensureOnDisk();
        await s.appendMessage({
          role: "user",
          content: [{ type: "text", text: "Find the callers." }],
          timestamp: 0,
        } as never);
        await s.appendMessage(taskResult as never);
        await s.close();
        const ctx = await oracle(["context", s.path!]);
        assert.equal(ctx.code, 0, JSON.stringify(ctx.json));
        const r = await oracle([
          "roundtrip",
          s.path!,
          "--copy-to",
          join(dir.path, "rt.jsonl"),
        ]);
        assert.equal(r.code, 0, JSON.stringify(r.json));
      },
    );
  },
});
