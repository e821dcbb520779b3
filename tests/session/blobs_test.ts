import assert from "node:assert/strict";
import { join } from "node:path";
import { type FileHandle, type Fs, realFs } from "../../src/_fs.ts";
import type { LoadIssue } from "../../src/format/issues.ts";
import { Session } from "../../src/session/session.ts";
import { BLOB_READ_MAX_BYTES } from "../../src/store/blob_store.ts";
import { override, withFs } from "../_fs_seam.ts";
import { sessionBytes, T0, tempDir } from "../_session_files.ts";

const PNG = new Uint8Array(3000).map((_, i) => (i * 13) & 0xff);

async function sha256(bytes: Uint8Array): Promise<string> {
  return new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as BufferSource),
  ).toHex();
}

/** A data dir with one session whose user message shows the image `hex`. */
async function sessionWithImage(root: string, hex: string): Promise<string> {
  const path = join(root, "sessions", "-app", "s.jsonl");
  await Deno.mkdir(join(root, "sessions", "-app"), { recursive: true });
  await Deno.mkdir(join(root, "blobs"), { recursive: true });
  await Deno.writeFile(
    path,
    sessionBytes([{
      type: "message",
      id: "0000000a",
      parentId: null,
      timestamp: T0,
      message: {
        role: "user",
        content: [{
          type: "image",
          mimeType: "image/png",
          data: `blob:sha256:${hex}`,
        }],
      },
    }]),
  );
  return path;
}

/** Opens `path` windowed and whole; the one issue of each, and the ref left in the context. */
async function openBoth(path: string, hex: string): Promise<LoadIssue[]> {
  const issues: LoadIssue[] = [];
  for (const window of [true, false]) {
    await using s = await Session.open(path, { window });
    assert.equal(s.issues.length, 1, JSON.stringify(s.issues));
    const issue = s.issues[0]!;
    assert.ok(issue.message.includes(hex), "the message names the digest");
    assert.equal(issue.line, 0);
    const m = s.buildContext().messages[0] as { content: { data: string }[] };
    assert.equal(m.content[0]!.data, `blob:sha256:${hex}`, "the ref stays");
    issues.push(issue);
  }
  return issues;
}

Deno.test("Session.open() reports a blob larger than the read bound and never reads it", async (t) => {
  await using dir = await tempDir();
  const hex = "ab".repeat(32);
  const path = await sessionWithImage(dir.path, hex);
  const blob = join(dir.path, "blobs", hex);
  let read = 0;
  const fs: Fs = {
    ...realFs,
    open: async (p, options) => {
      const file = await realFs.open(p, options);
      if (p !== blob) return file;
      return override(file, {
        read: (buf, at) => {
          read++;
          return file.read(buf, at);
        },
      });
    },
  };
  for (
    const [name, size] of [
      ["500 MB: its base64 would not fit in a string", 500_000_000],
      ["one byte over the 64 MiB bound", BLOB_READ_MAX_BYTES + 1],
    ] as const
  ) {
    await t.step(name, async () => {
      await Deno.writeFile(blob, new Uint8Array(0));
      await Deno.truncate(blob, size); // sparse: no disk, no memory
      const issues = await withFs(fs, () => openBoth(path, hex));
      assert.deepEqual(issues.map((i) => i.kind), [
        "blob-too-large",
        "blob-too-large",
      ]);
      assert.equal(read, 0, "not a byte was read");
    });
  }
  await t.step(
    "at the bound it is read (and these zeros are damage)",
    async () => {
      await Deno.truncate(blob, BLOB_READ_MAX_BYTES);
      await using s = await Session.open(path);
      assert.deepEqual(s.issues.map((i) => i.kind), ["corrupt-blob"]);
    },
  );
});

Deno.test("Session.open() reports a blob that cannot be read, and goes on", async (t) => {
  await using dir = await tempDir();
  const hex = await sha256(PNG);
  const path = await sessionWithImage(dir.path, hex);
  const blob = join(dir.path, "blobs", hex);
  await Deno.writeFile(blob, PNG);
  const failing = (fault: (file: FileHandle) => FileHandle): Fs => ({
    ...realFs,
    open: async (p, options) => {
      const file = await realFs.open(p, options);
      return p === blob ? fault(file) : file;
    },
  });
  await t.step("an I/O error on read", async () => {
    const eio = failing((file) =>
      override(file, {
        read: () =>
          Promise.reject(
            Object.assign(new Error("Input/output error (os error 5)"), {
              code: "EIO",
            }),
          ),
      })
    );
    const issues = await withFs(eio, () => openBoth(path, hex));
    assert.deepEqual(issues.map((i) => i.kind), [
      "unreadable-blob",
      "unreadable-blob",
    ]);
    assert.match(issues[0]!.message, /Input\/output error/);
  });
  await t.step("a blob cut while it is read", async () => {
    const shrinking = failing((file) =>
      override(file, {
        stat: async () => ({ ...await file.stat(), size: PNG.length + 10 }),
      })
    );
    const issues = await withFs(shrinking, () => openBoth(path, hex));
    assert.deepEqual(issues.map((i) => i.kind), [
      "unreadable-blob",
      "unreadable-blob",
    ]);
    assert.match(issues[0]!.message, /shrank/);
  });
  await t.step("permission denied on open", async () => {
    const denied: Fs = {
      ...realFs,
      open: (p, options) =>
        p === blob
          ? Promise.reject(new Deno.errors.PermissionDenied("denied"))
          : realFs.open(p, options),
    };
    const issues = await withFs(denied, () => openBoth(path, hex));
    assert.deepEqual(issues.map((i) => i.kind), [
      "unreadable-blob",
      "unreadable-blob",
    ]);
  });
  await t.step("and the blob once readable resolves", async () => {
    await using s = await Session.open(path);
    assert.deepEqual(s.issues, []);
    const m = s.buildContext().messages[0] as { content: { data: string }[] };
    assert.equal(m.content[0]!.data, PNG.toBase64());
  });
});

Deno.test("Session.open() reports a blob whose bytes do not hash to its name", async () => {
  await using dir = await tempDir();
  const hex = await sha256(PNG);
  const path = await sessionWithImage(dir.path, hex);
  // omp writes blobs in place, without a temp file: a crash can cut one.
  await Deno.writeFile(join(dir.path, "blobs", hex), PNG.subarray(0, 1000));
  const issues = await openBoth(path, hex);
  assert.deepEqual(issues.map((i) => i.kind), ["corrupt-blob", "corrupt-blob"]);
  assert.match(issues[0]!.message, /1000 bytes/);
});
