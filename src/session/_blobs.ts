/**
 * The blobs a loaded session references, read from the blob store through
 * the one blob-ref gate: image data wherever omp resolves it (message
 * content, `details.images[]`, image generation results), `image_url` data
 * URLs, and tool-result text that is exactly a reference (ours). A blob that
 * is missing, too large, unreadable or damaged is reported and its reference
 * left in place; the load goes on.
 *
 * @module
 */

import { sha256Hex, toBase64 } from "../format/_encoding.ts";
import { isOsError } from "../_fs.ts";
import { BLOB_REF_PREFIX, parseBlobRef } from "../format/blob_ref.ts";
import { mapLoadedSlots } from "../format/_blob_slots.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { LoadIssue, LoadIssueKind } from "../format/issues.ts";
import type { ContentBlock } from "../format/messages.ts";
import { IssueLog } from "../read/_decode.ts";
import type { LoadedSession } from "../read/_records.ts";
import { BLOB_READ_MAX_BYTES, BlobStore } from "../store/blob_store.ts";

/** Blob contents seen while preparing, so the context can use them without a read. */
export interface ResolvedBlobs {
  /** Digest → base64 image data. */
  images: Map<string, string>;
  /** Digest → text: tool-result text, and `image_url` data URLs. */
  texts: Map<string, string>;
}

/** No blob resolved. */
export function noBlobs(): ResolvedBlobs {
  return { images: new Map(), texts: new Map() };
}

/** A reference found in an entry, and how its bytes are read. */
interface _Ref {
  ref: string;
  /** Read as UTF-8 text (a data URL, a tool-result text) rather than base64. */
  text: boolean;
}

/**
 * Blob references in the entries the context is made of (messages and
 * custom messages), at the positions omp resolves, plus tool-result text
 * that is exactly a reference.
 */
function* _blobRefs(entries: readonly SessionEntry[]): Generator<_Ref> {
  const found: _Ref[] = [];
  const collect = (value: unknown, key: string) =>
    mapLoadedSlots(value, (slot) => {
      found.push({ ref: slot.value, text: slot.kind === "url" });
      return undefined;
    }, key);
  for (const e of entries) {
    if (e.type === "message") {
      collect(e.message, "message");
      const m = e.message as { content?: unknown; role?: unknown } | null;
      if (m?.role === "toolResult" && Array.isArray(m.content)) {
        for (const b of m.content as ContentBlock[]) {
          if (
            b?.type === "text" && typeof b.text === "string" &&
            parseBlobRef(b.text) !== undefined
          ) found.push({ ref: b.text, text: true });
        }
      }
    } else if (e.type === "custom_message") {
      collect(e.content, "content");
      collect(e.details, "details");
    }
    yield* found;
    found.length = 0;
  }
}

const _utf8 = new TextDecoder();

/** Why a blob could not be used: an issue kind and the state, in words. */
type _Refusal = { kind: LoadIssueKind; why: string };

/**
 * Read the blobs the loaded entries reference, reporting refs that are not
 * valid (never followed) and blobs that are missing, larger than 64 MiB
 * (never read), unreadable, or whose bytes no longer hash to their name.
 *
 * @param loaded What was read.
 * @param blobsDir The blob folder.
 * @param onIssue Called with each issue.
 * @returns The blobs by digest.
 */
export async function readBlobs(
  loaded: LoadedSession,
  blobsDir: string,
  onIssue: ((issue: LoadIssue) => void) | undefined,
): Promise<ResolvedBlobs> {
  const log = new IssueLog(onIssue);
  const store = new BlobStore(blobsDir);
  const out: ResolvedBlobs = noBlobs();
  const refused = new Set<string>();
  for (const { ref, text } of _blobRefs(loaded.entries)) {
    const hex = parseBlobRef(ref);
    if (hex === undefined) {
      if (!refused.has(ref)) {
        refused.add(ref);
        log.add(
          "bad-blob-ref",
          0,
          -1,
          "a blob reference is not blob:sha256:<64 lowercase hex> and was not followed",
        );
      }
      continue;
    }
    const into = text ? out.texts : out.images;
    if (into.has(hex) || refused.has(hex)) continue;
    const got = await _read(store, hex, text);
    if (typeof got === "string") into.set(hex, got);
    else {
      refused.add(hex);
      log.add(
        got.kind,
        0,
        -1,
        `blob ${hex} ${got.why}; the reference stays in place`,
      );
    }
  }
  loaded.issues.push(...log.issues);
  return out;
}

/** A blob as base64 (or text), or why it cannot be used. */
async function _read(
  store: BlobStore,
  hex: string,
  text: boolean,
): Promise<string | _Refusal> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await store.get(`${BLOB_REF_PREFIX}${hex}`);
  } catch (err) {
    if (!(err instanceof Error) || err instanceof TypeError) throw err;
    if (err instanceof RangeError) {
      return {
        kind: "blob-too-large",
        why:
          `is larger than the ${BLOB_READ_MAX_BYTES}-byte bound and was not read`,
      };
    }
    if (isOsError(err)) {
      return {
        kind: "unreadable-blob",
        why: `cannot be read (${err.message})`,
      };
    }
    // A symlinked blob folder or blob, or another thing in its place: a
    // hostile data dir is reported, never followed.
    return { kind: "missing-blob", why: `cannot be used (${err.message})` };
  }
  if (bytes === undefined) return { kind: "missing-blob", why: "is missing" };
  if (await sha256Hex(bytes) !== hex) {
    return {
      kind: "corrupt-blob",
      why:
        `holds ${bytes.length} bytes that do not hash to its name (cut short or damaged)`,
    };
  }
  try {
    return text ? _utf8.decode(bytes) : toBase64(bytes);
  } catch (err) {
    // Only a bound far above BLOB_READ_MAX_BYTES could reach the string limit.
    return { kind: "blob-too-large", why: `cannot be held (${String(err)})` };
  }
}
