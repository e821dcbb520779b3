/**
 * Continuing a version 1 or 2 session in place, as omp does: the first
 * write migrates the file to version 3 (whole or not at all, same path,
 * unknown fields kept), then appends (`src/session/_migrate_file.ts`).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { contextToJson, Session, type SessionEntry } from "../../mod.ts";
import { type FileHandle, realFs } from "../../src/_fs.ts";
import { override, withFs } from "../_fs_seam.ts";
import { HAS_OMP, oracle, SKIPPED } from "../_omp.ts";
import { tempDir } from "../_session_files.ts";

const PI = new URL("../../fixtures/pi/large-session-v1.jsonl", import.meta.url)
  .pathname;
const T = "2026-01-01T00:00:00.000Z";
const ID = "0190a3c4-0000-7000-8000-0000000000aa";
const dec = new TextDecoder();

/** A copy of pi's version 1 session in a temp folder. */
async function piCopy(dir: string, name = "pi.jsonl"): Promise<string> {
  const path = join(dir, name);
  await Deno.copyFile(PI, path);
  return path;
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

function lines(bytes: Uint8Array): string[] {
  return dec.decode(bytes).split("\n");
}

/** What the context holds, ids and timestamps aside (the same after a reopen). */
async function contextOf(s: Session): Promise<unknown> {
  const json = await contextToJson(s.buildContext(), s.title, s.titleSource);
  return JSON.parse(JSON.stringify(json));
}

Deno.test("Session.appendMessage() on a version 1 file migrates it in place, then appends", async (t) => {
  await using dir = await tempDir();
  const path = await piCopy(dir.path);
  const before = await Deno.readFile(path);
  let entries: SessionEntry[];
  let context: unknown;
  let appended: SessionEntry;
  {
    await using s = await Session.open(path);
    entries = structuredClone([...s.entries]);
    context = await contextOf(s);
    appended = await s.appendMessage({ role: "user", content: "Go on ✓" });
    await t.step("the session now holds a version 3 head", () => {
      assert.equal(s.header.version, 3);
      assert.equal(s.titleSlot?.updatedAt, s.header.timestamp);
    });
  }
  const after = await Deno.readFile(path);
  await t.step(
    "the same path holds a version 3 file with a title slot",
    async () => {
      assert.equal(after.indexOf(0x0a), 255);
      const header = JSON.parse(lines(after)[1]!);
      const old = JSON.parse(lines(before)[0]!);
      assert.deepEqual(header, { ...old, version: 3 }, "unknown fields kept");
      assert.deepEqual(
        (await names(dir.path)).filter((n) => n.endsWith(".tmp")),
        [],
        "no temp file left",
      );
    },
  );
  await t.step("every line keeps its fields, with its id and parent", () => {
    const oldLines = lines(before).slice(1, -1);
    const newLines = lines(after).slice(2, -2);
    assert.equal(newLines.length, oldLines.length);
    for (const [i, line] of newLines.entries()) {
      const { id, parentId, ...rest } = JSON.parse(line);
      assert.deepEqual(rest, JSON.parse(oldLines[i]!), `line ${i + 2}`);
      assert.equal(id, entries[i]!.id);
      assert.equal(parentId, entries[i]!.parentId);
    }
  });
  await t.step(
    "a reopen reads what the session held, and the new entry",
    async () => {
      await using again = await Session.open(path);
      assert.deepEqual(again.issues, []);
      assert.equal(again.migrated, false);
      assert.equal(again.header.version, 3);
      assert.equal(again.leafId, appended.id);
      assert.equal(appended.parentId, entries.at(-1)!.id);
      await using whole = await Session.open(path, { window: false });
      assert.deepEqual(whole.entries.slice(0, -1), entries);
      const ctx = await contextOf(again) as { messages: unknown[] };
      const was = context as { messages: unknown[] };
      assert.deepEqual(ctx.messages.slice(0, -1), was.messages);
      assert.deepEqual(ctx.messages.at(-1), {
        role: "user",
        content: "Go on ✓",
      });
    },
  );
  await t.step("the next append is a plain append", async () => {
    const size = (await Deno.stat(path)).size;
    const ino = (await Deno.stat(path)).ino;
    await using again = await Session.open(path);
    await again.appendMessage({ role: "user", content: "And again" });
    const now = await Deno.readFile(path);
    assert.deepEqual(now.subarray(0, size), after);
    assert.equal((await Deno.stat(path)).ino, ino);
  });
});

Deno.test("Session.setTitle() on a version 1 file migrates it, then renames it in place", async () => {
  await using dir = await tempDir();
  const path = await piCopy(dir.path);
  {
    await using s = await Session.open(path);
    await s.setTitle("Port the selectors");
  }
  await using again = await Session.open(path);
  assert.deepEqual(again.issues, []);
  assert.equal(again.header.version, 3);
  assert.equal(again.title, "Port the selectors");
  assert.equal(again.entries.at(-1)?.type, "title_change");
});

Deno.test("Session.appendMessage() on a version 2 file: hook messages become custom, the other lines stay byte for byte", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "v2.jsonl");
  const head = JSON.stringify({
    type: "session",
    version: 2,
    id: ID,
    timestamp: T,
    cwd: "/app",
    extra: { kept: true },
  });
  const a =
    `{"type":"message","id":"0000000a","parentId":null,"timestamp":"${T}","message":{"role":"user","content":"z\\u0065bra"}}`;
  const hook = {
    type: "message",
    id: "0000000b",
    parentId: "0000000a",
    timestamp: T,
    message: {
      role: "hookMessage",
      customType: "note",
      content: "from a hook",
      display: true,
      timestamp: 1,
    },
    unknown: 1,
  };
  const c =
    `{"type":"xdev_probe","id":"0000000c","parentId":"0000000b","timestamp":"${T}"}`;
  await Deno.writeTextFile(
    path,
    [head, a, JSON.stringify(hook), c].join("\n") + "\n",
  );
  {
    await using s = await Session.open(path);
    await s.appendMessage({ role: "user", content: "more" });
  }
  const out = (await Deno.readTextFile(path)).split("\n");
  assert.equal(out[0]!.length, 255, "a slot first");
  assert.equal(
    out[1],
    head.replace('"version":2', '"version":3'),
    "the header's keys in their order",
  );
  assert.equal(out[2], a, "an unchanged line, byte for byte");
  assert.deepEqual(JSON.parse(out[3]!), {
    ...hook,
    message: { ...hook.message, role: "custom" },
  });
  assert.equal(out[4], c);
  await using again = await Session.open(path);
  assert.deepEqual(again.issues, []);
  assert.deepEqual(
    again.buildContext().messages.map((m) => m.role),
    ["user", "custom", "user"],
  );
});

Deno.test("Session.appendMessage() migrating a damaged version 1 file keeps the damage where it was", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "v1.jsonl");
  const head = JSON.stringify({
    type: "session",
    id: ID,
    timestamp: T,
    cwd: "/app",
  });
  const msg = (text: string) =>
    JSON.stringify({
      type: "message",
      timestamp: T,
      message: { role: "user", content: text },
    });
  const notJson = '{"type":"message", this is not JSON}';
  const glued = msg("first of two") + msg("glued to it");
  const torn = '{"type":"message","timest';
  await Deno.writeTextFile(
    path,
    [head, msg("one"), notJson, "", glued, msg("two")].join("\n") + "\n" +
      torn,
  );
  let held: string[];
  {
    await using s = await Session.open(path);
    assert.deepEqual(s.issues.map((i) => i.kind), [
      "not-json",
      "blank-line",
      "glued-line",
      "torn-line",
    ]);
    held = s.entries.map((e) => e.id);
    await s.appendMessage({ role: "user", content: "after the damage" });
  }
  const out = (await Deno.readTextFile(path)).split("\n");
  assert.equal(out[3], notJson);
  assert.equal(out[4], "");
  assert.ok(
    out[5]!.endsWith(`}${msg("glued to it")}`),
    "the second value kept",
  );
  assert.equal(
    JSON.parse(out[5]!.slice(0, -msg("glued to it").length)).id,
    held[1],
  );
  assert.equal(out[7], torn, "the torn line alone on its line");
  await using again = await Session.open(path);
  assert.deepEqual(again.issues.map((i) => i.kind), [
    "not-json",
    "blank-line",
    "glued-line",
    "not-json", // the torn line, ended by the append's "\n" as any append ends it
  ]);
  assert.deepEqual(again.entries.map((e) => e.id).slice(0, -1), held);
  assert.deepEqual(
    again.buildContext().messages.map((m) =>
      (m as { content: string }).content
    ),
    ["one", "first of two", "two", "after the damage"],
  );
});

Deno.test("Session.appendMessage(): a failure mid-migration leaves the file byte-identical and the session usable", async (t) => {
  await using dir = await tempDir();
  const path = await piCopy(dir.path);
  const before = await Deno.readFile(path);
  await using s = await Session.open(path);
  const failures: [string, (file: FileHandle) => FileHandle, string?][] = [
    [
      "a write to the temp file fails halfway",
      (file) => {
        let n = 0;
        return override(file, {
          write: (p, at) => {
            // half of the first write lands, then the disk is full
            if (++n === 1) return file.write(p.subarray(0, p.length >> 1), at);
            throw new Error("ENOSPC: no space left on device");
          },
        });
      },
    ],
    [
      "the temp file cannot be flushed",
      (file) =>
        override(file, {
          syncData: () => Promise.reject(new Error("EIO: flush failed")),
        }),
    ],
    ["the rename fails", (file) => file, "rename"],
  ];
  for (const [name, wrap, at] of failures) {
    await t.step(name, async () => {
      await withFs({
        ...realFs,
        open: async (p, options) => {
          const file = await realFs.open(p, options);
          return p.endsWith(".tmp") ? wrap(file) : file;
        },
        rename: (from, to) =>
          at === "rename"
            ? Promise.reject(new Error("EXDEV: rename failed"))
            : realFs.rename(from, to),
      }, async () => {
        const opened = await Session.open(path, {
          sync: name.includes("flush"),
        });
        try {
          await assert.rejects(
            opened.appendMessage({ role: "user", content: "lost" }),
            /Cannot migrate/,
          );
        } finally {
          await opened.close();
        }
      });
      assert.deepEqual(await Deno.readFile(path), before);
      assert.deepEqual(
        (await names(dir.path)).filter((n) => n.endsWith(".tmp")),
        [],
        "no temp file left",
      );
    });
  }
  await t.step("the session then migrates and appends", async () => {
    await assert.rejects(
      withFs(
        { ...realFs, rename: () => Promise.reject(new Error("EXDEV")) },
        () => s.appendMessage({ role: "user", content: "not yet" }),
      ),
      /Cannot migrate/,
    );
    assert.equal(s.header.version ?? 1, 1);
    const m = await s.appendMessage({ role: "user", content: "now" });
    await using again = await Session.open(path);
    assert.equal(again.header.version, 3);
    assert.equal(again.leafId, m.id);
    assert.equal(
      again.buildContext().messages.filter((x) =>
        (x as { content?: unknown }).content === "not yet"
      ).length,
      0,
    );
  });
});

Deno.test("Session.appendMessage() refuses to migrate a file another writer replaced since the open", async () => {
  await using dir = await tempDir();
  const path = await piCopy(dir.path);
  await using s = await Session.open(path);
  // Another writer (omp, say) migrated it meanwhile, minting other ids.
  const other = await piCopy(dir.path, "other.jsonl");
  {
    await using o = await Session.open(other);
    await o.appendMessage({ role: "user", content: "theirs" });
  }
  await Deno.rename(other, path);
  const theirs = await Deno.readFile(path);
  await assert.rejects(
    s.appendMessage({ role: "user", content: "ours" }),
    /no longer the version 1 session that was opened/,
  );
  assert.deepEqual(await Deno.readFile(path), theirs);
});

Deno.test({
  name:
    `Session.appendMessage() on pi's version 1 file: omp reads the migrated file, resumes it and rebuilds our context${SKIPPED}`,
  ignore: !HAS_OMP,
  fn: async (t) => {
    await using dir = await tempDir();
    const path = await piCopy(dir.path);
    {
      await using s = await Session.open(path);
      await s.appendMessage({ role: "user", content: "Continued in place ✓" });
    }
    await t.step("omp's context is ours, every field", async () => {
      const omp = await oracle(["context", path]);
      assert.equal(omp.code, 0, JSON.stringify(omp.json));
      assert.equal((omp.json.header as { version: number }).version, 3);
      await using s = await Session.open(path);
      const ours = await contextOf(s) as Record<string, unknown>;
      for (const [field, value] of Object.entries(ours)) {
        assert.deepEqual(value, omp.json[field], field);
      }
    });
    await t.step("omp appends to it without rewriting it", async () => {
      const copy = join(dir.path, "resumed.jsonl");
      const rt = await oracle(["roundtrip", path, "--copy-to", copy]);
      assert.equal(rt.code, 0, JSON.stringify(rt.json));
      assert.equal(rt.json.appendOnly, true, "a version 3 file to omp");
      await using s = await Session.open(copy);
      assert.deepEqual(s.issues, []);
    });
  },
});
