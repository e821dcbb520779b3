/**
 * The blobs a loaded session references: image data, and tool-result text
 * that is exactly a reference, read from the blob store through the one
 * blob-ref gate.
 *
 * @module
 */

import { looksLikeBlobRef, parseBlobRef } from "../format/blob_ref.ts";
import type { SessionEntry } from "../format/entries.ts";
import type { LoadIssue } from "../format/issues.ts";
import type { ContentBlock } from "../format/messages.ts";
import { IssueLog } from "../read/_decode.ts";
import type { LoadedSession } from "../read/_records.ts";
import { BlobStore } from "../store/blob_store.ts";

/** Blob contents seen while preparing, so the context can use them without a read. */
export interface ResolvedBlobs {
  /** Digest → base64 image data. */
  images: Map<string, string>;
  /** Digest → text. */
  texts: Map<string, string>;
}

/** No blob resolved. */
export function noBlobs(): ResolvedBlobs {
  return { images: new Map(), texts: new Map() };
}

/** Blob references in the loaded entries: image data, and tool-result text that is exactly a reference. */
function* _blobRefs(
  entries: readonly SessionEntry[],
): Generator<{ ref: string; text: boolean }> {
  for (const e of entries) {
    let content: unknown;
    let toolResult = false;
    if (e.type === "message") {
      const m = e.message as { content?: unknown; role?: unknown } | null;
      content = m?.content;
      toolResult = m?.role === "toolResult";
    } else if (e.type === "custom_message") content = e.content;
    if (!Array.isArray(content)) continue;
    for (const b of content as ContentBlock[]) {
      if (
        b?.type === "image" && typeof b.data === "string" &&
        looksLikeBlobRef(b.data)
      ) {
        yield { ref: b.data, text: false };
      } else if (
        toolResult && b?.type === "text" && typeof b.text === "string" &&
        parseBlobRef(b.text) !== undefined
      ) {
        yield { ref: b.text, text: true };
      }
    }
  }
}

const _utf8 = new TextDecoder();

/**
 * Read the blobs the loaded entries reference, reporting refs that are not
 * valid (never followed) and blobs that are missing or unusable.
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
  const out: ResolvedBlobs = { images: new Map(), texts: new Map() };
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
    let bytes: Uint8Array | undefined;
    let why = "is missing";
    try {
      bytes = await store.get(ref);
    } catch (err) {
      // A symlinked blob folder or blob, or another thing in its place: a
      // hostile data dir is reported, never followed.
      if (!(err instanceof Error) || err instanceof TypeError) throw err;
      why = `cannot be used (${err.message})`;
    }
    if (bytes !== undefined) {
      into.set(hex, text ? _utf8.decode(bytes) : bytes.toBase64());
    } else {
      refused.add(hex);
      log.add(
        "missing-blob",
        0,
        -1,
        `blob ${hex} ${why}; the reference stays in place`,
      );
    }
  }
  loaded.issues.push(...log.issues);
  return out;
}
