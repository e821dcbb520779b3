import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../mod.ts";
import { Assets } from "../../src/export/_assets.ts";
import { tempDir } from "../_session_files.ts";
import { NO_SESSION, PNG, PNG_HEX } from "./_sessions.ts";

const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const GIF = new TextEncoder().encode("GIF89a....");
const WEBP = new TextEncoder().encode("RIFF\x10\0\0\0WEBPVP8 ");

async function assets(root: string, inline = false): Promise<Assets> {
  const blobs = new BlobStore(join(root, "blobs"));
  await blobs.put(PNG);
  return new Assets({
    inline,
    folder: join(root, "x-files"),
    blobs,
    session: NO_SESSION,
  });
}

Deno.test("Assets.image() writes each distinct image once, named by its digest and its real type", async () => {
  await using d = await tempDir();
  const a = await assets(d.path);
  const ref = `blob:sha256:${PNG_HEX}`;
  deepEqual(await a.image(ref, "image/png"), {
    kind: "file",
    href: `x-files/${PNG_HEX}.png`,
  });
  deepEqual(await a.image(PNG.toBase64(), "image/png"), {
    kind: "file",
    href: `x-files/${PNG_HEX}.png`,
  });
  // Declared JPEG, bytes PNG: the bytes decide the extension.
  deepEqual(await a.image(PNG.toBase64(), "image/jpeg"), {
    kind: "file",
    href: `x-files/${PNG_HEX}.png`,
  });
  deepEqual([a.files, a.inlined, a.missing], [1, 0, 0]);
  deepEqual(
    await Deno.readFile(join(d.path, "x-files", `${PNG_HEX}.png`)),
    PNG,
  );
});

Deno.test("Assets.image() inlines only PNG, JPEG, GIF and WebP bytes, as base64 data URLs", async () => {
  await using d = await tempDir();
  const a = await assets(d.path, true);
  for (
    const [bytes, mime] of [[PNG, "image/png"], [JPEG, "image/jpeg"], [
      GIF,
      "image/gif",
    ], [WEBP, "image/webp"]] as const
  ) {
    deepEqual(await a.image(bytes.toBase64(), "image/png"), {
      kind: "inline",
      src: `data:${mime};base64,${bytes.toBase64()}`,
    });
  }
  equal(a.inlined, 4);
});

Deno.test("Assets.image() refuses what it cannot check, with a reason of its own", async () => {
  await using d = await tempDir();
  const a = await assets(d.path);
  const html = new TextEncoder().encode("<svg onload=alert(1)>").toBase64();
  const cases: [unknown, unknown, string][] = [
    [PNG.toBase64(), "text/html", "not an image type shown"],
    [PNG.toBase64(), "image/svg+xml", "not an image type shown"],
    [PNG.toBase64(), 42, "not an image type shown"],
    [html, "image/png", "its bytes are not a PNG, JPEG, GIF or WebP image"],
    ["not base64!", "image/png", "its data is not base64"],
    [undefined, "image/png", "it has no data"],
    [
      "blob:sha256:../../etc/passwd",
      "image/png",
      "its blob reference is not valid",
    ],
    [`blob:sha256:${"0".repeat(64)}`, "image/png", "its blob is missing"],
  ];
  for (const [data, mime, reason] of cases) {
    deepEqual(await a.image(data, mime), { kind: "missing", reason });
  }
  equal(a.missing, cases.length);
  equal(a.files, 0);
});

Deno.test("Assets.image() refuses a blob whose bytes do not hash to its name, or that is a link", async () => {
  await using d = await tempDir();
  const a = await assets(d.path);
  const liar = "a".repeat(64);
  await Deno.writeFile(join(d.path, "blobs", liar), PNG);
  deepEqual(await a.image(`blob:sha256:${liar}`, "image/png"), {
    kind: "missing",
    reason: "its blob does not match its name",
  });
  const linked = "b".repeat(64);
  await Deno.symlink(
    join(d.path, "blobs", PNG_HEX),
    join(d.path, "blobs", linked),
  );
  deepEqual(await a.image(`blob:sha256:${linked}`, "image/png"), {
    kind: "missing",
    reason: "its blob cannot be used",
  });
  const none = new Assets({
    inline: false,
    folder: d.path,
    blobs: undefined,
    session: NO_SESSION,
  });
  deepEqual(await none.image(`blob:sha256:${PNG_HEX}`, "image/png"), {
    kind: "missing",
    reason: "its blob is missing (no data dir)",
  });
});

Deno.test("Assets.text() reads a tool output stored as a blob, and nothing else", async () => {
  await using d = await tempDir();
  const a = await assets(d.path);
  const ref = await new BlobStore(join(d.path, "blobs")).put(
    new TextEncoder().encode("long output"),
  );
  equal(await a.text(ref), "long output");
  equal(await a.text("plain text"), undefined);
  equal(await a.text(`blob:sha256:${"c".repeat(64)}`), undefined);
});
