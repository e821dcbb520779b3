import assert from "node:assert/strict";
import {
  type BlobSlot,
  mapLoadedSlots,
  mapStoredSlots,
} from "../../src/format/_blob_slots.ts";

const BIG = "A".repeat(1024);
const SMALL = "A".repeat(1023);
const REF = `blob:sha256:${"c".repeat(64)}`;
const URL = "data:image/png;base64,iVBORw0KGgo=";

/** Every slot a walk visits, replacing each by `<kind>!`. */
function walk(
  fn: typeof mapStoredSlots,
  value: unknown,
): { slots: BlobSlot[]; out: unknown } {
  const slots: BlobSlot[] = [];
  const out = fn(value, (slot) => {
    slots.push(slot);
    return `${slot.kind}!`;
  });
  return { slots, out };
}

Deno.test("mapStoredSlots() finds every position omp stores as a blob, at any depth", () => {
  const entry = {
    type: "message",
    message: {
      role: "toolResult",
      content: [
        { type: "image", mimeType: "image/png", data: BIG },
        { type: "image", mimeType: "image/png", data: SMALL }, // too small
        { type: "image", mimeType: "image/png", data: REF }, // already a ref
        { type: "text", text: BIG },
      ],
      details: {
        images: [
          { data: BIG, mimeType: "image/jpeg" },
          { type: "image", data: BIG },
          { data: BIG, mimeType: "text/plain" }, // not an image
        ],
        content: [{ type: "image", data: BIG }],
        nested: { image_url: URL, other: { image_url: "https://x/y.png" } },
        data: BIG, // not under content, images or frames
      },
      providerPayload: {
        items: [
          { type: "image_generation_call", result: BIG },
          { type: "image_generation_call", result: SMALL },
          { type: "input_image", image_url: URL },
        ],
      },
    },
  };
  const { slots, out } = walk(mapStoredSlots, entry);
  assert.deepEqual(slots, [
    { kind: "image", value: BIG, mimeType: "image/png" },
    { kind: "image", value: BIG, mimeType: "image/jpeg" },
    { kind: "image", value: BIG },
    { kind: "image", value: BIG },
    { kind: "url", value: URL },
    { kind: "result", value: BIG },
    { kind: "url", value: URL },
  ]);
  const m = (out as typeof entry).message;
  assert.equal(m.content[0]!.data, "image!");
  assert.equal(m.content[1]!.data, SMALL);
  assert.equal(m.details.images[2]!.data, BIG);
  assert.equal(m.details.nested.image_url, "url!");
  assert.equal(m.details.nested.other.image_url, "https://x/y.png");
  assert.equal(m.details.data, BIG);
  assert.deepEqual(m.providerPayload.items[0], {
    type: "image_generation_call",
    result: "result!",
  });
  assert.equal(entry.message.content[0]!.data, BIG, "the input is not changed");
});

Deno.test("mapStoredSlots() stores snapcompact frames and leaves signed blocks verbatim", () => {
  const entry = {
    type: "compaction",
    preserveData: {
      snapcompact: { frames: [{ data: BIG, mimeType: "image/png" }] },
    },
    verbatim: [
      {
        type: "reasoning",
        encrypted_content: "x",
        images: [{ type: "image", data: BIG }],
      },
      {
        type: "thinking",
        thinkingSignature: "s",
        images: [{ type: "image", data: BIG }],
      },
      { type: "anthropicCompaction", images: [{ type: "image", data: BIG }] },
      {
        type: "anthropicServerTool",
        block: { type: "server_tool_use", name: "web_search", id: "t1" },
        images: [{ type: "image", data: BIG }],
      },
    ],
    entered: [
      {
        type: "thinking",
        thinkingSignature: "",
        images: [{ type: "image", data: BIG }],
      },
      {
        type: "anthropicServerTool",
        block: { type: "server_tool_use", name: "other", id: "t1" },
        images: [{ type: "image", data: BIG }],
      },
    ],
  };
  const { slots } = walk(mapStoredSlots, entry);
  assert.deepEqual(slots.map((s) => s.kind), ["frame", "image", "image"]);
});

Deno.test("mapLoadedSlots() finds the references omp resolves, at any depth, never frames", () => {
  const entry = {
    type: "message",
    message: {
      role: "toolResult",
      content: [
        { type: "image", mimeType: "image/png", data: REF },
        { type: "image", mimeType: "image/png", data: "blob:sha256:BAD" },
        { type: "image", data: BIG }, // inline
      ],
      details: {
        images: [{ data: REF, mimeType: "image/png" }],
        frames: [{ data: REF, mimeType: "image/png" }],
        thumbnail: { type: "image", data: REF }, // not under content/images
        deep: [{ content: [{ type: "image", data: REF }] }],
      },
      providerPayload: {
        items: [
          { type: "image_generation_call", result: REF },
          { type: "input_image", image_url: REF },
          { type: "input_image", image_url: URL },
        ],
      },
    },
  };
  const { slots, out } = walk(mapLoadedSlots, entry);
  assert.deepEqual(slots, [
    { kind: "image", value: REF, mimeType: "image/png" },
    { kind: "image", value: "blob:sha256:BAD", mimeType: "image/png" },
    { kind: "image", value: REF, mimeType: "image/png" },
    { kind: "image", value: REF },
    { kind: "result", value: REF },
    { kind: "url", value: REF },
  ]);
  const m = (out as typeof entry).message;
  assert.equal(m.details.frames[0]!.data, REF);
  assert.equal(m.details.thumbnail.data, REF);
  assert.equal(m.providerPayload.items[1]!.image_url, "url!");
  assert.equal(m.providerPayload.items[2]!.image_url, URL);
});

Deno.test("mapLoadedSlots() and mapStoredSlots() share what they do not change", () => {
  const entry = {
    type: "message",
    message: { role: "user", content: [{ type: "text", text: "hi" }] },
  };
  assert.equal(mapLoadedSlots(entry, () => "x"), entry);
  assert.equal(mapStoredSlots(entry, () => "x"), entry);
  const withImage = {
    type: "message",
    message: {
      role: "user",
      content: [{ type: "image", data: REF }],
      other: { a: 1 },
    },
  };
  const out = mapLoadedSlots(withImage, () => undefined);
  assert.equal(out, withImage, "undefined leaves the value");
  const replaced = mapLoadedSlots(withImage, () => "data") as typeof withImage;
  assert.equal(replaced.message.other, withImage.message.other);
});
