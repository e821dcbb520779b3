/**
 * What happens to an entry on its way to disk: large images and (optionally)
 * large tool-result text move to the blob store, and a `usage` without a
 * `cost` gets a zero one (omp 18.3.4 crashes on it otherwise).
 *
 * @module
 */

import { BLOB_REF_PREFIX, parseBlobRef } from "../format/blob_ref.ts";
import { type BlobStore, imageExtension } from "../store/blob_store.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { ContentBlock, Usage } from "../format/messages.ts";
import type { ResolvedBlobs } from "./_blobs.ts";

/** Base64 image data of this many characters or more is stored as a blob, as omp does. */
export const IMAGE_BLOB_MIN_CHARS = 1024;

/** How entries are prepared for disk. */
export interface PersistOptions {
  /** Where blobs go; without one, everything stays inline. */
  blobs?: BlobStore | undefined;
  /**
   * Tool-result text blocks longer than this many characters are stored as
   * blobs (the block's text becomes the reference). Off by default: omp does
   * not resolve text references, so files meant for omp should leave it off.
   */
  textBlobThreshold?: number | undefined;
}

const _ZERO_COST = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  total: 0,
};
const _enc = new TextEncoder();

/**
 * The on-disk form of a new entry. The input is not modified; parts that
 * change are copied.
 *
 * @param entry A new entry.
 * @param options The blob store and the text threshold.
 * @param resolved Filled with the contents of blobs written.
 * @returns The entry to write.
 */
export async function prepareForDisk(
  entry: SessionEntry,
  options: PersistOptions,
  resolved: ResolvedBlobs,
): Promise<SessionEntry> {
  if (entry.type === "message") {
    const m = entry.message as Record<string, unknown> | null;
    if (m === null || typeof m !== "object") return entry;
    let message = m;
    if (Array.isArray(m.content)) {
      const content = await _content(
        m.content as ContentBlock[],
        m.role === "toolResult",
        options,
        resolved,
      );
      if (content !== m.content) message = { ...message, content };
    }
    if (m.role === "assistant") {
      const usage = _withCost(m.usage);
      if (usage !== m.usage) message = { ...message, usage };
    }
    return message === m ? entry : { ...entry, message } as SessionEntry;
  }
  if (entry.type === "custom_message" && Array.isArray(entry.content)) {
    const content = await _content(
      entry.content as ContentBlock[],
      false,
      options,
      resolved,
    );
    return content === entry.content
      ? entry
      : { ...entry, content } as SessionEntry;
  }
  if (entry.type === "model_usage") {
    const usage = _withCost(entry.usage);
    return usage === entry.usage ? entry : { ...entry, usage } as SessionEntry;
  }
  return entry;
}

function _withCost(usage: unknown): unknown {
  if (usage === null || typeof usage !== "object") return usage;
  const u = usage as Usage;
  if (u.cost !== null && typeof u.cost === "object") return usage;
  return { ...u, cost: { ..._ZERO_COST } };
}

async function _content(
  content: ContentBlock[],
  toolResult: boolean,
  options: PersistOptions,
  resolved: ResolvedBlobs,
): Promise<ContentBlock[]> {
  const store = options.blobs;
  if (store === undefined) return content;
  const threshold = options.textBlobThreshold;
  let out: ContentBlock[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const b = content[i]!;
    if (
      b.type === "image" && typeof b.data === "string" &&
      b.data.length >= IMAGE_BLOB_MIN_CHARS &&
      parseBlobRef(b.data) === undefined
    ) {
      let bytes: Uint8Array;
      try {
        bytes = Uint8Array.fromBase64(b.data);
      } catch {
        continue; // not base64: kept inline, as given
      }
      const ext = typeof b.mimeType === "string"
        ? imageExtension(b.mimeType)
        : undefined;
      const ref = await store.put(bytes, ext === undefined ? {} : { ext });
      resolved.images.set(ref.slice(BLOB_REF_PREFIX.length), b.data);
      (out ??= content.slice())[i] = { ...b, data: ref };
    } else if (
      toolResult && threshold !== undefined && b.type === "text" &&
      typeof b.text === "string" && b.text.length > threshold
    ) {
      const ref = await store.put(_enc.encode(b.text));
      resolved.texts.set(ref.slice(BLOB_REF_PREFIX.length), b.text);
      (out ??= content.slice())[i] = { ...b, text: ref };
    }
  }
  return out ?? content;
}
