import { deepStrictEqual, equal } from "node:assert/strict";
import { contextToJson, parseBlobRef, Session } from "../../mod.ts";
import { sessionBytes, T0, tempDir } from "../_session_files.ts";

const HEX = "ab".repeat(32);

Deno.test("parseBlobRef() accepts only blob:sha256: and 64 lowercase hex", () => {
  equal(parseBlobRef(`blob:sha256:${HEX}`), HEX);
  for (
    const bad of [
      `blob:sha256:${HEX.toUpperCase()}`,
      `blob:sha256:${HEX.slice(1)}`,
      `blob:sha256:${HEX}0`,
      `blob:sha256:${HEX.slice(0, 62)}/x`,
      `blob:sha256:../../../../etc/passwd`,
      `blob:sha256:/etc/passwd`,
      `blob:sha256:${HEX}\u0000`,
      `blob:sha256:${HEX}\n`,
      `blob:sha256:`,
      `blob:sha512:${HEX}`,
      ` blob:sha256:${HEX}`,
      HEX,
      "",
    ]
  ) equal(parseBlobRef(bad), undefined, JSON.stringify(bad));
});

Deno.test("Session.open() resolves image blobs, reports a missing one and never follows a hostile ref", async () => {
  await using dir = await tempDir();
  const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", png))
    .toHex();
  await Deno.mkdir(`${dir.path}/blobs`);
  await Deno.writeFile(`${dir.path}/blobs/${digest}`, png);
  // Bait: files a hostile ref would reach if it were followed.
  await Deno.writeTextFile(`${dir.path}/secret`, "do not read");
  await Deno.writeFile(`${dir.path}/blobs/${HEX.toUpperCase()}`, png);
  const missing = "cd".repeat(32);
  const refs = [
    `blob:sha256:${digest}`,
    `blob:sha256:${missing}`,
    "blob:sha256:../secret",
    `blob:sha256:${HEX.toUpperCase()}`,
  ];
  const entry = {
    type: "message",
    id: "0000000a",
    parentId: null,
    timestamp: T0,
    message: {
      role: "user",
      content: refs.map((data) => ({
        type: "image",
        mimeType: "image/png",
        data,
      })),
    },
  };
  await Deno.mkdir(`${dir.path}/sessions/-x`, { recursive: true });
  const path = `${dir.path}/sessions/-x/s.jsonl`;
  await Deno.writeFile(path, sessionBytes([entry]));

  await using session = await Session.open(path); // data dir found upwards
  deepStrictEqual(session.issues.map((i) => i.kind), [
    "missing-blob",
    "bad-blob-ref",
    "bad-blob-ref",
  ]);
  for (const issue of session.issues) {
    equal(issue.message.includes("secret"), false);
  }
  const json = await contextToJson(
    session.buildContext(),
    session.title,
    session.titleSource,
  );
  const blocks = json.messages[0]!.content as Record<string, unknown>[];
  deepStrictEqual(blocks[0], {
    type: "image",
    mimeType: "image/png",
    sha256: digest,
    bytes: png.length,
  });
  deepStrictEqual(blocks.slice(1).map((b) => b.unresolvedRef), refs.slice(1));
  // The entry on disk and in memory still holds the refs.
  deepStrictEqual(
    (session.entries[0] as typeof entry).message.content.map((b) => b.data),
    refs,
  );
});

Deno.test("Session.open() with resolveBlobs false leaves every ref in place", async () => {
  await using session = await Session.open(
    new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url).pathname,
    { resolveBlobs: false },
  );
  const json = await contextToJson(
    session.buildContext(),
    session.title,
    session.titleSource,
  );
  const images = JSON.stringify(json.messages).match(/unresolvedRef/g) ?? [];
  equal(images.length, 1);
});

Deno.test("Session.open() reports a symlinked blob folder and does not follow it", async () => {
  await using outside = await tempDir();
  await using dir = await tempDir();
  const png = new Uint8Array([1, 2, 3]);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", png))
    .toHex();
  await Deno.writeFile(`${outside.path}/${digest}`, png);
  await Deno.symlink(outside.path, `${dir.path}/blobs`);
  const entry = {
    type: "message",
    id: "0000000a",
    parentId: null,
    timestamp: T0,
    message: {
      role: "user",
      content: [{
        type: "image",
        mimeType: "image/png",
        data: `blob:sha256:${digest}`,
      }],
    },
  };
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeFile(path, sessionBytes([entry]));
  await using session = await Session.open(path);
  deepStrictEqual(session.issues.map((i) => i.kind), ["missing-blob"]);
  const json = await contextToJson(
    session.buildContext(),
    session.title,
    session.titleSource,
  );
  equal(
    (json.messages[0]!.content as Record<string, unknown>[])[0]!.unresolvedRef,
    `blob:sha256:${digest}`,
  );
});
