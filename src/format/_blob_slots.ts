/**
 * Where omp keeps image bytes in an entry, at any depth: the positions its
 * persistence moves to the blob store (`session-persistence.ts`,
 * `truncateForPersistence`) and the positions its loader resolves
 * (`session-loader.ts`, `resolvePersistedBlobRefs`), walked the same way, so
 * a file either side writes reads back the same on the other.
 *
 * The walks find positions only; what a reference names is decided by the
 * one gate, `parseBlobRef` in `blob_ref.ts`.
 *
 * @module
 */

import { looksLikeBlobRef } from "./blob_ref.ts";

/** Base64 image data of this many characters or more is stored as a blob, as omp does. */
export const IMAGE_BLOB_MIN_CHARS = 1024;

/** What a blob position holds. */
export type BlobSlotKind =
  /** Base64 bytes of an image payload (`data`, with its `mimeType`). */
  | "image"
  /** Base64 bytes of an `image_generation_call`'s `result`. */
  | "result"
  /** A `data:image/…;base64,…` URL under `image_url`, stored as its UTF-8. */
  | "url"
  /** Base64 bytes of a snapcompact frame (stored, never resolved on load). */
  | "frame";

/** One position that holds, or may hold, a blob. */
export interface BlobSlot {
  /** What it holds. */
  kind: BlobSlotKind;
  /** The string there: the data to store, or the reference to resolve. */
  value: string;
  /** The image's MIME type, when the payload names one. */
  mimeType?: string;
}

/**
 * A replacement for the string at a position, or undefined to leave it.
 * Returning undefined never changes how the walk goes on.
 */
export type BlobSlotVisit = (slot: BlobSlot) => string | undefined;

type _Obj = Record<string, unknown>;

/**
 * Visit the positions omp stores as blobs when it writes `value` (an entry):
 * an image payload of 1024+ base64 characters that is not already a
 * reference, under `content` (an image block), `images` or `frames`; an
 * `image_generation_call`'s `result` of 1024+ characters; a data URL under
 * `image_url` (any length). Signed and encrypted blocks, which omp keeps
 * verbatim, are not entered. Copy on write: what is not replaced is shared.
 *
 * @param value An entry, or any part of one.
 * @param visit Called once per position, in document order.
 * @param key The key `value` sits under.
 * @returns `value`, or a copy with the replacements.
 */
export function mapStoredSlots(
  value: unknown,
  visit: BlobSlotVisit,
  key?: string,
): unknown {
  if (typeof value === "string") {
    if (key === "image_url" && _isImageDataUrl(value)) {
      return visit({ kind: "url", value }) ?? value;
    }
    return value;
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return _mapArray(value, mapStoredSlots, visit, key);
  const o = value as _Obj;
  if (
    o.type === "image_generation_call" && typeof o.result === "string" &&
    !looksLikeBlobRef(o.result) && o.result.length >= IMAGE_BLOB_MIN_CHARS
  ) {
    const result = visit({ kind: "result", value: o.result });
    return result === undefined ? value : { ...o, result };
  }
  if (_isImagePosition(o, key)) {
    const data = o.data as string;
    if (!looksLikeBlobRef(data) && data.length >= IMAGE_BLOB_MIN_CHARS) {
      const replaced = visit(
        _imageSlot(o, key === "frames" ? "frame" : "image"),
      );
      return replaced === undefined ? value : { ...o, data: replaced };
    }
  }
  if (_isVerbatim(o, key)) return value;
  return _mapObject(o, mapStoredSlots, visit);
}

/**
 * Visit the positions omp resolves when it loads `value` (an entry): an
 * image payload under `content` (an image block) or `images` whose `data`
 * starts like a reference, an `image_generation_call`'s `result`, and an
 * object's `image_url`, when they start like one. Snapcompact frames stay
 * references, as in omp. Copy on write.
 *
 * @param value An entry, or any part of one.
 * @param visit Called once per position, in document order.
 * @param key The key `value` sits under.
 * @returns `value`, or a copy with the replacements.
 */
export function mapLoadedSlots(
  value: unknown,
  visit: BlobSlotVisit,
  key?: string,
): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return _mapArray(value, mapLoadedSlots, visit, key);
  let o = value as _Obj;
  if (
    key !== "frames" && _isImagePosition(o, key) &&
    looksLikeBlobRef(o.data as string)
  ) {
    const data = visit(_imageSlot(o, "image"));
    return data === undefined ? value : { ...o, data };
  }
  if (
    o.type === "image_generation_call" && typeof o.result === "string" &&
    looksLikeBlobRef(o.result)
  ) {
    const result = visit({ kind: "result", value: o.result });
    if (result !== undefined) o = { ...o, result };
  }
  if (typeof o.image_url === "string" && looksLikeBlobRef(o.image_url)) {
    const url = visit({ kind: "url", value: o.image_url });
    if (url !== undefined) o = { ...o, image_url: url };
  }
  return _mapObject(o, mapLoadedSlots, visit);
}

type _Walk = (value: unknown, visit: BlobSlotVisit, key?: string) => unknown;

/** Each item walked under the array's own key (as omp does), copied on write. */
function _mapArray(
  items: unknown[],
  walk: _Walk,
  visit: BlobSlotVisit,
  key: string | undefined,
): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const next = walk(item, visit, key);
    if (next !== item) (out ??= items.slice())[i] = next;
  }
  return out ?? items;
}

/** Each own property walked under its key, copied on write. */
function _mapObject(o: _Obj, walk: _Walk, visit: BlobSlotVisit): _Obj {
  let out: _Obj | undefined;
  for (const k of Object.keys(o)) {
    const v = o[k];
    const next = walk(v, visit, k);
    if (next !== v) (out ??= { ...o })[k] = next;
  }
  return out ?? o;
}

function _imageSlot(o: _Obj, kind: BlobSlotKind): BlobSlot {
  const slot: BlobSlot = { kind, value: o.data as string };
  if (typeof o.mimeType === "string") slot.mimeType = o.mimeType;
  return slot;
}

/**
 * omp's `isExternalizableImagePosition`: image data (a string `data` in an
 * image block, or beside an `image/…` MIME type) under `content` (image
 * blocks only), `images` or `frames`.
 */
function _isImagePosition(o: _Obj, key: string | undefined): boolean {
  if (typeof o.data !== "string") return false;
  const block = o.type === "image";
  const typed = typeof o.mimeType === "string" &&
    o.mimeType.toLowerCase().startsWith("image/");
  if (!block && !typed) return false;
  return (key === "content" && block) || key === "images" || key === "frames";
}

function _isImageDataUrl(s: string): boolean {
  return s.startsWith("data:image/") && s.includes(";base64,");
}

function _filled(v: unknown): boolean {
  return typeof v === "string" && v.length > 0;
}

/**
 * omp's `isAtomicPersistenceNode`: blocks bound to their exact bytes
 * (signed thinking, text and tool calls, redacted thinking, encrypted
 * reasoning, Anthropic server-tool history and compaction carriers), which
 * omp persists verbatim without entering them.
 */
function _isVerbatim(o: _Obj, key: string | undefined): boolean {
  if (o.type === "anthropicServerTool" && "block" in o) {
    return _isServerToolHistory(o.block);
  }
  if (
    o.type === "anthropicCompaction" ||
    (key === "anthropicCompaction" && typeof o.content === "string")
  ) return true;
  return (o.type === "thinking" && _filled(o.thinkingSignature)) ||
    (o.type === "text" && _filled(o.textSignature)) ||
    (o.type === "toolCall" && _filled(o.thoughtSignature)) ||
    (o.type === "redactedThinking" && _filled(o.data)) ||
    (o.type === "reasoning" && _filled(o.encrypted_content));
}

/** omp's `isAnthropicServerToolHistoryBlock`, on the block's own fields. */
function _isServerToolHistory(block: unknown): boolean {
  if (block === null || typeof block !== "object") return false;
  const b = block as _Obj;
  if (b.type === "server_tool_use") {
    return (b.name === "web_search" || b.name === "tool_search_tool_regex" ||
      b.name === "tool_search_tool_bm25") && _filled(b.id);
  }
  if (
    b.type === "web_search_tool_result" || b.type === "tool_search_tool_result"
  ) {
    return _filled(b.tool_use_id) && Object.hasOwn(b, "content");
  }
  return false;
}
