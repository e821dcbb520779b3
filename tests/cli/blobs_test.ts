import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import {
  findSessionFiles,
  formatDuration,
  listBlobFolder,
  parseDuration,
  twinCount,
  unreferenced,
} from "../../src/cli/_blobs.ts";
import { BlobStore } from "../../src/store/blob_store.ts";
import { cli, cliCases, cliInProcess, makeDataDir } from "../_cli.ts";
import { tempDir } from "../_session_files.ts";

const CORRUPT =
  "02d0ebcb1041809815e8b77360fd3dd88345cdc488b9382f284f23babe61a942";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

Deno.test("cli blobs verify passes a sound store", async () => {
  await using d = await makeDataDir();
  const r = await cli(["blobs", "verify", "--data-dir", d.root]);
  equal(r.code, 0, r.stderr);
  equal(r.stdout, `4 blobs in ${d.blobs}: 4 ok, 0 mismatched\n`);
  equal(r.stderr, "");
});

Deno.test("cli blobs verify reports a blob whose bytes changed: exit code 1", async (t) => {
  await using d = await makeDataDir();
  // Break the copy, not the twin (a hard link in omp's store, a copy here).
  await Deno.writeTextFile(join(d.blobs, CORRUPT), "x", { append: true });
  await Deno.writeTextFile(join(d.blobs, "README"), "not a blob\n");
  await Deno.writeTextFile(join(d.blobs, `.${"a".repeat(64)}.1f2e.tmp`), "");
  await t.step("text", async () => {
    const r = await cli(["blobs", "verify", "--data-dir", d.root]);
    equal(r.code, 1);
    equal(
      r.stdout,
      `4 blobs in ${d.blobs}: 3 ok, 1 mismatched\nmismatch  ${CORRUPT}\nunknown   README\n`,
    );
    equal(
      r.stderr,
      `error: Cannot verify the blobs in "${d.blobs}": 1 blob does not hash to its name\n`,
    );
  });
  await t.step("--json, from XDEV_DATA_DIR", async () => {
    const r = await cli(["blobs", "verify", "--json"], {
      XDEV_DATA_DIR: d.root,
    });
    equal(r.code, 1);
    deepStrictEqual(JSON.parse(r.stdout), {
      dir: d.blobs,
      checked: 4,
      ok: 3,
      mismatched: [CORRUPT],
      unusable: [],
      unknown: ["README"],
      skipped: { twins: 4, temp: 1 },
    });
  });
});

Deno.test("cli blobs gc reports unreferenced blobs and deletes them only with --yes", async (t) => {
  await using d = await makeDataDir();
  const store = new BlobStore(d.blobs);
  const ref = await store.put(new TextEncoder().encode("orphan"), {
    ext: "png",
  });
  const hex = ref.slice("blob:sha256:".length);
  // Older than the grace period (an hour), so it is a candidate.
  const then = new Date(Date.now() - 2 * 3_600_000);
  for (const name of [hex, `${hex}.png`]) {
    await Deno.utime(join(d.blobs, name), then, then);
  }
  await t.step("without --yes nothing is deleted", async () => {
    const r = await cli(["blobs", "gc", "--data-dir", d.root]);
    equal(r.code, 0, r.stderr);
    equal(
      r.stdout,
      `5 blobs in ${d.blobs}, 14 sessions scanned: 1 unreferenced (6 B)\n` +
        `${hex}        6 B  + .png\nrun with --yes to move them to the trash\n`,
    );
    ok(await exists(join(d.blobs, hex)));
  });
  await t.step("--json", async () => {
    const r = await cli(["blobs", "gc", "--data-dir", d.root, "--json"]);
    const out = JSON.parse(r.stdout);
    deepStrictEqual(out.unreferenced, [
      { hex, bytes: 6, files: [hex, `${hex}.png`] },
    ]);
    equal(out.deleted, false);
    equal(out.sessions, 14);
  });
  await t.step(
    "--yes moves the blob and its twin to the trash, and nothing else",
    async () => {
      const r = await cli(["blobs", "gc", "--data-dir", d.root, "--yes"]);
      equal(r.code, 0, r.stderr);
      ok(
        /moved 1 blob to .*\/\.trash\/\S+ \(cli blobs restore puts it back\)\n$/
          .test(r.stdout),
        r.stdout,
      );
      ok(!await exists(join(d.blobs, hex)));
      ok(!await exists(join(d.blobs, `${hex}.png`)));
      // The eight fixture files, and the trash.
      equal((await Array.fromAsync(Deno.readDir(d.blobs))).length, 9);
      ok(!await exists(join(d.root, "gc.lock")));
      const verify = await cli(["blobs", "verify", "--data-dir", d.root]);
      equal(verify.code, 0, verify.stderr);
    },
  );
  await t.step("then there is nothing left to collect", async () => {
    const r = await cli(["blobs", "gc", "--data-dir", d.root]);
    ok(r.stdout.endsWith(": 0 unreferenced (0 B)\n"), r.stdout);
  });
});

Deno.test("cli blobs gc keeps a blob named only in a torn line", async () => {
  await using d = await makeDataDir();
  const ref = await new BlobStore(d.blobs).put(new Uint8Array([1, 2, 3]));
  const file = d.session("s1-edge.jsonl");
  await Deno.writeTextFile(file, `{"type":"message","data":"${ref}`, {
    append: true,
  });
  const r = await cliInProcess(["blobs", "gc", "--data-dir", d.root, "--yes"]);
  equal(r.code, 0, r.stderr);
  ok(r.stdout.includes(": 0 unreferenced"), r.stdout);
  ok(await new BlobStore(d.blobs).has(ref));
});

Deno.test("cli blobs gc follows linked sessions and refuses a linked blobs folder", async (t) => {
  await using d = await makeDataDir();
  await using other = await makeDataDir();
  // The only session naming the main sessions' blobs lives elsewhere.
  for await (const e of Deno.readDir(d.sessions)) {
    if (e.name.includes("main") || e.name.includes("fork")) {
      await Deno.remove(join(d.sessions, e.name));
    }
  }
  await Deno.symlink(
    other.session("s1-main.jsonl"),
    join(d.sessions, "linked.jsonl"),
  );
  await t.step("a linked session protects its blobs", async () => {
    const r = await cliInProcess([
      "blobs",
      "gc",
      "--data-dir",
      d.root,
      "--grace",
      "0",
      "--json",
    ]);
    equal(r.code, 0, r.stderr);
    // s1-main names two of the four blobs; s2-main's two are unreferenced.
    equal(JSON.parse(r.stdout).unreferenced.length, 2);
  });
  await t.step("a linked blobs folder is refused", async () => {
    await Deno.remove(d.blobs, { recursive: true });
    await Deno.symlink(other.blobs, d.blobs);
    const r = await cliInProcess([
      "blobs",
      "gc",
      "--data-dir",
      d.root,
      "--yes",
    ]);
    equal(r.code, 1);
    equal(
      r.stderr,
      `error: Cannot collect the blobs in "${d.blobs}": it is a symbolic link\n`,
    );
    equal((await Array.fromAsync(Deno.readDir(other.blobs))).length, 8);
  });
});

Deno.test("cli blobs gc refuses a data dir without sessions: exit code 1", async () => {
  await using d = await makeDataDir();
  await Deno.remove(join(d.root, "sessions"), { recursive: true });
  const r = await cli(["blobs", "gc", "--data-dir", d.root, "--yes"]);
  equal(r.code, 1);
  ok(r.stderr.startsWith(`error: Cannot collect the blobs of "${d.root}": `));
  equal((await Array.fromAsync(Deno.readDir(d.blobs))).length, 8);
});

Deno.test("cli blobs: bad usage is exit code 2", async () => {
  const cases = [
    ["blobs"],
    ["blobs", "frob"],
    ["blobs", "verify", "--yes"],
    ["blobs", "gc", "extra"],
    ["blobs", "gc", "--data-dir"],
  ];
  for (const [i, r] of (await cliCases(cases)).entries()) {
    equal(r.code, 2, cases[i]!.join(" "));
    ok(r.stderr.startsWith("error: "));
  }
});

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);

Deno.test("listBlobFolder() sorts a blobs folder by kind of name", async (t) => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, B), "bb");
  await Deno.writeTextFile(join(dir.path, A), "a");
  await Deno.writeTextFile(join(dir.path, `${A}.png`), "a");
  await Deno.writeTextFile(join(dir.path, `${C}.jpg`), "ccc"); // lost its blob
  await Deno.writeTextFile(join(dir.path, `.${A}.x1.tmp`), "");
  await Deno.writeTextFile(join(dir.path, "README"), "");
  await Deno.mkdir(join(dir.path, "zz"));
  await Deno.mkdir(join(dir.path, ".trash"));
  const listing = await listBlobFolder(dir.path, "verify");
  await t.step("by kind", () => {
    deepStrictEqual([...listing.blobs], [[A, 1], [B, 2]]);
    deepStrictEqual([...listing.twins], [[A, [`${A}.png`]], [C, [`${C}.jpg`]]]);
    equal(listing.temp, 1);
    equal(listing.trash, true);
    deepStrictEqual(listing.unknown, ["README", "zz"]);
    equal(twinCount(listing), 2);
  });
  await t.step("unreferenced() keeps what is named", async () => {
    const found = await unreferenced(dir.path, listing, new Set([B]));
    deepStrictEqual(
      found.map(({ hex, bytes, files }) => ({ hex, bytes, files })),
      [
        { hex: A, bytes: 1, files: [A, `${A}.png`] },
        { hex: C, bytes: 3, files: [`${C}.jpg`] },
      ],
    );
    // The newest time of a digest's files, the blob's and its twins'.
    const png = (await Deno.lstat(join(dir.path, `${A}.png`))).mtime!.getTime();
    const a = (await Deno.lstat(join(dir.path, A))).mtime!.getTime();
    equal(found[0]!.modifiedMs, Math.max(a, png));
  });
});

Deno.test("listBlobFolder(): an absent folder holds nothing; a linked one is refused", async () => {
  await using dir = await tempDir();
  const absent = await listBlobFolder(join(dir.path, "nope"), "verify");
  equal(absent.blobs.size + absent.twins.size + absent.temp, 0);
  const link = join(dir.path, "blobs");
  await Deno.symlink(dir.path, link);
  await rejects(listBlobFolder(link, "collect"), {
    message: `Cannot collect the blobs in "${link}": it is a symbolic link`,
  });
});

Deno.test("findSessionFiles() walks links once, sorted, *.jsonl only", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "sessions");
  await Deno.mkdir(join(root, "b"), { recursive: true });
  await Deno.writeTextFile(join(root, "b", "2.jsonl"), "");
  await Deno.writeTextFile(join(root, "1.jsonl"), "");
  await Deno.writeTextFile(join(root, "notes.txt"), "");
  await Deno.symlink(root, join(root, "b", "loop")); // a link loop
  await Deno.symlink(join(dir.path, "gone"), join(root, "dangling.jsonl"));
  deepStrictEqual(await findSessionFiles(root), [
    join(root, "1.jsonl"),
    join(root, "b", "2.jsonl"),
  ]);
});

Deno.test("parseDuration() and formatDuration(): the gc flags' durations", () => {
  deepStrictEqual(
    ["0", "30s", "5m", "1h", "7d", "5", "1w", "-1h", "1.5h", ""].map(
      parseDuration,
    ),
    [
      0,
      30_000,
      300_000,
      3_600_000,
      604_800_000,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ],
  );
  deepStrictEqual(
    [0, 30_000, 300_000, 3_600_000, 5_400_000, 604_800_000].map(formatDuration),
    ["0s", "30s", "5m", "1h", "90m", "7d"],
  );
});
