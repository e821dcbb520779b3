import assert from "node:assert/strict";
import { join } from "node:path";
import { findDataDir, resolveDataDir } from "../../src/store/data_dir.ts";
import { Session } from "../../src/session/session.ts";
import { type Fs, realFs } from "../../src/_fs.ts";
import { withFs } from "../_fs_seam.ts";
import { sessionBytes, tempDir } from "../_session_files.ts";

const HOME = "/home/ann";

Deno.test("resolveDataDir() treats a blank XDEV_DATA_DIR as unset", async (t) => {
  for (const blank of ["", " ", "\t", " \n ", "\r\n"]) {
    await t.step(JSON.stringify(blank), async () => {
      assert.equal(
        await resolveDataDir({ env: { XDEV_DATA_DIR: blank }, home: HOME }),
        join(HOME, ".xdev", "agent"),
      );
    });
  }
  await t.step("a value with spaces around a path is a path", async () => {
    assert.equal(
      await resolveDataDir({ env: { XDEV_DATA_DIR: "/srv/x " }, home: HOME }),
      "/srv/x ",
    );
  });
});

Deno.test("findDataDir() takes the configured data dir, then the sessions/ layout, then a blobs/ folder", async (t) => {
  await using dir = await tempDir();
  const root = dir.path;
  const configured = join(root, "configured");
  const env = { XDEV_DATA_DIR: configured };
  const find = (file: string) => findDataDir(file, { env, home: HOME });

  await t.step("a file under the configured data dir's sessions/", async () => {
    assert.equal(
      await find(join(configured, "sessions", "-src-app", "a.jsonl")),
      configured,
    );
    // Deeper than the layout search reaches, and under a folder named
    // sessions that is not the data dir's: the configured one still wins.
    const deep = join(configured, "sessions", "-x", "sessions", "a", "b", "c");
    assert.equal(await find(join(deep, "s.jsonl")), configured);
  });
  await t.step(
    "else the parent of the nearest sessions/ folder, blobs/ or not",
    async () => {
      const other = join(root, "other", "agent");
      const main = join(other, "sessions", "-src-app", "2026_x.jsonl");
      assert.equal(await find(main), other);
      const child = join(
        other,
        "sessions",
        "-src-app",
        "2026_x",
        "task-1.jsonl",
      );
      assert.equal(await find(child), other);
      const grandchild = join(
        other,
        "sessions",
        "-a",
        "s",
        "task-1",
        "t.jsonl",
      );
      assert.equal(await find(grandchild), other);
      assert.equal(await find(join(other, "sessions", "loose.jsonl")), other);
    },
  );
  await t.step("a sessions/ folder further up is not the layout", async () => {
    const far = join(root, "far", "sessions", "a", "b", "c", "d", "s.jsonl");
    assert.equal(await find(far), undefined);
  });
  await t.step("else the nearest folder holding blobs/", async () => {
    const copied = join(root, "copied");
    await Deno.mkdir(join(copied, "blobs"), { recursive: true });
    assert.equal(await find(join(copied, "x", "s.jsonl")), copied);
  });
  await t.step("folders it may not look into are passed over", async () => {
    const copied = join(root, "copied");
    const deep = join(copied, "x", "y");
    // An OS refusal carries its code; Deno's sandbox refusal carries none.
    const denied = Object.assign(new Deno.errors.PermissionDenied("denied"), {
      code: "EACCES",
    });
    const fs: Fs = {
      ...realFs,
      stat: (p) =>
        p === join(deep, "blobs")
          ? Promise.reject(denied)
          : p === join(copied, "x", "blobs")
          ? Promise.reject(new Deno.errors.NotCapable("sandboxed"))
          : realFs.stat(p),
    };
    assert.equal(
      await withFs(fs, () => find(join(deep, "s.jsonl"))),
      copied,
    );
  });
  await t.step("else nothing", async () => {
    assert.equal(await find(join(root, "loose", "s.jsonl")), undefined);
  });
  await t.step("a blank XDEV_DATA_DIR is unset here too", async () => {
    const blank = { XDEV_DATA_DIR: "  " };
    const file = join(HOME, ".xdev", "agent", "sessions", "-", "s.jsonl");
    assert.equal(
      await findDataDir(file, { env: blank, home: HOME }),
      join(HOME, ".xdev", "agent"),
    );
  });
});

const PNG = new Uint8Array(4096).map((_, i) => (i * 7) & 0xff);

Deno.test("Session.open() stores large images of a data dir that has no blobs/ yet", async () => {
  await using dir = await tempDir();
  const dataDir = join(dir.path, "agent");
  const path = join(dataDir, "sessions", "-src-app", "s.jsonl");
  await Deno.mkdir(join(dataDir, "sessions", "-src-app"), { recursive: true });
  await Deno.writeFile(path, sessionBytes([]));
  {
    await using s = await Session.open(path);
    await s.appendMessage({
      role: "user",
      content: [{ type: "image", mimeType: "image/png", data: PNG.toBase64() }],
    });
  }
  const text = await Deno.readTextFile(path);
  assert.ok(!text.includes(PNG.toBase64()), "the image is not inline");
  const hex = new Uint8Array(await crypto.subtle.digest("SHA-256", PNG))
    .toHex();
  assert.ok(text.includes(`blob:sha256:${hex}`));
  assert.deepEqual(await Deno.readFile(join(dataDir, "blobs", hex)), PNG);
  await using again = await Session.open(path);
  assert.deepEqual(again.issues, []);
  const m = again.buildContext().messages[0] as {
    content: { data: string }[];
  };
  assert.equal(m.content[0]!.data, PNG.toBase64());
});

Deno.test("Session.open() uses XDEV_DATA_DIR for a file under its sessions/", async () => {
  await using dir = await tempDir();
  // The layout alone would name <dataDir>/sessions/-x: the configured dir wins.
  const dataDir = join(dir.path, "data");
  const folder = join(dataDir, "sessions", "-x", "sessions");
  const path = join(folder, "s.jsonl");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeFile(path, sessionBytes([]));
  const before = Deno.env.get("XDEV_DATA_DIR");
  Deno.env.set("XDEV_DATA_DIR", dataDir);
  try {
    await using s = await Session.open(path);
    await s.appendMessage({
      role: "user",
      content: [{ type: "image", mimeType: "image/png", data: PNG.toBase64() }],
    });
  } finally {
    if (before === undefined) Deno.env.delete("XDEV_DATA_DIR");
    else Deno.env.set("XDEV_DATA_DIR", before);
  }
  const names: string[] = [];
  for await (const e of Deno.readDir(join(dataDir, "blobs"))) {
    names.push(e.name);
  }
  assert.equal(names.length, 2, "the blob and its .png twin");
});
