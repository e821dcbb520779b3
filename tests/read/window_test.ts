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

Deno.test("Session.open() windowed walks the path before a compaction as a full read does, hex ids or not", async (t) => {
  // Past the window the walk knows entries by their envelopes alone, and
  // holds ids of 8 hex digits as numbers: each case is decided there.
  await using dir = await tempDir();
  const compaction = (id: string, parentId: string, kept: string) => ({
    type: "compaction",
    id,
    parentId,
    timestamp: "2026-10-01T09:00:00.000Z",
    summary: "so far",
    firstKeptEntryId: kept,
    tokensBefore: 1000,
  });
  const model = (id: string, parentId: string | null, m: string) => ({
    type: "model_change",
    id,
    parentId,
    timestamp: "2026-10-01T09:00:00.000Z",
    model: m,
  });
  /** A path `ids[0]` (the root) … `ids[n-1]`, then a compaction keeping `ids[n-1]`, and two messages. */
  const pathThenWindow = (ids: string[]): Record<string, unknown>[] => {
    const out: Record<string, unknown>[] = [model(ids[0]!, null, "a/first")];
    for (let i = 1; i < ids.length; i++) {
      out.push(user(ids[i]!, ids[i - 1]!, `line ${i}`));
    }
    const last = ids.at(-1)!;
    out.push(compaction("c0000001", last, last)); // keeps the last entry before it
    out.push(user("c0000002", "c0000001", "kept"));
    out.push(user("c0000003", "c0000002", "after"));
    return out;
  };
  const hex = ["0000000a", "0000000b", "0000000c", "0000000d"];
  const text = ["root-α", "msg-2", "MSG_3", "0000000D"]; // none is 8 lowercase hex digits
  const cases: [string, Record<string, unknown>[], boolean][] = [
    ["hex ids", pathThenWindow(hex), true],
    ["ids that are not hex", pathThenWindow(text), true],
    [
      "hex and other ids mixed",
      pathThenWindow(["0000000a", "msg-2", "0000000c", "x"]),
      true,
    ],
    [
      "a parent written after its child",
      (() => {
        const e = pathThenWindow(hex);
        return [e[2]!, e[0]!, e[1]!, ...e.slice(3)];
      })(),
      false,
    ],
    [
      "a parent written after its child (not hex)",
      (() => {
        const e = pathThenWindow(text);
        return [e[2]!, e[0]!, e[1]!, ...e.slice(3)];
      })(),
      false,
    ],
    [
      "an id written twice before the window",
      (() => {
        const e = pathThenWindow(hex);
        return [
          e[0]!,
          e[1]!,
          user("0000000b", "0000000a", "again"),
          ...e.slice(2),
        ];
      })(),
      true,
    ],
    // A later line with the id the path wants next wins in a full read.
    [
      "an id written again after its child",
      (() => {
        const e = pathThenWindow(hex);
        return [
          ...e.slice(0, 3),
          user("0000000b", null, "later"),
          ...e.slice(3),
        ];
      })(),
      false,
    ],
    [
      "an id written again after its child (not hex)",
      (() => {
        const e = pathThenWindow(text);
        return [...e.slice(0, 3), user("msg-2", null, "later"), ...e.slice(3)];
      })(),
      false,
    ],
    // A cycle needs a parent written after its child: a full read settles it.
    [
      "a cycle before the window",
      (() => {
        const e = pathThenWindow(hex);
        return [{ ...e[0]!, parentId: "0000000b" }, ...e.slice(1)];
      })(),
      false,
    ],
    [
      "a cycle before the window (not hex)",
      (() => {
        const e = pathThenWindow(text);
        return [{ ...e[0]!, parentId: "msg-2" }, ...e.slice(1)];
      })(),
      false,
    ],
  ];
  for (const [name, entries, windowed] of cases) {
    await t.step(name, async () => {
      const path = `${dir.path}/x.jsonl`;
      await Deno.writeFile(path, sessionBytes(entries));
      const { windowed: w0, full, w, f } = await both(path);
      deepStrictEqual(w, f);
      deepStrictEqual(
        w0.issues.map((i) => i.kind).sort(),
        full.issues.map((i) => i.kind).sort(),
      );
      // The walk kept the window (the compaction on), or fell back to a full read.
      equal(w0.entries.length < full.entries.length, windowed);
      await w0.close();
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
