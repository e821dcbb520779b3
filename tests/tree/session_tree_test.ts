import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { Session, type SessionEntry, SessionTree } from "../../mod.ts";
import {
  assistant,
  HEADER,
  sessionBytes,
  T0,
  tempDir,
  toolResult,
  user,
} from "../_session_files.ts";

const FIXTURES = [
  ...[1, 2].flatMap((s) =>
    ["main", "fork", "branched", "subagent", "reset", "edge", "empty"].map(
      (n) => `omp/s${s}-${n}.jsonl`,
    )
  ),
  "pi/large-session-v1.jsonl",
  "xdev/compaction-past-reset.jsonl",
].map((f) => new URL(`../../fixtures/${f}`, import.meta.url).pathname);

Deno.test("SessionTree.read() sees the tree a full open sees, on every fixture", async (t) => {
  for (const file of FIXTURES) {
    await t.step(file.split("/fixtures/")[1]!, async () => {
      const tree = await SessionTree.read(file);
      await using s = await Session.open(file, {
        window: false,
        resolveBlobs: false,
      });
      const nodes = [...tree.nodes()];
      deepStrictEqual(nodes.map((n) => n.id), s.entries.map((e) => e.id));
      deepStrictEqual(
        nodes.map((n) => [n.type, n.parentId]),
        s.entries.map((e) => [e.type, e.parentId]),
      );
      equal(tree.leafId, s.leafId);
      const ctx = s.buildContext();
      deepStrictEqual(
        nodes.filter((n) => n.onActivePath).map((n) => n.id),
        ctx.activePath.map((e) => e.id),
      );
      const labels = Object.fromEntries(
        nodes.filter((n) => n.label !== null).map((n) => [n.id, n.label]),
      );
      deepStrictEqual(labels, ctx.labels);
      for (const n of nodes) {
        const e = s.getEntry(n.id)!;
        equal(n.preview, SessionTree.previewOf(e), n.id);
        ok(n.preview.length <= 200);
        const role = e.type === "message"
          ? (e.message as { role: string }).role
          : null;
        equal(n.role, role);
        equal(n.children, tree.children(n.index).length);
      }
    });
  }
});

Deno.test("SessionTree.read({ previews: false }) reads roles now, previews later: the same nodes in the end", async (t) => {
  for (const file of FIXTURES.filter((f) => !f.includes("-v1"))) {
    await t.step(file.split("/fixtures/")[1]!, async () => {
      const eager = await SessionTree.read(file);
      const lazy = await SessionTree.read(file, { previews: false });
      const messages = [...lazy.nodes()].filter((n) => n.type === "message");
      for (const n of messages) {
        equal(n.preview, "");
        equal(n.role, eager.node(n.index).role);
      }
      await lazy.readPreviews(messages.map((n) => n.index));
      deepStrictEqual([...lazy.nodes()], [...eager.nodes()]);
    });
  }
});

Deno.test("SessionTree.readPreviews() leaves a preview empty when the line no longer holds its entry", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "changed.jsonl");
  await Deno.writeFile(file, sessionBytes([user("00000001", null, "hello")]));
  const lazy = await SessionTree.read(file, { previews: false });
  await Deno.writeFile(file, sessionBytes([user("00000009", null, "other")]));
  await lazy.readPreviews([0]);
  equal(lazy.node(0).preview, "");
  equal(lazy.node(0).role, "user");
});

Deno.test("SessionTree.read() previews from the first 8 KiB of a line, bounded", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "big.jsonl");
  const big = "x".repeat(200_000);
  await Deno.writeFile(
    file,
    sessionBytes([
      user("00000001", null, `  Fix\nthe   bug ${"é".repeat(500)}`),
      assistant("00000002", "00000001", [
        { type: "thinking", thinking: "t".repeat(20_000) },
        { type: "text", text: "never seen: past the first bytes" },
      ]),
      assistant("00000003", "00000002", [
        { type: "toolCall", id: "c1", name: "read", arguments: { big } },
      ], { stopReason: "toolUse" }),
      toolResult("00000004", "00000003", "c1", [{ type: "text", text: big }]),
      assistant("00000005", "00000004", [
        { type: "text", text: "" },
        { type: "toolCall", id: "c2", name: "bash", arguments: {} },
        { type: "toolCall", id: "c3", name: "grep", arguments: {} },
      ]),
    ]),
  );
  const tree = await SessionTree.read(file);
  const [ask, thought, call, result, calls] = [...tree.nodes()];
  ok(ask!.preview.startsWith("Fix the bug éé"));
  equal(ask!.preview.length, 200);
  ok(ask!.preview.endsWith("…"));
  equal(thought!.preview, "(thinking)");
  equal(thought!.toolOnly, false);
  equal(call!.preview, "→ read");
  // Its content runs past the first bytes: text may follow, so it counts as
  // a turn with text (no-tools shows it).
  equal(call!.toolOnly, false);
  equal(result!.role, "toolResult");
  ok(result!.preview.startsWith("read: xxx"));
  ok(result!.preview.length <= 200);
  equal(calls!.preview, "→ bash, grep");
  equal(calls!.toolOnly, true);
});

Deno.test("SessionTree.read() parses an omp custom line whose id lies past its first bytes", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "custom.jsonl");
  // omp writes custom and custom_message with their own fields first.
  const hook = {
    type: "custom_message",
    customType: "hook-note",
    content: `remember ${"r".repeat(20_000)}`,
    display: true,
    id: "00000002",
    parentId: "00000001",
    timestamp: T0,
  };
  const huge = { ...hook, content: "h".repeat(1_100_000), id: "00000003" };
  await Deno.writeFile(
    file,
    sessionBytes([
      user("00000001", null, "hi"),
      hook,
      huge,
      user("00000004", "00000002", "after"),
    ]),
  );
  const issues: string[] = [];
  const tree = await SessionTree.read(file, {
    onIssue: (i) => issues.push(i.kind),
  });
  deepStrictEqual([...tree.nodes()].map((n) => n.id), [
    "00000001",
    "00000002",
    "00000004",
  ]);
  const note = tree.node(1);
  equal(note.type, "custom_message");
  ok(note.preview.startsWith("hook-note: remember rrr"));
  equal(tree.node(2).parentId, "00000002");
  deepStrictEqual(issues, ["oversized-line"]);
});

Deno.test("SessionTree.read() leaves damage out and reports it; a torn last line is never a node", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "damaged.jsonl");
  await Deno.writeFile(
    file,
    sessionBytes([
      user("00000001", null, "one"),
      "",
      "not json at all",
      new Uint8Array([0, 0, 0, 0x0a]),
      user("00000002", "00000001", "two"),
      new TextEncoder().encode('{"type":"message","id":"00000003","par'),
    ]),
  );
  const tree = await SessionTree.read(file);
  deepStrictEqual([...tree.nodes()].map((n) => n.id), ["00000001", "00000002"]);
  deepStrictEqual(tree.issues.map((i) => [i.kind, i.line]), [
    ["blank-line", 4],
    ["not-json", 5],
    ["nul-fill", 6],
    ["torn-line", 8],
  ]);
  equal(tree.leafId, "00000002");
});

Deno.test("SessionTree: the leaf follows a branch marker; the latest label wins, an empty one clears", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "branched.jsonl");
  const at = { timestamp: T0 };
  const label = (
    id: string,
    parentId: string,
    targetId: string,
    l?: string,
  ) => ({
    type: "label",
    id,
    parentId,
    ...at,
    targetId,
    ...(l ? { label: l } : {}),
  });
  await Deno.writeFile(
    file,
    sessionBytes([
      user("00000001", null, "root"),
      user("00000002", "00000001", "a"),
      user("00000003", "00000001", "b"),
      label("00000004", "00000003", "00000001", "first"),
      label("00000005", "00000004", "00000001", "start"),
      label("00000006", "00000005", "00000003", "gone"),
      label("00000007", "00000006", "00000003"),
      {
        type: "custom",
        id: "00000008",
        parentId: "00000002",
        ...at,
        customType: "branch",
        data: { to: "00000002" },
      },
    ]),
  );
  const tree = await SessionTree.read(file);
  equal(tree.leafId, "00000002");
  deepStrictEqual(
    [...tree.nodes()].filter((n) => n.onActivePath).map((n) => n.id),
    ["00000001", "00000002"],
  );
  equal(tree.node(0).label, "start");
  equal(tree.node(2).label, null);
  deepStrictEqual(tree.children(0), [1, 2]);
  deepStrictEqual(tree.roots(), [0]);
  equal(tree.node(7).preview, "branch → 00000002");
});

Deno.test("SessionTree.previewOf() describes each kind of entry in one line", () => {
  const at = { id: "a", parentId: null, timestamp: T0 };
  const cases: [Record<string, unknown>, string][] = [
    [
      { type: "model_change", model: "openai/gpt-5.1", role: "smol" },
      "model openai/gpt-5.1 (smol)",
    ],
    [{ type: "thinking_level_change", thinkingLevel: "high" }, "thinking high"],
    [{
      type: "compaction",
      summary: "s",
      firstKeptEntryId: null,
      tokensBefore: 86_400,
    }, "compaction (86k tokens before)"],
    [
      { type: "branch_summary", fromId: "x", summary: "tried regexes" },
      "branch summary: tried regexes",
    ],
    [{ type: "reset_boundary" }, "reset"],
    [
      { type: "custom", customType: "todo-state", data: {} },
      "custom todo-state",
    ],
    [{ type: "label", targetId: "b", label: "ok" }, "label b: ok"],
    [{ type: "label", targetId: "b" }, "label b cleared"],
    [
      { type: "title_change", title: "New name", source: "user" },
      "title: New name",
    ],
    [{ type: "mode_change", mode: "plan" }, "mode plan"],
    [{ type: "xdev_probe" }, "[xdev_probe]"],
    [
      {
        type: "message",
        message: { role: "assistant", content: [], stopReason: "aborted" },
      },
      "(aborted)",
    ],
    [
      {
        type: "message",
        message: {
          role: "toolResult",
          toolName: "bash",
          isError: true,
          content: [{ type: "text", text: "boom" }],
        },
      },
      "bash (error): boom",
    ],
  ];
  for (const [fields, want] of cases) {
    equal(SessionTree.previewOf({ ...at, ...fields } as SessionEntry), want);
  }
});

Deno.test("SessionTree.node() refuses an index out of range", async () => {
  const tree = await SessionTree.read(FIXTURES[0]!);
  let message = "";
  try {
    tree.node(tree.size);
  } catch (err) {
    ok(err instanceof RangeError);
    message = err.message;
  }
  ok(message.startsWith("Cannot find node 60 of the tree of"));
});

Deno.test("SessionTree.read() reads a glued line as Session.open does: the first value kept, the same leaf", async (t) => {
  await using dir = await tempDir();
  const one = user("00000001", null, "one");
  const two = user("00000002", "00000001", "two");
  const three = user("00000003", "00000002", "three");
  const note = {
    type: "custom_message",
    customType: "note",
    content: "a note",
    display: true,
    id: "00000002",
    parentId: "00000001",
    timestamp: T0,
  };
  // A line taken from its first bytes is not parsed: its glue goes unseen.
  const cases: [string, number, Record<string, unknown>, string[]][] = [
    ["version 2, envelope first", 2, two, ["glued-line"]],
    ["version 3, omp's custom_message first", 3, note, ["glued-line"]],
    ["version 3, envelope first", 3, two, []],
  ];
  for (const [name, version, first, issues] of cases) {
    await t.step(name, async () => {
      const file = join(dir.path, `glued-${version}-${first.type}.jsonl`);
      // What omp leaves when it appends after a line without its newline.
      const glued = JSON.stringify(first) + JSON.stringify(three);
      await Deno.writeFile(
        file,
        sessionBytes([one, glued], { header: { ...HEADER, version } }),
      );
      const tree = await SessionTree.read(file);
      await using s = await Session.open(file, { resolveBlobs: false });
      equal(s.leafId, "00000002");
      equal(tree.leafId, s.leafId);
      deepStrictEqual(
        [...tree.nodes()].map((n) => n.id),
        s.entries.map((e) => e.id),
      );
      deepStrictEqual(tree.issues.map((i) => i.kind), issues);
    });
  }
});

Deno.test("SessionTree.read({ previews: false }) reads a message's role wherever it lies, as the eager read does", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "roles.jsonl");
  // A field before the message moves its role along, one byte at a time.
  const entries = Array.from({ length: 320 }, (_, i) => {
    const e = user(`${i + 1}`.padStart(8, "0"), null, "x".repeat(9000));
    const { message, ...envelope } = e;
    const role = i % 2 === 0 ? "assistant" : `toolResult${"é".repeat(i % 7)}`;
    return {
      ...envelope,
      pad: "p".repeat(i),
      message: { ...(message as object), role },
    };
  });
  await Deno.writeFile(file, sessionBytes(entries));
  const eager = await SessionTree.read(file);
  const lazy = await SessionTree.read(file, { previews: false });
  deepStrictEqual(
    [...lazy.nodes()].map((n) => n.role),
    [...eager.nodes()].map((n) => n.role),
  );
  equal(lazy.node(1).role, "toolResulté");
});
