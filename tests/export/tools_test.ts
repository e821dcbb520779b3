import { deepEqual, equal, ok } from "node:assert/strict";
import { editDiff, outputText, toolView } from "../../src/export/_tools.ts";

Deno.test("toolView() reads bash, read, edit and write calls by kind, under pi's, omp's and Claude Code's argument names", () => {
  const bash = toolView("bash", { command: "ls -la", timeout: 5 });
  deepEqual([bash.kind, bash.command], ["bash", "ls -la"]);
  const read = toolView("read", { path: "src/a.ts", offset: 10, limit: 40 });
  deepEqual([read.kind, read.path, read.language, read.range], [
    "read",
    "src/a.ts",
    "typescript",
    "from line 10, 40 lines",
  ]);
  const edit = toolView("Edit", {
    file_path: "x.py",
    old_string: "a = 1\n",
    new_string: "a = 2\n",
  });
  deepEqual([edit.kind, edit.path, edit.language], ["edit", "x.py", "python"]);
  deepEqual(edit.diff, [
    { op: "@", text: "@@ -1,1 +1,1 @@" },
    { op: "-", text: "a = 1" },
    { op: "+", text: "a = 2" },
  ]);
  const edits = toolView("edit", {
    path: "n",
    edits: [{ oldText: "a", newText: "b" }, { oldText: "c", newText: "d" }],
  });
  equal(edits.diff?.filter((l) => l.op === "@").length, 2);
  const write = toolView("write", { path: "w.md", content: "# T\nx\n" });
  deepEqual(write.diff, [{ op: "+", text: "# T" }, { op: "+", text: "x" }]);
});

Deno.test("toolView() shows any other tool, or a known one missing its arguments, as its name and arguments", () => {
  for (
    const [name, args] of [
      ["grep", { pattern: "x" }],
      ["bash", { cmd: 1 }],
      ["read", {}],
      ["edit", { path: "p", oldText: "a" }],
      ["write", "not an object"],
    ] as const
  ) {
    const view = toolView(name, args);
    equal(view.kind, "other", name);
    equal(view.json, JSON.stringify(args, null, 2));
  }
  equal(toolView("x", undefined).json, "null");
});

Deno.test("editDiff() keeps three lines of context, and past its edit bound removes the old text and adds the new", () => {
  const before = Array.from({ length: 20 }, (_, i) => `l${i}`).join("\n");
  const diff = editDiff(before, before.replace("l10", "L10"));
  deepEqual(diff.map((l) => l.op).join(""), "@   -+   ");
  const many = (c: string) =>
    Array.from({ length: 5000 }, (_, i) => `${c}${i}`).join("\n");
  const bounded = editDiff(many("a"), many("b"));
  equal(bounded.length, 10_000);
  ok(bounded.slice(0, 5000).every((l) => l.op === "-"));
  ok(bounded.slice(5000).every((l) => l.op === "+"));
});

Deno.test("outputText() removes terminal escape sequences and keeps the text", () => {
  equal(outputText("\x1b[31mred\x1b[0m \x1b[2K\x1b]ok"), "red ok");
  equal(outputText("plain\ttext\n"), "plain\ttext\n");
});
