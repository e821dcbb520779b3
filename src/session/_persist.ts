/**
 * What happens to an entry on its way to disk: image bytes move to the blob
 * store wherever omp would move them (at any depth: message content,
 * `details.images[]`, `image_url` data URLs, image generation results,
 * snapcompact frames), large tool-result text too when asked, and every
 * `usage` omp reads gets a `cost` (omp 18.3.4 refuses the file otherwise).
 *
 * @module
 */

import { fromBase64 } from "../format/_encoding.ts";
import { BLOB_REF_PREFIX, parseBlobRef } from "../format/blob_ref.ts";
import { type BlobSlot, mapStoredSlots } from "../format/_blob_slots.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { ContentBlock } from "../format/messages.ts";
import { type BlobStore, imageExtension } from "../store/blob_store.ts";
import type { ResolvedBlobs } from "./_blobs.ts";

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

type _Obj = Record<string, unknown>;

/**
 * The on-disk form of a new entry. The input is not modified; parts that
 * change are copied.
 *
 * @param entry A new entry.
 * @param options The blob store and the text threshold.
 * @param resolved Filled with the contents of blobs written.
 * @returns The entry to write.
 * @throws {TypeError} When a `usage` omp reads is neither an object nor
 * empty (omp would fail on it).
 */
export async function prepareForDisk(
  entry: SessionEntry,
  options: PersistOptions,
  resolved: ResolvedBlobs,
): Promise<SessionEntry> {
  let out = _withCosts(entry);
  const store = options.blobs;
  if (store === undefined) return out;
  out = await _storeImages(out, store, resolved);
  const threshold = options.textBlobThreshold;
  if (threshold !== undefined) {
    out = await _storeTexts(out, threshold, store, resolved);
  }
  return out;
}

/**
 * A zero `cost` wherever omp reads a usage without one (`entryUsage`):
 * an assistant message's `usage`, a `model_usage` entry's `usage`, and the
 * `details.usage` of a `task` tool result (`taskUsageFrom`).
 */
function _withCosts(entry: SessionEntry): SessionEntry {
  if (entry.type === "model_usage") {
    const usage = _withCost(entry.usage, "usage");
    return usage === entry.usage ? entry : { ...entry, usage } as SessionEntry;
  }
  if (entry.type !== "message") return entry;
  const m = entry.message as _Obj | null;
  if (m === null || typeof m !== "object") return entry;
  let message = m;
  if (m.role === "assistant") {
    const usage = _withCost(m.usage, "message.usage");
    if (usage !== m.usage) message = { ...m, usage };
  } else if (
    m.role === "toolResult" && m.toolName === "task" &&
    m.details !== null && typeof m.details === "object"
  ) {
    const details = m.details as _Obj;
    // omp reads only an object here; anything else it skips.
    if (details.usage !== null && typeof details.usage === "object") {
      const usage = _withCost(details.usage, "message.details.usage");
      if (usage !== details.usage) {
        message = { ...m, details: { ...details, usage } };
      }
    }
  }
  return message === m ? entry : { ...entry, message } as SessionEntry;
}

function _withCost(usage: unknown, where: string): unknown {
  // omp skips a missing or falsy usage, and fails on any other non-object.
  if (!usage) return usage;
  if (typeof usage !== "object" || Array.isArray(usage)) {
    throw new TypeError(
      `Cannot append: ${where} is not an object (omp would refuse the file)`,
    );
  }
  const u = usage as _Obj;
  if (u.cost !== null && typeof u.cost === "object") return usage;
  return { ...u, cost: { ..._ZERO_COST } };
}

/** Image bytes at every position omp stores to the blob store. */
async function _storeImages(
  entry: SessionEntry,
  store: BlobStore,
  resolved: ResolvedBlobs,
): Promise<SessionEntry> {
  const slots: BlobSlot[] = [];
  mapStoredSlots(entry, (slot) => {
    slots.push(slot);
    return undefined;
  });
  if (slots.length === 0) return entry;
  const refs: (string | undefined)[] = [];
  for (const slot of slots) refs.push(await _store(slot, store, resolved));
  let i = 0;
  return mapStoredSlots(entry, () => refs[i++]) as SessionEntry;
}

/** Store one position's bytes; undefined (kept inline) when they are not base64. */
async function _store(
  slot: BlobSlot,
  store: BlobStore,
  resolved: ResolvedBlobs,
): Promise<string | undefined> {
  if (slot.kind === "url") {
    const ref = await store.put(_enc.encode(slot.value));
    resolved.texts.set(ref.slice(BLOB_REF_PREFIX.length), slot.value);
    return ref;
  }
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(slot.value);
  } catch {
    return undefined; // not base64: kept inline, as given
  }
  const ext = slot.mimeType === undefined
    ? undefined
    : imageExtension(slot.mimeType);
  const ref = await store.put(bytes, ext === undefined ? {} : { ext });
  resolved.images.set(ref.slice(BLOB_REF_PREFIX.length), slot.value);
  return ref;
}

/** Long text blocks of a tool result's `content` to blobs (ours only). */
async function _storeTexts(
  entry: SessionEntry,
  threshold: number,
  store: BlobStore,
  resolved: ResolvedBlobs,
): Promise<SessionEntry> {
  if (entry.type !== "message") return entry;
  const m = entry.message as _Obj | null;
  if (m?.role !== "toolResult" || !Array.isArray(m.content)) return entry;
  const content = m.content as ContentBlock[];
  let out: ContentBlock[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const b = content[i]!;
    if (
      b?.type === "text" && typeof b.text === "string" &&
      b.text.length > threshold && parseBlobRef(b.text) === undefined
    ) {
      const ref = await store.put(_enc.encode(b.text));
      resolved.texts.set(ref.slice(BLOB_REF_PREFIX.length), b.text);
      (out ??= content.slice())[i] = { ...b, text: ref };
    }
  }
  if (out === undefined) return entry;
  return { ...entry, message: { ...m, content: out } } as SessionEntry;
}
