/**
 * Entries shaped as omp writes them, with image bytes at every position omp
 * moves to the blob store: message content, a tool result's `details.images[]`
 * and nested `content`, an OpenAI Responses payload's `image_generation_call`
 * and `image_url` data URL, a custom message's content and details, and a
 * snapcompact frame.
 */

/** Two small images, distinct, each well over omp's 1024-character threshold. */
export const PNG = new Uint8Array(2400).map((_, i) => (i * 31 + 7) & 0xff);
export const JPG = new Uint8Array(1900).map((_, i) => (i * 17 + 3) & 0xff);

const png = PNG.toBase64();
const jpg = JPG.toBase64();
/** A provider transport data URL (omp stores its UTF-8). */
export const DATA_URL = `data:image/png;base64,${png}`;

const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };

/** The payloads (no envelope), in the order they are appended. */
export function ompShapedPayloads(): Record<string, unknown>[] {
  return [
    {
      type: "compaction",
      summary: "Earlier work, with its screenshots kept as frames.",
      firstKeptEntryId: null,
      tokensBefore: 1200,
      preserveData: {
        snapcompact: { frames: [{ data: png, mimeType: "image/png" }] },
      },
    },
    {
      type: "message",
      message: {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture?" },
          { type: "image", mimeType: "image/png", data: png },
        ],
        timestamp: 1,
      },
    },
    {
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "toolCall", id: "t1", name: "read", arguments: { p: "a" } },
        ],
        api: "openai-responses",
        provider: "openai",
        model: "gpt-5.1-codex",
        usage: {
          input: 10,
          output: 5,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 15,
          cost,
        },
        stopReason: "toolUse",
        timestamp: 2,
        providerPayload: {
          type: "openaiResponsesHistory",
          items: [
            { type: "image_generation_call", id: "ig_1", result: jpg },
            {
              type: "message",
              role: "user",
              content: [{ type: "input_image", image_url: DATA_URL }],
            },
          ],
        },
      },
    },
    {
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: "t1",
        toolName: "read",
        content: [
          { type: "text", text: "Read image a.jpg" },
          { type: "image", mimeType: "image/jpeg", data: jpg },
        ],
        details: {
          images: [{ data: png, mimeType: "image/png" }],
          nested: {
            content: [{ type: "image", mimeType: "image/png", data: png }],
          },
        },
        isError: false,
        timestamp: 3,
      },
    },
    {
      type: "custom_message",
      customType: "screenshot",
      content: [{ type: "image", mimeType: "image/png", data: png }],
      display: true,
      details: {
        images: [{ type: "image", mimeType: "image/jpeg", data: jpg }],
      },
    },
  ];
}
