/**
 * `cli blobs gc` never takes a blob a session still names (issue 30, items
 * 1-5): each source of references omp's own gc counts (omp 18.3.4,
 * `pi-coding-agent/src/cli/gc-cli.ts`, `runBlobGc`), the ones only the
 * loader follows, and a writer running beside it. Every blob is made two
 * hours old first, so the grace period is not what keeps it.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { realFs } from "../../src/_fs.ts";
import { BlobStore } from "../../src/store/blob_store.ts";
import { cliInProcess, makeDataDir, type TestDataDir } from "../_cli.ts";
import { withFs } from "../_fs_seam.ts";

const HOUR = 3_600_000;

/** Give every file in a folder a modification time `ms` old. */
async function age(dir: string, ms = 2 * HOUR): Promise<void> {
  const then = new Date(Date.now() - ms);
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile) await Deno.utime(join(dir, e.name), then, then);
  }
}

/** A blob nothing names yet, old: its digest. */
async function orphan(d: TestDataDir, text: string): Promise<string> {
  const ref = await new BlobStore(d.blobs).put(new TextEncoder().encode(text));
  await age(d.blobs);
  return ref.slice("blob:sha256:".length);
}

async function gcYes(d: TestDataDir, ...more: string[]) {
  return await cliInProcess([
    "blobs",
    "gc",
    "--data-dir",
    d.root,
    "--yes",
    ...more,
  ]);
}

async function stored(d: TestDataDir, hex: string): Promise<boolean> {
  return await new BlobStore(d.blobs).has(`blob:sha256:${hex}`);
}

async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** `"blob:sha256:<hex>"` with its first hex digit written as a `\u` escape. */
function escaped(hex: string): string {
  const first = hex.charCodeAt(0).toString(16).padStart(4, "0");
  return `blob:sha256:\\u${first}${hex.slice(1)}`;
}

Deno.test("cli blobs gc keeps a blob named through a JSON escape (item 1)", async (t) => {
  await using d = await makeDataDir();
  const hex = await orphan(d, "escaped");
  const file = d.session("s1-main.jsonl");
  await t.step(
    "\\u0030 in the digest: the same string, which the loader follows",
    async () => {
      await Deno.writeTextFile(
        file,
        `{"type":"custom","customType":"x","data":{"img":"${escaped(hex)}"}}\n`,
        { append: true },
      );
      const r = await gcYes(d);
      equal(r.code, 0, r.stderr);
      ok(r.stdout.includes(": 0 unreferenced"), r.stdout);
      ok(await stored(d, hex));
    },
  );
  await t.step("\\u0062lob: the prefix escaped, in a member name", async () => {
    const other = await orphan(d, "escaped prefix");
    await Deno.writeTextFile(
      file,
      `{"type":"custom","customType":"x","data":{"\\u0062lob:sha256:${other}":1}}\n`,
      { append: true },
    );
    const r = await gcYes(d);
    equal(r.code, 0, r.stderr);
    ok(await stored(d, other));
  });
  await t.step(
    "upper-case hex, which omp's gc counts (its regex is /gi)",
    async () => {
      const upper = await orphan(d, "upper");
      await Deno.writeTextFile(
        file,
        `{"type":"custom","customType":"x","data":"BLOB:SHA256:${upper.toUpperCase()}"}\n`,
        { append: true },
      );
      const r = await gcYes(d);
      equal(r.code, 0, r.stderr);
      ok(await stored(d, upper));
    },
  );
});

Deno.test("cli blobs gc keeps the blobs of omp's archive, gzip (item 2)", async () => {
  await using d = await makeDataDir();
  const hex = await orphan(d, "archived");
  // omp's archive step: sessions/<slug>/<f>.jsonl -> archive/sessions/<slug>/<f>.jsonl.gz
  const dir = join(d.root, "archive", "sessions", "-src-lumen-api");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeFile(
    join(dir, "2026-01-01T00-00-00-000Z_x.jsonl.gz"),
    await gzip(`{"type":"message","data":"blob:sha256:${hex}"}\n`),
  );
  const r = await gcYes(d);
  equal(r.code, 0, r.stderr);
  ok(r.stdout.includes("15 sessions scanned: 0 unreferenced"), r.stdout);
  ok(await stored(d, hex));
});

Deno.test("cli blobs gc refuses to act on a compressed file it cannot read", async () => {
  await using d = await makeDataDir();
  const hex = await orphan(d, "truncated archive");
  const dir = join(d.root, "archive", "sessions", "-x");
  await Deno.mkdir(dir, { recursive: true });
  const gz = await gzip(`{"data":"blob:sha256:${hex}"}\n`.repeat(100));
  await Deno.writeFile(join(dir, "a.jsonl.gz"), gz.subarray(0, gz.length - 9));
  const r = await gcYes(d);
  equal(r.code, 1);
  ok(r.stderr.includes("a.jsonl.gz"), r.stderr);
  ok(r.stderr.includes("nothing was moved or deleted"), r.stderr);
  ok(await stored(d, hex));
});

Deno.test("cli blobs gc keeps the blobs of omp's registered session files (item 3)", async (t) => {
  await using d = await makeDataDir();
  await using elsewhere = await makeDataDir();
  const hex = await orphan(d, "registered");
  // omp's recordCustomSessionFile: <agentDir>/custom-session-files/<hash of
  // the path>, whose content is the absolute path (no newline), any name.
  const outside = join(elsewhere.root, "work-session");
  await Deno.writeTextFile(outside, `{"data":"blob:sha256:${hex}"}\n`);
  const registry = join(d.root, "custom-session-files");
  await Deno.mkdir(registry);
  await Deno.writeTextFile(join(registry, "0f3a"), outside);
  await Deno.writeTextFile(
    join(registry, "9c1d"),
    join(elsewhere.root, "gone.jsonl"),
  );
  await t.step(
    "the file it names protects its blobs; a missing one is skipped",
    async () => {
      const r = await gcYes(d);
      equal(r.code, 0, r.stderr);
      ok(await stored(d, hex));
      ok(
        r.stdout.includes(
          `skipped 1 registered session file that is not there:\n  ${
            join(elsewhere.root, "gone.jsonl")
          }`,
        ),
        r.stdout,
      );
    },
  );
  await t.step(
    "and so does a terminal breadcrumb's (cwd, then the file)",
    async () => {
      const crumb = await orphan(d, "breadcrumb");
      await Deno.writeTextFile(
        join(elsewhere.root, "rel.jsonl"),
        `{"d":"blob:sha256:${crumb}"}\n`,
      );
      await Deno.mkdir(join(d.root, "terminal-sessions"));
      await Deno.writeTextFile(
        join(d.root, "terminal-sessions", "tty1"),
        `${elsewhere.root}\nrel.jsonl\n`,
      );
      const r = await gcYes(d);
      equal(r.code, 0, r.stderr);
      ok(await stored(d, crumb));
    },
  );
});

Deno.test("cli blobs gc keeps the blobs of sessions beside sessions/ and omp's other names (item 4)", async () => {
  await using d = await makeDataDir();
  const keep = await orphan(d, "keep");
  const gz = await orphan(d, "gz");
  const bak = await orphan(d, "bak");
  // A session at <dataDir>/keep/x.jsonl stores its images in <dataDir>/blobs.
  await Deno.mkdir(join(d.root, "keep"));
  await Deno.writeTextFile(
    join(d.root, "keep", "x.jsonl"),
    `{"d":"blob:sha256:${keep}"}\n`,
  );
  // omp's gc globs: sessions/**/*.jsonl.gz and sessions/**/*.jsonl.*.bak.
  await Deno.writeFile(
    d.session("old.jsonl.gz"),
    await gzip(`{"d":"blob:sha256:${gz}"}\n`),
  );
  await Deno.writeTextFile(
    d.session("x.jsonl.1.bak"),
    `{"d":"blob:sha256:${bak}"}\n`,
  );
  const r = await gcYes(d);
  equal(r.code, 0, r.stderr);
  ok(r.stdout.includes("17 sessions scanned: 0 unreferenced"), r.stdout);
  for (const hex of [keep, gz, bak]) ok(await stored(d, hex), hex);
});

Deno.test("cli blobs gc keeps a blob stored again while it runs (item 5)", async () => {
  await using d = await makeDataDir();
  const bytes = new TextEncoder().encode("pasted again");
  const hex = await orphan(d, "pasted again");
  const first = d.session("s1-branched.jsonl"); // sorted first: read before the put
  let done = false;
  // A writer pastes the image again once gc has read the first session: its
  // put finds the blob stored, and the line naming it goes into a file gc
  // has already read.
  const writer = {
    ...realFs,
    open: async (path: string, options: Deno.OpenOptions) => {
      if (!done && path.endsWith("s2-main.jsonl")) {
        done = true;
        const ref = await new BlobStore(d.blobs).put(bytes);
        await Deno.writeTextFile(first, `{"d":"${ref}"}\n`, { append: true });
      }
      return await realFs.open(path, options);
    },
  };
  const r = await withFs(writer, () => gcYes(d));
  ok(done);
  equal(r.code, 0, r.stderr);
  ok(await stored(d, hex), r.stdout);
});

Deno.test("cli blobs gc moves what it takes to the trash; restore and the next gc put it back", async (t) => {
  await using d = await makeDataDir();
  const hex = await new BlobStore(d.blobs).put(new TextEncoder().encode("x"), {
    ext: "png",
  }).then((ref) => ref.slice("blob:sha256:".length));
  await t.step(
    "within the grace period a blob is kept, and said so",
    async () => {
      const r = await gcYes(d);
      equal(r.code, 0, r.stderr);
      ok(r.stdout.includes(": 0 unreferenced"), r.stdout);
      ok(
        r.stdout.includes(
          `kept 1 unreferenced blob changed in the last 1h (the grace period):\n  ${hex}`,
        ),
        r.stdout,
      );
      ok(await stored(d, hex));
    },
  );
  await t.step("past it, the blob and its twin go to the trash", async () => {
    await age(d.blobs);
    const r = await gcYes(d, "--json");
    equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    deepStrictEqual(out.moved, [hex]);
    equal(out.deleted, true);
    ok(!await stored(d, hex));
    const trashed = (await Array.fromAsync(Deno.readDir(out.trash))).map((e) =>
      e.name
    ).sort();
    deepStrictEqual(trashed, [hex, `${hex}.png`]);
  });
  await t.step("verify skips the trash", async () => {
    const r = await cliInProcess(["blobs", "verify", "--data-dir", d.root]);
    equal(r.code, 0, r.stderr);
    equal(r.stdout, `4 blobs in ${d.blobs}: 4 ok, 0 mismatched\n`);
  });
  await t.step("blobs restore puts it back", async () => {
    const r = await cliInProcess(["blobs", "restore", "--data-dir", d.root]);
    equal(r.code, 0, r.stderr);
    ok(r.stdout.startsWith("restored 1 blob from "), r.stdout);
    ok(await stored(d, hex));
    ok((await Deno.stat(join(d.blobs, `${hex}.png`))).isFile);
  });
  await t.step(
    "a trashed blob a session names again comes back with the next gc",
    async () => {
      await gcYes(d);
      ok(!await stored(d, hex));
      await Deno.writeTextFile(
        d.session("s1-main.jsonl"),
        `{"d":"blob:sha256:${hex}"}\n`,
        { append: true },
      );
      const r = await gcYes(d);
      equal(r.code, 0, r.stderr);
      ok(
        r.stdout.includes(
          `put back 1 trashed blob a session names again:\n  ${hex}`,
        ),
        r.stdout,
      );
      ok(await stored(d, hex));
    },
  );
  await t.step(
    "trash older than --keep-trash is deleted for good",
    async () => {
      const lines = (await Deno.readTextFile(d.session("s1-main.jsonl"))).split(
        "\n",
      );
      await Deno.writeTextFile(
        d.session("s1-main.jsonl"),
        lines.slice(0, -2).join("\n") + "\n",
      );
      await gcYes(d);
      const trash = join(d.blobs, ".trash");
      equal((await Array.fromAsync(Deno.readDir(trash))).length, 1);
      const dry = await cliInProcess([
        "blobs",
        "gc",
        "--data-dir",
        d.root,
        "--keep-trash",
        "0",
      ]);
      ok(
        dry.stdout.includes(
          "would delete 1 blob trashed more than 0s ago, for good (2 B)",
        ),
        dry.stdout,
      );
      const r = await gcYes(d, "--keep-trash", "0");
      equal(r.code, 0, r.stderr);
      equal((await Array.fromAsync(Deno.readDir(trash))).length, 0);
    },
  );
});

Deno.test("cli blobs gc --grace takes a duration; a bad one is exit code 2", async () => {
  await using d = await makeDataDir();
  for (const bad of ["5", "1w", "-1h", "h"]) {
    const r = await cliInProcess([
      "blobs",
      "gc",
      "--data-dir",
      d.root,
      "--grace",
      bad,
    ]);
    equal(r.code, 2, bad);
  }
  const r = await cliInProcess([
    "blobs",
    "restore",
    "--data-dir",
    d.root,
    "--grace",
    "0",
  ]);
  equal(r.code, 2);
});

Deno.test("cli blobs gc moves nothing when a line is too long to decode, and says why", async () => {
  await using d = await makeDataDir();
  const hex = await orphan(d, "in a long line");
  const orphanToo = await orphan(d, "really unreferenced");
  // Over the loader's 64 MiB bound: its escaped reference cannot be decoded.
  const pad = "x".repeat(64 << 20);
  await Deno.writeTextFile(
    d.session("s1-main.jsonl"),
    `{"type":"custom","data":"${escaped(hex)}","pad":"${pad}"}\n`,
    { append: true },
  );
  const r = await gcYes(d);
  equal(r.code, 1);
  ok(r.stdout.includes(orphanToo), r.stdout);
  ok(
    r.stdout.endsWith("nothing was moved: some files could not be read\n"),
    r.stdout,
  );
  ok(
    /s1-main\.jsonl.*line \d+ is \d+ bytes, more than the 67108864 gc decodes/
      .test(r.stderr),
    r.stderr,
  );
  ok(await stored(d, hex));
  ok(await stored(d, orphanToo));
});
