import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { type LoadIssue, Session, type SessionContext } from "../../mod.ts";
import { generateFile } from "../../src/gen/generate.ts";
import { sessionBytes, tempDir, user } from "../_session_files.ts";

const FIXTURES = [
  new URL("../../fixtures/omp/", import.meta.url),
  new URL("../../fixtures/xdev/", import.meta.url),
];

/** The context of a windowed open and of a full read, which must agree. */
async function both(
  path: string,
): Promise<
  { windowed: Session; full: Session; w: SessionContext; f: SessionContext }
> {
  const windowed = await Session.open(path);
  const full = await Session.open(path, { window: false });
  return { windowed, full, w: windowed.buildContext(), f: full.buildContext() };
}

Deno.test("Session.open() windowed gives the context of a full read on every fixture", async () => {
  for (const dir of FIXTURES) {
    for await (const e of Deno.readDir(dir)) {
      if (!e.name.endsWith(".jsonl")) continue;
      const { windowed, full, w, f } = await both(
        new URL(e.name, dir).pathname,
      );
      deepStrictEqual(w, f, e.name);
      deepStrictEqual(windowed.issues, full.issues, e.name);
      equal(windowed.title, full.title);
      // Every fixture comes whole in the first read: nothing left unread.
      const size = (await Deno.stat(new URL(e.name, dir))).size;
      for (const s of [windowed, full]) {
        equal(s.windowStats().bytesRead, size, e.name);
        equal(s.windowStats().windowed, false, e.name);
      }
      const kept = [windowed, full].map((s) => s.windowStats().retained);
      // s1-edge has a missing parent: the backward walk falls back to a
      // full read, which keeps every entry.
      if (f.pathEnd === "root") ok(kept[0]! <= kept[1]!, e.name);
      else equal(kept[0], kept[1], e.name);
      await windowed.close();
      await full.close();
    }
  }
});

Deno.test("Session.open() windowed keeps only the window of a generated transcript", async (t) => {
  await using dir = await tempDir();
  const cases = [
    { name: "with checkpoints", checkpoints: true, branchBackAtEnd: false },
    {
      name: "without checkpoints (as omp writes)",
      checkpoints: false,
      branchBackAtEnd: false,
    },
    {
      name: "branched back before the last compaction",
      checkpoints: true,
      branchBackAtEnd: true,
    },
    {
      name: "branched back, no checkpoints",
      checkpoints: false,
      branchBackAtEnd: true,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const path = `${dir.path}/${c.name.replaceAll(/\W+/g, "-")}.jsonl`;
      const gen = await generateFile(path, {
        size: 3 << 20,
        seed: 7,
        compactionEvery: 400 << 10,
        lastCompactionBeforeEnd: 300 << 10,
        resetsAt: [0.3],
        checkpoints: c.checkpoints,
        branchBackAtEnd: c.branchBackAtEnd,
      });
      const { windowed, full, w, f } = await both(path);
      try {
        deepStrictEqual(w.messages, f.messages);
        deepStrictEqual([
          w.models,
          w.thinkingLevel,
          w.labels,
          w.leafId,
          w.tokens,
        ], [
          f.models,
          f.thinkingLevel,
          f.labels,
          f.leafId,
          f.tokens,
        ]);
        equal(w.leafId, gen.leafId);
        const ws = windowed.windowStats();
        const fs = full.windowStats();
        // Without a checkpoint the walk goes back to the start: every byte
        // read, none twice; with one, part of the file is left unread.
        equal(ws.windowed, c.checkpoints);
        ok(ws.bytesRead <= fs.bytesRead);
        ok(ws.retained < fs.retained / 4, `${ws.retained} of ${fs.retained}`);
        if (c.checkpoints) {
          // The walk stops at the checkpoint: the path before it is not walked
          // (branched back, the governing compaction is an earlier one).
          const share = c.branchBackAtEnd ? 1 : 0.5;
          ok(ws.seen < fs.seen * share, `${ws.seen} of ${fs.seen} lines`);
          ok(
            ws.bytesRead < fs.bytesRead * share,
            `${ws.bytesRead} of ${fs.bytesRead} bytes`,
          );
          deepStrictEqual(
            w.activePath,
            f.activePath.slice(-w.activePath.length),
          );
        } else {
          deepStrictEqual(w.activePath, f.activePath);
        }
        // The file's last compaction is on the path, or (branched back) not.
        const file = await Deno.open(path);
        const head = new Uint8Array(200);
        await file.seek(gen.lastCompactionOffset, Deno.SeekMode.Start);
        await file.read(head);
        file.close();
        const lastCompaction = /"id":"([0-9a-f]{8})"/.exec(
          new TextDecoder().decode(head),
        )![1]!;
        equal(
          f.activePath.some((e) => e.id === lastCompaction),
          !c.branchBackAtEnd,
        );
      } finally {
        await windowed.close();
        await full.close();
      }
    });
  }
});

Deno.test("Session.open() windowed falls back to a full read where the backward walk cannot finish", async (t) => {
  await using dir = await tempDir();
  const a = user("0000000a", null, "one");
  const b = user("0000000b", "0000000a", "two");
  const cases: [string, Record<string, unknown>[]][] = [
    ["a missing parent", [a, { ...b, parentId: "deadbeef" }]],
    ["a parent written after its child", [
      { ...b },
      a,
      user("0000000c", "0000000b", "three"),
    ]],
    ["a branch marker whose target is absent", [a, b, {
      type: "custom",
      id: "0000000c",
      parentId: "0000000b",
      timestamp: "2026-10-01T09:00:00.000Z",
      customType: "branch",
      data: { to: "nowhere" },
    }]],
  ];
  for (const [name, entries] of cases) {
    await t.step(name, async () => {
      const path = `${dir.path}/x.jsonl`;
      await Deno.writeFile(path, sessionBytes(entries));
      const { windowed, full, w, f } = await both(path);
      deepStrictEqual(w, f);
      equal(windowed.windowStats().windowed, false);
      await windowed.close();
      await full.close();
    });
  }
});

Deno.test("Session.open() windowed ignores a malformed settings checkpoint", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/x.jsonl`;
  const entries = [
    {
      type: "model_change",
      id: "0000000a",
      parentId: null,
      timestamp: "2026-10-01T09:00:00.000Z",
      model: "p/real",
    },
    {
      type: "custom",
      id: "0000000b",
      parentId: "0000000a",
      timestamp: "2026-10-01T09:00:00.000Z",
      customType: "xdev.settings",
      data: { v: 1, models: "not an object" },
    },
    {
      type: "reset_boundary",
      id: "0000000c",
      parentId: "0000000b",
      timestamp: "2026-10-01T09:00:00.000Z",
    },
    user("0000000d", "0000000c", "after the reset"),
  ];
  await Deno.writeFile(path, sessionBytes(entries));
  const issues: LoadIssue[] = [];
  await using s = await Session.open(path, { onIssue: (i) => issues.push(i) });
  equal(s.buildContext().model, "p/real");
  deepStrictEqual(issues, []);
});
