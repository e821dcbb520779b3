/**
 * The images and text blobs an export shows: read from the session (base64)
 * or the blob store (`blob:sha256:<hex>`), checked, and either written as
 * files beside the export or embedded as data URLs.
 *
 * @module
 */

import { fromBase64, sha256Hex, toBase64 } from "../format/_encoding.ts";
import { basename, join } from "node:path";
import type { FileInfo } from "../_fs.ts";
import { BLOB_REF_PREFIX, parseBlobRef } from "../format/blob_ref.ts";
import { type BlobStore, imageExtension } from "../store/blob_store.ts";
import { relativeHref } from "./_escape.ts";
import { files } from "./_files.ts";

/** How an image is shown. */
export type ImageOut =
  /** Embedded: `src` is `data:image/<png|jpeg|gif|webp>;base64,…`. */
  | { kind: "inline"; src: string }
  /** A file we wrote beside the export; `href` is relative to the pages. */
  | { kind: "file"; href: string }
  /** Not shown; `reason` is ours, never the session's words. */
  | { kind: "missing"; reason: string };

/** Options for {@linkcode Assets}. */
export interface AssetsOptions {
  /** Embed images as data URLs instead of writing files. */
  inline: boolean;
  /**
   * The folder images are written to (`<out-stem>-files`, beside the pages,
   * which link to it by its name), made on first use.
   */
  folder: string;
  /** The blob store, when the session has a data dir. */
  blobs: BlobStore | undefined;
  /** The session's file, which no image may replace. */
  session: FileInfo;
}

/** The image types shown, by their first bytes. */
const _SIGNATURES: readonly [string, (b: Uint8Array) => boolean][] = [
  ["image/png", (b) => _starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a])],
  ["image/jpeg", (b) => _starts(b, [0xff, 0xd8, 0xff])],
  ["image/gif", (b) => _starts(b, [0x47, 0x49, 0x46, 0x38])],
  [
    "image/webp",
    (b) =>
      _starts(b, [0x52, 0x49, 0x46, 0x46]) &&
      _starts(b.subarray(8), [0x57, 0x45, 0x42, 0x50]),
  ],
];

/**
 * The images of one export: each checked (a known image type, declared
 * and in its bytes; a blob's bytes hashing to its name) and written once.
 */
export class Assets {
  readonly #options: AssetsOptions;
  /** The image files written. */
  readonly #written = new Set<string>();
  /** Images embedded as data URLs. */
  inlined = 0;
  /** Images not shown: a missing or damaged blob, an unknown type. */
  missing = 0;

  /** @param options Inline or files, where, and the blob store. */
  constructor(options: AssetsOptions) {
    this.#options = options;
  }

  /** Images written as files (each distinct file once). */
  get files(): number {
    return this.#written.size;
  }

  /**
   * Show an image block.
   *
   * @param data The block's `data`: base64, or a blob reference.
   * @param mimeType The block's `mimeType`.
   * @returns How it is shown.
   */
  async image(data: unknown, mimeType: unknown): Promise<ImageOut> {
    const declared = typeof mimeType === "string"
      ? imageExtension(mimeType)
      : undefined;
    if (declared === undefined) return this.#missing("not an image type shown");
    const read = await this.#bytes(data);
    if (typeof read === "string") return this.#missing(read);
    const { bytes, hex } = read;
    const mime = _SIGNATURES.find(([, test]) => test(bytes))?.[0];
    if (mime === undefined) {
      return this.#missing("its bytes are not a PNG, JPEG, GIF or WebP image");
    }
    if (this.#options.inline) {
      this.inlined++;
      return { kind: "inline", src: `data:${mime};base64,${toBase64(bytes)}` };
    }
    const { folder } = this.#options;
    const name = `${hex}.${imageExtension(mime)}`;
    if (!this.#written.has(name)) {
      await files.makeFolder(folder);
      await files.writeFile(join(folder, name), bytes, this.#options.session);
      this.#written.add(name);
    }
    return { kind: "file", href: relativeHref(basename(folder), name) };
  }

  /**
   * The text of a tool result stored as a blob (the whole text being the
   * reference), or undefined when it is no reference or the blob is missing.
   *
   * @param text A text block's text.
   * @returns The blob's text.
   */
  async text(text: string): Promise<string | undefined> {
    const hex = parseBlobRef(text);
    if (hex === undefined) return undefined;
    const read = await this.#blob(hex);
    return typeof read === "string"
      ? undefined
      : new TextDecoder().decode(read);
  }

  #missing(reason: string): ImageOut {
    this.missing++;
    return { kind: "missing", reason };
  }

  /** The image's bytes and their digest, or why they cannot be had. */
  async #bytes(
    data: unknown,
  ): Promise<{ bytes: Uint8Array; hex: string } | string> {
    if (typeof data !== "string") return "it has no data";
    if (data.startsWith("blob:")) {
      const hex = parseBlobRef(data);
      if (hex === undefined) return "its blob reference is not valid";
      const bytes = await this.#blob(hex);
      return typeof bytes === "string" ? bytes : { bytes, hex };
    }
    let bytes: Uint8Array;
    try {
      bytes = fromBase64(data);
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      return "its data is not base64";
    }
    return { bytes, hex: await sha256Hex(bytes) };
  }

  /** A blob's verified bytes, or why they cannot be had. */
  async #blob(hex: string): Promise<Uint8Array | string> {
    const store = this.#options.blobs;
    if (store === undefined) return "its blob is missing (no data dir)";
    let bytes: Uint8Array | undefined;
    try {
      bytes = await store.get(`${BLOB_REF_PREFIX}${hex}`);
    } catch (err) {
      // A symbolic link or another thing in the blob's place: never followed.
      if (!(err instanceof Error)) throw err;
      return "its blob cannot be used";
    }
    if (bytes === undefined) return "its blob is missing";
    if (await sha256Hex(bytes) !== hex) {
      return "its blob does not match its name";
    }
    return bytes;
  }
}

function _starts(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}
