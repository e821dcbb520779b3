import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { exportSession } from "../../mod.ts";
import { cli } from "../_cli.ts";
import {
  longSession,
  NO_SESSION,
  richSession,
  testSession,
} from "./_sessions.ts";
import type { Format } from "../../src/export/_document.ts";
import type { ExportMeta } from "../../src/export/_meta.ts";
import { Pages, Scratch } from "../../src/export/_files.ts";
import { MARKDOWN } from "../../src/export/_markdown.ts";
import { tempDir } from "../_session_files.ts";

const META: ExportMeta = {
  title: undefined,
  sessionId: undefined,
  cwd: undefined,
  models: [],
  first: undefined,
  last: undefined,
  messages: 0,
  entries: 0,
  scope: "a test",
  usage: {
    calls: 0,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: undefined,
    unread: 0,
  },
  labels: [],
  outline: [],
};

Deno.test("Pages without a limit writes one Markdown file, quoting the fragments of each open block once per level", async () => {
  await using d = await tempDir();
  const path = join(d.path, "x.md");
  const format = { ...MARKDOWN, head: () => "# T\n\n", foot: () => "end\n" };
  await using sink = new Pages(path, format, META, Infinity, NO_SESSION);
  const branch = { open: "**branch**\n\n", close: "\n", reopen: "" };
  await sink.write("a\n\n");
  await sink.open(branch);
  await sink.write("b\n\nc\n\n");
  await sink.open(branch);
  await sink.write("d\n\n");
  sink.close();
  sink.close();
  await sink.write("e\n\n");
  const written = await sink.finish({ issues: [], missingImages: 0 });
  const text = await Deno.readTextFile(path);
  equal(
    text,
    "# T\n\na\n\n**branch**\n\n> b\n>\n> c\n>\n> **branch**\n>\n>> d\n>>\n>\n\ne\n\nend\n",
  );
  deepEqual(written, {
    files: [path],
    bytes: new TextEncoder().encode(text).length,
  });
});

Deno.test("Pages closes a block open across a page break and opens it again on the next page", async () => {
  await using d = await tempDir();
  const format = {
    ...MARKDOWN,
    nest: (fragment: string) => fragment,
    head: (_: ExportMeta, nav: { page: number; next?: string }) =>
      `[${nav.page}${nav.next === undefined ? "" : `>${nav.next}`}]`,
    foot: () => "[end]",
  } as Format;
  // Room for 20 bytes of fragments on a page, beside the frame and the slack.
  const frame = "[1>x-2.html][end]".length;
  await using sink = new Pages(
    join(d.path, "x.html"),
    format,
    META,
    4096 + frame + 20,
    NO_SESSION,
  );
  await sink.write("0123456789");
  await sink.open({ open: "<b>", close: "</b>", reopen: "<b+>" });
  await sink.write("abcdefghij"); // 10 + 3 + 10 + 4 closing > 20: a new page
  sink.close();
  const written = await sink.finish({ issues: [], missingImages: 0 });
  deepEqual(
    await Promise.all(written.files.map((f) => Deno.readTextFile(f))),
    ["[1>x-2.html]0123456789<b></b>[end]", "[2]<b+>abcdefghij</b>[end]"],
  );
});

Deno.test("Scratch reads renderings back in any order, across its read window", async () => {
  await using d = await tempDir();
  await using scratch = await Scratch.create(d.path, ".s.");
  const big = "é".repeat(700_000); // 1.4 MB: past one window
  const a = await scratch.append("first");
  const b = await scratch.append(big);
  const c = await scratch.append("last ✓");
  equal(await scratch.read(c.at, c.length), "last ✓");
  equal(await scratch.read(a.at, a.length), "first");
  equal(await scratch.read(b.at, b.length), big);
  equal(await scratch.read(c.at, c.length), "last ✓");
});

/** The permission bits of a path (links not followed). */
async function _mode(path: string): Promise<number> {
  return (await Deno.lstat(path)).mode! & 0o777;
}

Deno.test("exportSession() makes pages and images 0600 and folders 0700 under a permissive umask (0)", async () => {
  await using t = await testSession(richSession());
  const old = Deno.umask(0);
  try {
    for (
      const [name, options] of [["a/b/x.html", { pageBytes: 32 * 1024 }], [
        "c/x.md",
        {},
      ]] as const
    ) {
      const out = join(t.out, name);
      const r = await exportSession(t.path, { out, ...options });
      ok(r.images.files > 0);
      for (const file of r.files) equal(await _mode(file), 0o600, file);
      const images = r.images.folder!;
      equal(await _mode(images), 0o700, images);
      for await (const e of Deno.readDir(images)) {
        equal(await _mode(join(images, e.name)), 0o600, e.name);
      }
      for (let dir = join(out, ".."); dir !== t.out; dir = join(dir, "..")) {
        equal(await _mode(dir), 0o700, dir);
      }
    }
    // Pages past the first too.
    await using long = await testSession(longSession(120));
    const paged = await exportSession(long.path, {
      out: join(long.out, "p.html"),
      pageBytes: 32 * 1024,
    });
    ok(paged.pages > 1);
    for (const file of paged.files) equal(await _mode(file), 0o600, file);
  } finally {
    Deno.umask(old);
  }
});

Deno.test("exportSession() refuses an output that is the session by a symbolic link, a hard link or a linked folder, and leaves it byte for byte", async (t) => {
  await using s = await testSession(richSession());
  const before = await Deno.readFile(s.path);
  const links: [string, () => Promise<string>][] = [
    ["a symbolic link", async () => {
      const out = join(s.out, "sym.md");
      await Deno.symlink(s.path, out);
      return out;
    }],
    ["a hard link", async () => {
      const out = join(s.out, "hard.md");
      await Deno.link(s.path, out);
      return out;
    }],
    ["a path through a linked folder", async () => {
      const dir = join(s.out, "dir");
      await Deno.symlink(join(s.root, "sessions"), dir);
      return join(dir, "s.jsonl");
    }],
  ];
  for (const [name, make] of links) {
    await t.step(name, async () => {
      const out = await make();
      for (const format of ["md", "html"] as const) {
        await rejects(
          exportSession(s.path, { out, format }),
          /the output would overwrite the session/,
        );
      }
      const run = await cli(["export", s.path, "--out", out]);
      equal(run.code !== 0, true);
      ok(run.stderr.includes("would overwrite the session"), run.stderr);
      deepEqual(await Deno.readFile(s.path), before);
    });
  }
});

Deno.test("exportSession() writes through a temp file renamed into place: a file linked to the output keeps its bytes", async () => {
  await using s = await testSession(richSession());
  const other = join(s.root, "other.txt");
  await Deno.writeTextFile(other, "someone else's");
  for (const format of ["md", "html"] as const) {
    const out = join(s.out, `x.${format}`);
    await Deno.link(other, out);
    const r = await exportSession(s.path, { out });
    equal(r.files[0], out);
    equal(await Deno.readTextFile(other), "someone else's");
    ok((await Deno.readTextFile(out)).length > 1000);
    const left = [];
    for await (const e of Deno.readDir(s.out)) {
      if (e.name.endsWith(".tmp")) left.push(e.name);
    }
    deepEqual(left, []);
  }
});
