import { deepStrictEqual } from "node:assert/strict";
import { join } from "node:path";
import {
  gcSources,
  isGcSessionName,
  walkFiles,
} from "../../src/store/_gc_sources.ts";
import { tempDir } from "../_session_files.ts";

Deno.test("isGcSessionName(): omp's *.jsonl, *.jsonl.gz and *.jsonl.*.bak", () => {
  const names = [
    "a.jsonl",
    "a.jsonl.gz",
    "a.jsonl.1.bak",
    "a.jsonl..bak",
    "a.json",
    "a.jsonl.tmp",
    "a.bak",
    "a.jsonl.gz.tmp",
  ];
  deepStrictEqual(names.filter(isGcSessionName), [
    "a.jsonl",
    "a.jsonl.gz",
    "a.jsonl.1.bak",
    "a.jsonl..bak",
  ]);
});

Deno.test("gcSources(): the whole data dir but its blobs, the registry and the breadcrumbs, each file once", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "agent");
  const blobs = join(root, "blobs");
  const file = (...p: string[]) => join(root, ...p);
  for (
    const d of [
      "sessions/-x",
      "archive/sessions/-x",
      "keep/deep",
      "blobs",
      "custom-session-files",
      "terminal-sessions",
    ]
  ) {
    await Deno.mkdir(file(d), { recursive: true });
  }
  for (
    const f of [
      "sessions/-x/a.jsonl",
      "sessions/-x/a.jsonl.1.bak",
      "archive/sessions/-x/b.jsonl.gz",
      "keep/deep/c.jsonl",
      "keep/notes.txt",
      `blobs/${"a".repeat(64)}.jsonl`,
    ]
  ) {
    await Deno.writeTextFile(file(f), "");
  }
  const outside = join(dir.path, "outside-session");
  await Deno.writeTextFile(outside, "");
  await Deno.writeTextFile(file("custom-session-files", "h1"), `${outside}\n`);
  await Deno.writeTextFile(
    file("custom-session-files", "h2"),
    file("sessions/-x/a.jsonl"),
  ); // twice: once
  await Deno.writeTextFile(
    file("custom-session-files", "h3"),
    join(dir.path, "gone.jsonl"),
  );
  await Deno.writeTextFile(file("custom-session-files", "h4"), "  ");
  await Deno.writeTextFile(
    file("terminal-sessions", "t1"),
    `${dir.path}\noutside-session\nfresh\n`,
  );
  await Deno.mkdir(file("terminal-sessions", "odd")); // not a marker: an error
  const found = await gcSources(root, blobs);
  deepStrictEqual(
    found.files,
    [
      file("archive/sessions/-x/b.jsonl.gz"),
      file("keep/deep/c.jsonl"),
      file("sessions/-x/a.jsonl"),
      file("sessions/-x/a.jsonl.1.bak"),
      outside,
    ].sort(),
  );
  deepStrictEqual(found.missing, [join(dir.path, "gone.jsonl")]);
  deepStrictEqual(found.errors.length, 1);
});

Deno.test("walkFiles() walks links once, sorted, only the names asked for", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "sessions");
  await Deno.mkdir(join(root, "b"), { recursive: true });
  await Deno.writeTextFile(join(root, "b", "2.jsonl"), "");
  await Deno.writeTextFile(join(root, "1.jsonl"), "");
  await Deno.writeTextFile(join(root, "notes.txt"), "");
  await Deno.symlink(root, join(root, "b", "loop"));
  await Deno.symlink(join(dir.path, "gone"), join(root, "dangling.jsonl"));
  const jsonl = { match: (n: string) => n.endsWith(".jsonl") };
  deepStrictEqual(await walkFiles(root, jsonl), [
    join(root, "1.jsonl"),
    join(root, "b", "2.jsonl"),
  ]);
  deepStrictEqual(
    await walkFiles(root, { ...jsonl, skip: (p) => p.endsWith("/b") }),
    [join(root, "1.jsonl")],
  );
});
