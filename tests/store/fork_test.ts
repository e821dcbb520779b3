import assert from "node:assert/strict";
import { override, withFs } from "../_fs_seam.ts";
import { Buffer } from "node:buffer";
import { basename, dirname, join } from "node:path";
import { generateFile } from "../../src/gen/generate.ts";
import { SessionSyntaxError } from "../../src/format/errors.ts";
import { forkSession } from "../../src/store/fork.ts";
import { parseHead } from "../../src/read/_head.ts";
import { parseSessionFileName } from "../../src/store/places.ts";
import { Session } from "../../src/session/session.ts";
import { type Fs, realFs } from "../../src/_fs.ts";
import { HEADER, sessionBytes, tempDir, user } from "../_session_files.ts";

const OMP = new URL("../../fixtures/omp/", import.meta.url).pathname;
const UUID_V7 =
  /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const IS_WINDOWS = Deno.build.os === "windows";

/** Byte offset just past the `n`th "\n" (1-based). */
function afterLine(bytes: Uint8Array, n: number): number {
  let at = 0;
  for (let i = 0; i < n; i++) at = bytes.indexOf(10, at) + 1;
  return at;
}

/** The fork's first two lines, parsed. */
function prefixOf(bytes: Uint8Array) {
  const head = bytes.subarray(0, 4096);
  return parseHead(head, {
    name: "fork",
    complete: head.length === bytes.length,
  });
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("forkSession() forks omp's main session: new header, fresh slot, same entries, same context", async (t) => {
  await using dir = await tempDir();
  const src = join(dir.path, "main.jsonl");
  await Deno.copyFile(join(OMP, "s1-main.jsonl"), src);
  const source = await Deno.readFile(src);
  const before = Date.now();
  const fork = await forkSession(src);
  const bytes = await Deno.readFile(fork.path);
  const { slot, header } = prefixOf(bytes);
  const srcPrefix = prefixOf(source);

  await t.step("the result names the new file", async () => {
    assert.equal(dirname(fork.path), dir.path);
    assert.deepEqual(parseSessionFileName(basename(fork.path)), {
      timestamp: header.timestamp,
      id: fork.id,
    });
    assert.equal(fork.bytes, bytes.length);
    assert.deepEqual(
      await names(dir.path),
      [
        basename(fork.path),
        "main.jsonl",
      ].sort(),
    );
  });
  await t.step(
    "header: new UUIDv7 id and timestamp, parentSession, rest kept",
    () => {
      assert.match(fork.id, UUID_V7);
      assert.equal(header.id, fork.id);
      assert.equal(header.parentSession, srcPrefix.header.id);
      assert.equal(fork.parentSession, srcPrefix.header.id);
      assert.ok(Date.parse(header.timestamp) >= before - 1);
      const { id: _a, timestamp: _b, parentSession: _c, ...rest } = header;
      const { id: _d, timestamp: _e, ...srcRest } = srcPrefix.header;
      assert.deepEqual(rest, srcRest);
    },
  );
  await t.step("a 256-byte slot with the source's title, source auto", () => {
    assert.equal(afterLine(bytes, 1), 256);
    assert.deepEqual(slot, {
      title: srcPrefix.slot?.title,
      source: "auto",
      updatedAt: header.timestamp,
    });
  });
  await t.step("entries are byte-identical", () => {
    assert.deepEqual(
      bytes.subarray(afterLine(bytes, 2)),
      source.subarray(afterLine(source, 2)),
    );
  });
  await t.step("it loads and rebuilds the same context", async () => {
    await using a = await Session.open(src, { dataDir: OMP });
    await using b = await Session.open(fork.path, { dataDir: OMP });
    assert.deepEqual(b.issues, a.issues);
    assert.equal(b.leafId, a.leafId);
    assert.equal(b.title, a.title);
    assert.equal(b.titleSource, "auto");
    assert.deepEqual(b.buildContext().messages, a.buildContext().messages);
  });
  await t.step({
    name: "the mode is 0600",
    ignore: IS_WINDOWS,
    fn: async () => {
      assert.equal((await Deno.stat(fork.path)).mode! & 0o777, 0o600);
    },
  });
});

Deno.test("forkSession() keeps unknown header fields and applies label and cwd", async (t) => {
  await using dir = await tempDir();
  const src = join(dir.path, "src.jsonl");
  const srcHeader = {
    ...HEADER,
    title: "Old title",
    titleSource: "user",
    additionalDirectories: ["/srv/extra"],
    providerPromptCacheKey: "k-1",
    futureField: { nested: [1, 2] },
  };
  await Deno.writeFile(
    src,
    sessionBytes([user("00000001", null, "hi")], {
      header: srcHeader,
      title: "Slot title",
    }),
  );
  await t.step(
    "without options the header's title fields stay as they were",
    async () => {
      const fork = await forkSession(src, join(dir.path, "plain.jsonl"));
      const { slot, header } = prefixOf(await Deno.readFile(fork.path));
      assert.equal(slot?.title, "Slot title");
      assert.equal(slot?.source, "auto");
      assert.deepEqual(Object.keys(header), [
        ...Object.keys(srcHeader),
        "parentSession",
      ]);
      assert.equal(header.title, "Old title");
      assert.deepEqual(header.futureField, { nested: [1, 2] });
      assert.deepEqual(header.additionalDirectories, ["/srv/extra"]);
      assert.equal(header.providerPromptCacheKey, "k-1");
    },
  );
  await t.step(
    "a label is cleaned, titles the slot and updates the header's title",
    async () => {
      const fork = await forkSession(src, join(dir.path, "labelled.jsonl"), {
        label: "  Try\tanother\n way ",
        cwd: "/home/dev/src/other",
      });
      const { slot, header } = prefixOf(await Deno.readFile(fork.path));
      assert.equal(slot?.title, "Try another way");
      assert.equal(slot?.source, "auto");
      assert.equal(header.title, "Try another way");
      assert.equal(header.titleSource, "auto");
      assert.equal(header.cwd, "/home/dev/src/other");
      assert.equal(header.version, 3);
    },
  );
  await t.step(
    "bad options are TypeErrors, and nothing is written",
    async () => {
      const before = await names(dir.path);
      await assert.rejects(
        forkSession(src, undefined, { label: " \t\n" }),
        TypeError,
      );
      await assert.rejects(
        forkSession(src, undefined, { cwd: "relative/dir" }),
        TypeError,
      );
      assert.deepEqual(await names(dir.path), before);
    },
  );
});

Deno.test("forkSession() refuses an existing destination and leaves no temp file", async (t) => {
  await using dir = await tempDir();
  const src = join(dir.path, "src.jsonl");
  const dst = join(dir.path, "dst.jsonl");
  await Deno.writeFile(src, sessionBytes([user("00000001", null, "hi")]));
  await Deno.writeTextFile(dst, "precious\n");
  await t.step("checked before copying", async () => {
    await assert.rejects(forkSession(src, dst), Deno.errors.AlreadyExists);
    assert.equal(await Deno.readTextFile(dst), "precious\n");
    assert.deepEqual(await names(dir.path), ["dst.jsonl", "src.jsonl"]);
  });
  await t.step("and at the link, when it appears during the copy", async () => {
    const late = join(dir.path, "late.jsonl");
    const fs: Fs = {
      ...realFs,
      link: async (from, to) => {
        await Deno.writeTextFile(late, "raced\n");
        return realFs.link(from, to);
      },
    };
    await assert.rejects(
      withFs(fs, () => forkSession(src, late)),
      Deno.errors.AlreadyExists,
    );
    assert.equal(await Deno.readTextFile(late), "raced\n");
    assert.deepEqual(await names(dir.path), [
      "dst.jsonl",
      "late.jsonl",
      "src.jsonl",
    ]);
  });
  await t.step("without hard links it checks and renames", async () => {
    const out = join(dir.path, "nolink.jsonl");
    const fs: Fs = {
      ...realFs,
      link: () => Promise.reject(new Deno.errors.NotSupported("no links")),
    };
    const fork = await withFs(fs, () => forkSession(src, out));
    assert.equal(fork.path, out);
    const bytes = await Deno.readFile(out);
    assert.equal(prefixOf(bytes).header.parentSession, HEADER.id);
    assert.equal((await names(dir.path)).length, 4);
  });
  await t.step("a failed write removes the temp file", async () => {
    const before = await names(dir.path);
    const fs: Fs = {
      ...realFs,
      open: async (path, options) => {
        const file = await realFs.open(path, options);
        return override(file, {
          write: () => Promise.reject(new Error("disk full")),
        });
      },
    };
    await assert.rejects(
      withFs(fs, () => forkSession(src, join(dir.path, "full.jsonl"))),
      /disk full/,
    );
    assert.deepEqual(await names(dir.path), before);
  });
});

Deno.test("forkSession() throws SessionSyntaxError for a source without a readable header", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "bad.jsonl");
  await Deno.writeFile(src, sessionBytes([], { header: '{"type":"nope"}' }));
  await assert.rejects(forkSession(src), SessionSyntaxError);
  assert.deepEqual(await names(dir.path), ["bad.jsonl"]);
  await Deno.writeFile(src, new Uint8Array(0));
  await assert.rejects(forkSession(src), (e: unknown) => {
    assert.ok(e instanceof SessionSyntaxError);
    assert.equal(e.path, src);
    assert.equal(e.line, 1);
    return true;
  });
});

Deno.test("forkSession() forks a ~200 MB session in bounded memory", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "big.jsonl");
  const generated = await generateFile(src, { size: 200 * 1024 * 1024 });
  const head = await Deno.open(src);
  const first = new Uint8Array(4096);
  await head.read(first);
  head.close();
  const srcHeaderEnd = afterLine(first, 2);

  const rssBefore = Deno.memoryUsage().rss;
  let peak = rssBefore;
  let samples = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, Deno.memoryUsage().rss);
    samples++;
  }, 2);
  let fork;
  try {
    fork = await forkSession(src);
  } finally {
    clearInterval(timer);
  }
  const rssAfter = Deno.memoryUsage().rss;
  peak = Math.max(peak, rssAfter);
  const growth = peak - rssBefore;
  console.log(
    `fork of ${generated.bytes} bytes: rss ${rssBefore >> 20} MiB -> ${
      rssAfter >> 20
    } MiB, peak growth ${
      (growth / 2 ** 20).toFixed(1)
    } MiB (${samples} samples)`,
  );
  assert.ok(growth < 64 * 2 ** 20, `rss grew ${growth} bytes`);

  // The entries are the source's: compare both files 1 MiB at a time.
  const a = await Deno.open(src);
  const b = await Deno.open(fork.path);
  try {
    const forkHead = new Uint8Array(4096);
    await b.read(forkHead);
    const forkHeaderEnd = afterLine(forkHead, 2);
    assert.equal(
      fork.bytes,
      generated.bytes - srcHeaderEnd + forkHeaderEnd,
    );
    await a.seek(srcHeaderEnd, Deno.SeekMode.Start);
    await b.seek(forkHeaderEnd, Deno.SeekMode.Start);
    const x = new Uint8Array(1 << 20);
    const y = new Uint8Array(1 << 20);
    for (;;) {
      const n = await readFull(a, x);
      const m = await readFull(b, y);
      assert.equal(m, n);
      if (n === 0) break;
      assert.ok(
        Buffer.from(x.buffer, 0, n).equals(Buffer.from(y.buffer, 0, n)),
        "entries differ",
      );
    }
  } finally {
    a.close();
    b.close();
  }
});

async function readFull(file: Deno.FsFile, p: Uint8Array): Promise<number> {
  let n = 0;
  while (n < p.length) {
    const got = await file.read(p.subarray(n));
    if (got === null) break;
    n += got;
  }
  return n;
}
