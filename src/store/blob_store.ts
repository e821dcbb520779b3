/**
 * `BlobStore`: the content-addressed store behind `blob:sha256:<hex>` refs.
 *
 * @module
 */

import { sha256Hex } from "../format/_encoding.ts";
import { join } from "node:path";
import { errorCode, fs, isNotFound } from "../_fs.ts";
import { BLOB_REF_PREFIX, parseBlobRef } from "../format/blob_ref.ts";
import { quote } from "../format/errors.ts";
import { openRegular, readFull } from "../read/_open.ts";
import { writeAtomically } from "../write/_atomic_file.ts";
import { makeFolders, writeAll } from "../write/_files.ts";
import { isThere, touch } from "./_blob_file.ts";

/** Options for the {@linkcode BlobStore} constructor. */
export interface BlobStoreOptions {
  /**
   * Flush each new blob's bytes (and then its folder) to disk before
   * {@linkcode BlobStore.put} returns. Default `false`, as omp: a crash can
   * then lose a blob written just before it (the rename makes a half-written
   * blob impossible, not a lost one), and the session line naming it would
   * load with the ref left in place and reported as missing.
   */
  sync?: boolean;
}

/** Options for {@linkcode BlobStore.put}. */
export interface BlobPutOptions {
  /**
   * Also make `<hex>.<ext>` (a hard link, or a copy where links fail) so file
   * viewers can tell the type, as omp does for images. `[a-z0-9]{1,8}`.
   */
  ext?: string;
}

/**
 * The largest blob {@linkcode BlobStore.get} reads into memory, and so the
 * largest a session load resolves: 64 MiB. Far above any image a model
 * provider accepts (a few MB to 20 MB), and far below the ~400 MB whose
 * base64 no longer fits in a JavaScript string. Not re-exported: the
 * public documentation states the number.
 */
export const BLOB_READ_MAX_BYTES = 64 * 1024 * 1024;

const _EXT = /^[a-z0-9]{1,8}$/;

/**
 * A folder of blobs, each named by the SHA-256 hex digest of its bytes
 * (`<dataDir>/blobs/<hex>`). References are `blob:sha256:<hex>`; a reference
 * that {@linkcode parseBlobRef} refuses is a `TypeError` and no path is ever
 * built from it. The store refuses a blobs folder or a blob file that is a
 * symbolic link, so a hostile data dir cannot point reads or writes
 * elsewhere (the folders above the blobs folder may be links).
 *
 * The contract with `cli blobs gc`, which may run while agents write: a blob
 * is taken only when no session file names it (see the gc's help for which
 * files it reads) and it has not changed for a grace period (an hour by
 * default; omp's own gc waits five minutes): {@linkcode BlobStore.put} sets
 * the time of a blob it finds stored, so a blob stored (or stored again) for
 * a line being written is never taken. What gc takes goes to
 * `<blobs>/.trash/<when>/`, where this store does not look (a ref to it
 * reads as missing) and omp's gc does not either; `cli blobs restore` puts it
 * back, and so does the next gc when a session names it again. Only a later
 * gc, once the trash is older than its keep period (a week by default),
 * deletes it.
 *
 * @example Storing and reading back a blob
 * ```ts
 * import { BlobStore } from "@xdev/session";
 * import { equal, ok } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * try {
 *   const store = new BlobStore(`${dir}/blobs`);
 *   const ref = await store.put(new TextEncoder().encode("hello"));
 *   ok(ref.startsWith("blob:sha256:"));
 *   const bytes = await store.get(ref);
 *   equal(new TextDecoder().decode(bytes), "hello");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export class BlobStore {
  readonly #dir: string;
  readonly #sync: boolean;

  /**
   * A store over a blobs folder. Nothing is read or made until first use.
   *
   * @param dir The blobs folder, `<dataDir>/blobs`; made (mode 0700) by the
   * first {@linkcode BlobStore.put}.
   * @param options Durability.
   *
   * @example A store that flushes every new blob
   * ```ts
   * import { BlobStore } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   const store = new BlobStore(`${dir}/blobs`, { sync: true });
   *   const ref = await store.put(new Uint8Array([1, 2, 3]));
   *   equal(await store.has(ref), true);
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   */
  constructor(dir: string, options: BlobStoreOptions = {}) {
    this.#dir = dir;
    this.#sync = options.sync ?? false;
  }

  /**
   * The blobs folder.
   *
   * @example The folder a store was made over
   * ```ts
   * import { BlobStore } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * equal(new BlobStore("/data/blobs").dir, "/data/blobs");
   * ```
   */
  get dir(): string {
    return this.#dir;
  }

  /**
   * Stores bytes under their SHA-256 digest and returns their reference.
   * Idempotent: when the blob exists, its bytes are not written again, but
   * its modification time is set to now, so `cli blobs gc` (which never takes
   * a blob changed within its grace period) leaves a blob just stored or
   * stored again alone while the line naming it is written. Where the time
   * cannot be set (a read-only store, another user's file) the put still
   * succeeds, and the grace counts from the blob's last write; when the blob
   * vanishes in between (gc moved it to the trash), it is written anew. A
   * new blob is written to `.<hex>.<random>.tmp` (mode 0600) in the same
   * folder and renamed into place, so no partial blob is ever visible under
   * its name; on failure the temp file is removed.
   *
   * @example Storing a PNG with a typed twin for viewers
   * ```ts
   * import { BlobStore } from "@xdev/session";
   * import { ok } from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   const store = new BlobStore(dir);
   *   const ref = await store.put(new Uint8Array([0x89, 0x50]), { ext: "png" });
   *   ok((await Deno.stat(`${store.path(ref)}.png`)).isFile);
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   *
   * @param bytes The content.
   * @param options A typed twin to add.
   * @returns `blob:sha256:<hex>`.
   * @throws {TypeError} When `bytes` is not a `Uint8Array` or `ext` is not
   * `[a-z0-9]{1,8}`.
   * @throws {Error} When the folder or the blob is a symbolic link or not
   * what it should be, or the filesystem fails.
   */
  async put(bytes: Uint8Array, options: BlobPutOptions = {}): Promise<string> {
    if (!(bytes instanceof Uint8Array)) {
      throw new TypeError("Cannot store blob: the content is not a Uint8Array");
    }
    const { ext } = options;
    if (ext !== undefined && !_EXT.test(ext)) {
      throw new TypeError(
        `Cannot store blob: extension ${quote(ext)} is not [a-z0-9]{1,8}`,
      );
    }
    const hex = await sha256Hex(bytes);
    await this.#ensureDir();
    const path = join(this.#dir, hex);
    if (!await isThere(path, "file") || !await touch(path)) {
      await this.#writeAtomically(hex, bytes);
    }
    if (ext !== undefined) await this.#ensureTwin(hex, `${hex}.${ext}`, bytes);
    return `${BLOB_REF_PREFIX}${hex}`;
  }

  /**
   * The bytes a reference names. The blob's size is checked before it is
   * read: a blob larger than 64 MiB is a `RangeError` and is never read into
   * memory (its base64 would not fit in a string much above that scale).
   *
   * @example Reading a blob that is not there
   * ```ts
   * import { BlobStore } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const store = new BlobStore("/nonexistent/blobs");
   * equal(await store.get(`blob:sha256:${"0".repeat(64)}`), undefined);
   * ```
   *
   * @param ref `blob:sha256:<64 lowercase hex>`.
   * @returns The bytes, or undefined when the blob (or the folder) is missing.
   * @throws {TypeError} When `ref` is not a valid reference.
   * @throws {RangeError} When the blob is larger than 64 MiB.
   * @throws {Error} When the folder or the blob is a symbolic link or not a
   * regular file, or when it cannot be read (the OS error's class and code
   * kept; `EUNEXPECTEDEOF`, Deno's `UnexpectedEof`, when it shrinks while it
   * is read).
   */
  get(ref: string): Promise<Uint8Array | undefined> {
    return this.#read(ref, BLOB_READ_MAX_BYTES);
  }

  /**
   * Whether the blob a reference names is stored.
   *
   * @example Checking before reading
   * ```ts
   * import { BlobStore } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const store = new BlobStore("/nonexistent/blobs");
   * equal(await store.has(`blob:sha256:${"0".repeat(64)}`), false);
   * ```
   *
   * @param ref `blob:sha256:<64 lowercase hex>`.
   * @returns Whether `<dir>/<hex>` is a regular file.
   * @throws {TypeError} When `ref` is not a valid reference.
   * @throws {Error} When the folder or the blob is a symbolic link.
   */
  async has(ref: string): Promise<boolean> {
    const path = this.path(ref);
    return await isThere(this.#dir, "directory") &&
      await isThere(path, "file");
  }

  /**
   * Whether the blob a reference names is stored and its bytes still hash to
   * its name.
   *
   * @example A fresh blob verifies
   * ```ts
   * import { BlobStore } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   const store = new BlobStore(dir);
   *   equal(await store.verify(await store.put(new Uint8Array([1]))), true);
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   *
   * @param ref `blob:sha256:<64 lowercase hex>`.
   * @returns False when the blob is missing or its bytes do not match.
   * @throws {TypeError} When `ref` is not a valid reference.
   */
  async verify(ref: string): Promise<boolean> {
    const bytes = await this.#read(ref, Infinity);
    return bytes !== undefined &&
      `${BLOB_REF_PREFIX}${await sha256Hex(bytes)}` === ref;
  }

  /**
   * The file a reference names, `<dir>/<hex>`. Touches no file.
   *
   * @example Where a reference's bytes live
   * ```ts
   * import { BlobStore } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const hex = "a".repeat(64);
   * equal(new BlobStore("/d/blobs").path(`blob:sha256:${hex}`), `/d/blobs/${hex}`);
   * ```
   *
   * @param ref `blob:sha256:<64 lowercase hex>`.
   * @returns The path.
   * @throws {TypeError} When `ref` is not a valid reference.
   */
  path(ref: string): string {
    const hex = typeof ref === "string" ? parseBlobRef(ref) : undefined;
    if (hex === undefined) {
      throw new TypeError(
        `Cannot find blob ${quote(ref)}: not blob:sha256:<64 lowercase hex>`,
      );
    }
    return join(this.#dir, hex);
  }

  /** The blob's bytes, its size checked against `max` before it is read. */
  async #read(ref: string, max: number): Promise<Uint8Array | undefined> {
    if (!await this.has(ref)) return undefined;
    const path = this.path(ref);
    const action = `Cannot read blob ${parseBlobRef(ref)}`;
    const file = await openRegular(path, action).catch((err) => {
      if (isNotFound(err)) return undefined; // just removed
      throw err;
    });
    try {
      if (file === undefined) return undefined;
      const size = (await file.stat()).size;
      if (size > max) {
        throw new RangeError(
          `${action}: it is ${size} bytes, more than the ${max}-byte bound`,
        );
      }
      const bytes = new Uint8Array(size);
      const n = await readFull(file, bytes, 0);
      if (n < size) {
        const why = `it shrank from ${size} to ${n} bytes while read`;
        throw fs().error("EUNEXPECTEDEOF", `${action}: ${why}`);
      }
      return bytes;
    } finally {
      await file?.[Symbol.asyncDispose]();
    }
  }

  async #ensureDir(): Promise<void> {
    if (await isThere(this.#dir, "directory")) return;
    // Each folder made (the data dir too, when new) is 0700 whatever the umask.
    await makeFolders(this.#dir, this.#dir);
    await isThere(this.#dir, "directory");
  }

  /** Writes `<dir>/<name>` through a temp file and a rename. */
  #writeAtomically(name: string, bytes: Uint8Array): Promise<void> {
    return writeAtomically(
      join(this.#dir, name),
      (out) => writeAll(out, bytes),
      {
        action: `Cannot store blob ${name} in ${quote(this.#dir)}`,
        sync: this.#sync,
      },
    );
  }

  /** Makes `<dir>/<twin>` a hard link to (or else a copy of) `<dir>/<hex>`. */
  async #ensureTwin(
    hex: string,
    twin: string,
    bytes: Uint8Array,
  ): Promise<void> {
    if (await isThere(join(this.#dir, twin), "file")) return;
    try {
      await fs().link(join(this.#dir, hex), join(this.#dir, twin));
      return;
    } catch (err) {
      if (errorCode(err) === "EEXIST") return;
      // Links can fail (a filesystem without them): copy, as omp does.
    }
    await this.#writeAtomically(twin, bytes);
  }
}

const _IMAGE_EXTENSIONS: ReadonlyMap<string, string> = new Map([
  ["image/png", "png"],
  ["image/jpeg", "jpg"],
  ["image/jpg", "jpg"],
  ["image/gif", "gif"],
  ["image/webp", "webp"],
]);

/**
 * The file extension omp gives an image of this MIME type (`image/png` →
 * `png`, `image/jpeg` → `jpg`, `image/gif` → `gif`, `image/webp` → `webp`),
 * or undefined. Case and parameters (`; charset=…`) are ignored.
 *
 * @example The twin for a JPEG
 * ```ts
 * import { imageExtension } from "./blob_store.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(imageExtension("image/jpeg"), "jpg");
 * equal(imageExtension("text/plain"), undefined);
 * ```
 *
 * @param mimeType A MIME type, as in an image block's `mimeType`.
 * @returns An extension for {@linkcode BlobPutOptions.ext}, or undefined.
 */
export function imageExtension(mimeType: string): string | undefined {
  const type = mimeType.split(";")[0]?.trim().toLowerCase();
  return type === undefined ? undefined : _IMAGE_EXTENSIONS.get(type);
}
